package dev.walkit.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ToolPathTest {
    @TempDir
    Path dir;

    @Test
    void byNameWhenPathFindsThisOneElseByItsPath() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("walkit/bin"));
        Path tool = Files.writeString(bin.resolve("walrecover"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path other = Files.createDirectories(dir.resolve("other"));
        Path impostor = Files.writeString(other.resolve("walrecover"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(impostor, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertEquals("walrecover", ToolPath.of("walrecover", Map.of("PATH", "/usr/bin")), "not launched by bin/: the name");
        assertEquals(bin.resolve("walrecover").toString(), ToolPath.of("walrecover", Map.of("WALKIT_BIN", bin.toString(), "PATH", "/usr/bin")));
        assertEquals("walrecover", ToolPath.of("walrecover", Map.of("WALKIT_BIN", bin.toString(), "PATH", "/usr/bin:" + bin)));
        assertEquals(bin.resolve("walrecover").toString(), ToolPath.of("walrecover", Map.of("WALKIT_BIN", bin.toString(), "PATH", other + ":" + bin)),
                "another walrecover first on PATH: this one by its path");
    }
}
