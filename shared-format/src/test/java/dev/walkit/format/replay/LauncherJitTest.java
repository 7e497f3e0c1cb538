package dev.walkit.format.replay;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bin/_launch names methods in JIT directives (CompileCommand=dontinline, and a JDK method compiled sooner):
 * a name that no longer exists would be ignored by the JVM without a word, and the speed it bought lost.
 */
class LauncherJitTest {
    @Test
    void theMethodsTheLauncherNamesExist() throws Exception {
        String launcher = Files.readString(Path.of("..", "bin", "_launch"));
        Matcher m = Pattern.compile("\\n\\s*jit=\"([^\"]+)\"").matcher(launcher);
        assertTrue(m.find(), "bin/_launch has no jit=\"...\" list");
        String[] named = m.group(1).trim().split("\\s+");
        assertTrue(named.length >= 5, "the directives in bin/_launch: " + Arrays.toString(named));
        for (String n : named) {
            String[] cm = n.split("::");
            Class<?> c = Class.forName(cm[0]);
            assertTrue(Arrays.stream(c.getDeclaredMethods()).anyMatch(x -> x.getName().equals(cm[1])), c.getName() + " has no method " + cm[1]);
        }
        assertTrue(launcher.indexOf("-XX:CompileCommand=quiet") < launcher.indexOf("-XX:CompileCommand=dontinline"), "quiet comes first");
        assertTrue(launcher.indexOf("-XX:CompileCommand=quiet") < launcher.indexOf("-XX:CompileCommand=option"), "quiet comes first");
    }

    @Test
    void theJdkMethodsItCompilesSoonerExist() throws Exception {
        String launcher = Files.readString(Path.of("..", "bin", "_launch"));
        Matcher m = Pattern.compile("\\n\\s*sha_jit=\"([^\"]+)\"").matcher(launcher);
        assertTrue(m.find(), "bin/_launch has no sha_jit=\"...\"");
        String[] named = m.group(1).trim().split("\\s+");
        // The caller the intrinsic needs compiled, the method it inlines, and the per-block loop.
        assertTrue(named.length >= 3, "the methods in sha_jit: " + Arrays.toString(named));
        for (String n : named) {
            String[] cm = n.split("::");
            Class<?> c = Class.forName(cm[0]);
            assertTrue(Arrays.stream(c.getDeclaredMethods()).anyMatch(x -> x.getName().equals(cm[1])), c.getName() + " has no method " + cm[1]);
        }
    }
}
