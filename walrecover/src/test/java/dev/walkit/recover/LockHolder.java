package dev.walkit.recover;

import dev.walkit.format.output.OutputDir;

import java.nio.file.Path;

/** Holds a directory's output lock in a process of its own until its stdin closes (for WalRecoverTest). */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (OutputDir d = OutputDir.open(Path.of(args[0]))) {
            System.out.println("locked " + d.dir());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold until stdin closes
            }
        } catch (OutputDir.Busy b) {
            System.out.println("busy");
        }
    }
}
