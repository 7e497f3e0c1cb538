package dev.walkit.verify;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A data directory this user cannot enter is "permission denied", not "a directory without a 'wal' file":
 * the real CLI, as an unprivileged user (root enters any directory; as root the test runs it through
 * setpriv as nobody).
 */
class UnreadablePathTest {
    private Path top;

    @AfterEach
    void open() throws Exception {
        if (top == null) return;
        try (var s = Files.walk(top)) {
            for (Path p : s.toList()) Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        try (var s = Files.walk(top)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    private record Run(int exit, String err) {
    }

    private Run asUnprivileged(String... args) throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> c = new ArrayList<>();
        String cp = System.getProperty("java.class.path");
        if (root) {
            assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "as root, the test needs setpriv (util-linux) to run as nobody");
            c.addAll(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
            // The class path as nobody can read it: the jars copied out of root's Maven repository (once).
            Path jars = top.resolve("cp");
            boolean copied = Files.isDirectory(jars);
            Files.createDirectories(jars);
            List<String> entries = new ArrayList<>();
            int n = 0;
            for (String e : cp.split(java.io.File.pathSeparator)) {
                Path p = Path.of(e);
                if (Files.isRegularFile(p)) {
                    Path q = jars.resolve((n++) + "-" + p.getFileName());
                    if (!copied) Files.copy(p, q);
                    Files.setPosixFilePermissions(q, PosixFilePermissions.fromString("rw-r--r--"));
                    p = q;
                }
                entries.add(p.toString());
            }
            Files.setPosixFilePermissions(jars, PosixFilePermissions.fromString("rwxr-xr-x"));
            cp = String.join(java.io.File.pathSeparator, entries);
        }
        c.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp, WalVerify.class.getName()));
        c.addAll(List.of(args));
        Process p = new ProcessBuilder(c).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(p.waitFor(dev.walkit.testdata.Await.DEADLINE.toSeconds(), TimeUnit.SECONDS));
        return new Run(p.exitValue(), err);
    }

    @Test
    void aDirectoryThatCannotBeEnteredIsPermissionDenied() throws Exception {
        // Under /tmp, open to all on the way (a JUnit temp dir is the owner's only).
        top = Files.createTempDirectory(Path.of("/tmp"), "walkit-perm");
        Files.setPosixFilePermissions(top, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = Files.createDirectories(top.resolve("data"));
        Files.write(data.resolve("wal"), new byte[] {1});
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("---------"));
        Run dir = asUnprivileged(data.toString());
        assertEquals(4, dir.exit(), dir.err());
        assertEquals("walverify: " + data + ": permission denied: this user cannot enter the directory (its 'wal' cannot be read)\n", dir.err());
        Run file = asUnprivileged(data.resolve("wal").toString());
        assertEquals(4, file.exit(), file.err());
        assertEquals("walverify: " + data.resolve("wal") + ": permission denied: this user cannot reach it (a directory on the way is closed)\n", file.err());
    }
}
