package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/_launch names KeyTable methods in JIT directives (CompileCommand=dontinline): a name that no
 * longer exists would be ignored by the JVM without a word, and the speed it bought lost.
 */
class LauncherJitTest {
    @Test
    void theMethodsTheLauncherNamesExist() throws Exception {
        String launcher = Files.readString(Path.of("..", "bin", "_launch"));
        Matcher m = Pattern.compile("dontinline,\\$k::(\\w+)").matcher(launcher);
        Set<String> named = new LinkedHashSet<>();
        while (m.find()) named.add(m.group(1));
        assertEquals(Set.of("hash", "difference", "append"), named, "the directives in bin/_launch");
        assertTrue(launcher.contains("k=" + KeyTable.class.getName() + "\n"), "bin/_launch names " + KeyTable.class.getName());
        assertTrue(launcher.indexOf("-XX:CompileCommand=quiet") < launcher.indexOf("-XX:CompileCommand=dontinline"), "quiet comes first");
        Set<String> declared = new LinkedHashSet<>();
        Arrays.stream(KeyTable.class.getDeclaredMethods()).forEach(x -> declared.add(x.getName()));
        for (String name : named) assertTrue(declared.contains(name), "KeyTable has no method " + name);
    }
}
