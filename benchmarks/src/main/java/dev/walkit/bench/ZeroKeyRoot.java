package dev.walkit.bench;

import dev.walkit.format.etcd.EtcdDb;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A copy of an etcd db with its key bucket's root page zeroed (the page every read of the tree starts from): the input
 * scripts/bench-etcd-recover times the salvage past the tree on, every leaf read from the pages.
 *   ZeroKeyRoot DB OUT
 */
public final class ZeroKeyRoot {
    private ZeroKeyRoot() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ZeroKeyRoot DB OUT");
            System.exit(2);
        }
        long root;
        int pageSize;
        try (EtcdDb db = EtcdDb.openDatabase(Path.of(args[0]))) {
            root = db.bolt().bucket("key").root();
            pageSize = db.bolt().pageSize();
        }
        Path out = Path.of(args[1]);
        Files.copy(Path.of(args[0]), out, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(pageSize), root * pageSize);
        }
        System.out.println("page " + root + " zeroed");
    }
}
