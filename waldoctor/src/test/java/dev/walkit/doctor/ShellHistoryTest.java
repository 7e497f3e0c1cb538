package dev.walkit.doctor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShellHistoryTest {
    @TempDir
    Path dir;

    @Test
    void xdgStateHomeFirstThenHome() {
        assertEquals(Path.of("/s/walkit/waldoctor_history"), ShellHistory.path(Map.of("XDG_STATE_HOME", "/s", "HOME", "/h")));
        assertEquals(Path.of("/h/.local/state/walkit/waldoctor_history"), ShellHistory.path(Map.of("HOME", "/h")));
        assertEquals(Path.of("/h/.local/state/walkit/waldoctor_history"), ShellHistory.path(Map.of("XDG_STATE_HOME", "relative", "HOME", "/h")),
                "a relative XDG_STATE_HOME is ignored, as the spec says");
    }

    @Test
    void aWritableHomeGetsTheFileMadeReady() {
        ShellHistory.Place p = ShellHistory.open(Map.of("HOME", dir.toString()));
        assertNull(p.problem());
        assertTrue(Files.isRegularFile(dir.resolve(".local/state/walkit/waldoctor_history")));
    }

    @Test
    void theHistoryIsTheOwnersAlone() throws Exception {
        Path h = dir.resolve(".local/state/walkit/waldoctor_history");
        Files.createDirectories(h.getParent());
        Files.writeString(h, "get /registry/secrets/default/s1\n");
        Files.setPosixFilePermissions(h, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        ShellHistory.open(Map.of("HOME", dir.toString()));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(h)));
    }

    @Test
    void aHomeThatCannotBeWrittenIsOneLineAndNoFile() throws Exception {
        // A home that is a file: nothing can be made under it, for root too.
        Path home = Files.writeString(dir.resolve("home"), "not a directory");
        ShellHistory.Place p = ShellHistory.open(Map.of("HOME", home.toString()));
        assertNull(p.file());
        assertEquals("the shell's history is not kept: " + home + "/.local/state/walkit/waldoctor_history: Not a directory", p.problem());
    }

    @Test
    void theSuitesShellsKeepTheirHistoryUnderTheBuildDirectoryNotTheUsersHome() {
        Path history = ShellHistory.path(System.getenv());
        Path root = Path.of(System.getProperty("walkit.root", "")).toAbsolutePath().normalize();
        assertTrue(history.toAbsolutePath().normalize().startsWith(root), "a test's shell writes its history to " + history + ", outside " + root);
    }
}
