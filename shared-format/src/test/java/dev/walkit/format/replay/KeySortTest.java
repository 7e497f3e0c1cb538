package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class KeySortTest {
    private static List<String> sortedBoth(List<byte[]> keys) {
        KeyState[] a = keys.stream().map(KeyState::new).toArray(KeyState[]::new);
        KeySort.sort(a, 0, a.length);
        List<byte[]> want = new ArrayList<>(keys);
        want.sort(KeyIndex.KEY_ORDER);
        assertEquals(want.stream().map(Arrays::toString).toList(), Arrays.stream(a).map(s -> Arrays.toString(s.key())).toList());
        return Arrays.stream(a).map(s -> new String(s.key(), StandardCharsets.ISO_8859_1)).toList();
    }

    @Test
    void byteOrderUnsignedWithPrefixesFirst() {
        List<String> got = sortedBoth(List.of(bytes("/registry/b"), bytes("/registry/a/x"), bytes("/registry/a"), new byte[0],
                new byte[] {(byte) 0xFF}, new byte[] {0x7F}, new byte[] {(byte) 0x80, 0}, new byte[] {(byte) 0x80}, bytes("/registry/")));
        assertEquals("", got.get(0));
        assertEquals(List.of("/registry/", "/registry/a", "/registry/a/x", "/registry/b"), got.subList(1, 5));
    }

    @Test
    void agreesWithTheComparatorOnKubernetesShapedAndRandomKeys() {
        Random rnd = new Random(21);
        for (int round = 0; round < 50; round++) {
            List<byte[]> keys = new ArrayList<>();
            int n = rnd.nextInt(2000);
            for (int i = 0; i < n; i++) {
                if (rnd.nextBoolean()) {
                    keys.add(bytes("/registry/" + (rnd.nextBoolean() ? "events" : "pods") + "/ns" + rnd.nextInt(5) + "/pod-" + rnd.nextInt(300) + "." + i));
                } else {
                    byte[] k = new byte[rnd.nextInt(6)];
                    rnd.nextBytes(k);
                    for (int j = 0; j < k.length; j++) k[j] = (byte) (k[j] & 0x83); // few distinct bytes: many ties, both signs
                    keys.add(k);
                }
            }
            sortedBoth(keys);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
