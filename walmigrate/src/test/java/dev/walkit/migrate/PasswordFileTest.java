package dev.walkit.migrate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PasswordFileTest {
    @TempDir
    Path dir;

    @Test
    void theFirstLineIsThePassword() throws Exception {
        assertEquals("s3cret pass", EtcdClients.firstLine(Files.writeString(dir.resolve("a"), "s3cret pass\nsecond line\n")));
        assertEquals("s3cret", EtcdClients.firstLine(Files.writeString(dir.resolve("b"), "s3cret\r\n")));
        assertEquals(" spaces kept ", EtcdClients.firstLine(Files.writeString(dir.resolve("c"), " spaces kept ")));
        Path empty = Files.writeString(dir.resolve("d"), "\nnot this\n");
        assertEquals(empty + ": --password-file is empty (its first line is the password)",
                assertThrows(IOException.class, () -> EtcdClients.firstLine(empty)).getMessage());
        assertEquals(dir + ": --password-file: Is a directory", assertThrows(IOException.class, () -> EtcdClients.firstLine(dir)).getMessage());
        Path none = dir.resolve("none");
        assertEquals(none + ": --password-file: no such file", assertThrows(IOException.class, () -> EtcdClients.firstLine(none)).getMessage());
    }
}
