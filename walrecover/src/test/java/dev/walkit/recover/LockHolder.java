package dev.walkit.recover;

import java.nio.file.Path;

/** Holds a directory's walrecover lock in a process of its own until its stdin closes (for WalRecoverTest). */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (OutputLock l = OutputLock.tryAcquire(Path.of(args[0]), new String[1])) {
            System.out.println(l != null ? "locked" : "busy");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until stdin closes
            }
        }
    }
}
