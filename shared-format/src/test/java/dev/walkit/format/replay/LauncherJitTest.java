package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/_launch names methods in JIT directives (CompileCommand=dontinline):
 * a name that no longer exists would be ignored by the JVM without a word, and the speed it bought lost.
 */
class LauncherJitTest {
    @Test
    void theMethodsTheLauncherNamesExist() throws Exception {
        assertEachExists("jit", 5);
        String launcher = launcher();
        assertTrue(launcher.indexOf("-XX:CompileCommand=quiet") < launcher.indexOf("-XX:CompileCommand=dontinline"), "quiet comes first");
    }

    private static String launcher() throws Exception {
        return Files.readString(Path.of("..", "bin", "_launch"));
    }

    /** The launcher's {@code variable="Class::method ..."} names at least {@code atLeast} methods, each of which exists. */
    private static void assertEachExists(String variable, int atLeast) throws Exception {
        Matcher m = Pattern.compile("\\n\\s*" + variable + "=\"([^\"]+)\"").matcher(launcher());
        assertTrue(m.find(), "bin/_launch has no " + variable + "=\"...\" list");
        String[] named = m.group(1).trim().split("\\s+");
        assertTrue(named.length >= atLeast, "the methods in " + variable + ": " + Arrays.toString(named));
        for (String n : named) {
            String[] cm = n.split("::");
            Class<?> c = Class.forName(cm[0]);
            assertTrue(Arrays.stream(c.getDeclaredMethods()).anyMatch(x -> x.getName().equals(cm[1])), c.getName() + " has no method " + cm[1]);
        }
    }
}
