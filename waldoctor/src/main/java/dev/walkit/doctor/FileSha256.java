package dev.walkit.doctor;


import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;

/**
 * The SHA-256 of the store's file (the WAL, the etcd db, kine's state.db), read on a thread of its own beside the
 * load. (Hashed by the replay's own reading instead, it cost more: the reader's thread is the load's busiest.)
 */
final class FileSha256 {
    /** Bytes read at a time. */
    private static final int BUFFER = 1 << 20;
    private final CompletableFuture<String> result = new CompletableFuture<>();

    private FileSha256() {
    }

    /** Starts hashing the store {@code path} names; {@link #result} waits for it ("unreadable …" when it could not be read). */
    static FileSha256 start(Path path) {
        FileSha256 f = new FileSha256();
        Thread t = new Thread(() -> {
            try {
                f.result.complete(of(dev.walkit.format.pass.Pass.input(path).file()));
            } catch (IOException | RuntimeException e) {
                f.result.complete("unreadable (" + e.getMessage() + ")");
            }
        }, "walkit-sha256");
        t.setDaemon(true);
        t.start();
        return f;
    }

    String result() {
        return result.join();
    }

    static String of(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        // Read through one buffer, not mapped: 0.74 s a GiB against 1.13 s mapped (a page fault a page of the mapping
        // cost more than the copy; 4 pairs, one JVM; SHA-256 itself is 0.69 s a GiB here, with the SHA extensions).
        ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER);
        try (FileChannel ch = FileChannel.open(file)) {
            // The bytes the file held when the hash began: what a live log gains meanwhile is not taken in.
            long size = ch.size();
            for (long at = 0; at < size; ) {
                int n = ch.read(buf.clear().limit((int) Math.min(BUFFER, size - at)), at);
                if (n <= 0) break;
                md.update(buf.flip());
                at += n;
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
