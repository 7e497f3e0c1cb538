package dev.walkit.testdata;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The command-line generator's damage, spliced into the file record by record (any size), is byte for
 * byte what {@link DamageInjector} makes of the whole log in memory.
 */
class GenerateDamageTest {
    @TempDir
    Path dir;

    @Test
    void splicedDamageEqualsTheInMemoryInjector() throws Exception {
        Path out = dir.resolve("damaged.wal");
        String[] damage = {"crc_mismatch@100", "bad_header@600", "zero_block@1200", "garbage_span@1800", "undecodable_payload@1900",
                "inconsistent_header@2000", "duplicated_record@2100", "torn_tail@0"};
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--out", out.toString(), "--bytes", "2m", "--seed", "7"));
        for (String d : damage) args.addAll(java.util.List.of("--damage", d));
        assertEquals(0, new CommandLine(new Generate()).execute(args.toArray(String[]::new)));

        Path clean = dir.resolve("clean.wal");
        new K8sWalGenerator(new K8sWalGenerator.Options(7, 2 << 20, 20, false)).write(clean);
        DamageInjector inj = new DamageInjector(Files.readAllBytes(clean));
        byte[] want = Files.readAllBytes(clean);
        for (int i = damage.length - 1; i >= 0; i--) { // highest record first
            String[] kr = damage[i].split("@");
            DamageInjector.Kind k = DamageInjector.Kind.valueOf(kr[0].toUpperCase(java.util.Locale.ROOT));
            want = inj.applyTo(want, k, Integer.parseInt(kr[1]), 7).log();
        }
        assertArrayEquals(want, Files.readAllBytes(out));
    }
}
