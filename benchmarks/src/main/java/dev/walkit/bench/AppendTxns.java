package dev.walkit.bench;

import dev.walkit.format.KeyValue;
import dev.walkit.format.ReadResult;
import dev.walkit.format.ReaderOptions;
import dev.walkit.format.RecordEncoder;
import dev.walkit.format.RecordLayout;
import dev.walkit.format.RecordView;
import dev.walkit.format.WalFile;
import dev.walkit.format.WalReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends N transactions to a v2 WAL as its store would (each a PUT of a new key, revision after the last in the
 * file, read from its last MiB), fsynced: a live log that grew, for scripts/bench-index. Prints the new size.
 * Usage: AppendTxns WAL N
 */
public final class AppendTxns {
    private AppendTxns() {
    }

    public static void main(String[] args) throws IOException {
        Path wal = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        long last = -1;
        try (WalFile f = WalFile.open(wal, RecordLayout.DEFAULT_MAX_REC_LEN);
             WalReader r = new WalReader(f, ReaderOptions.defaults())) {
            r.seek(Math.max(0, f.size() - (1 << 20)));
            for (ReadResult x; (x = r.next()) != null; ) {
                if (x instanceof RecordView v) last = Math.max(last, v.revision());
            }
        }
        if (last < 0) throw new IOException(wal + ": no record in its last MiB");
        RecordEncoder enc = new RecordEncoder();
        byte[] value = new byte[400];
        try (FileChannel ch = FileChannel.open(wal, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (int i = 1; i <= n; i++) {
                long rev = last + i;
                byte[] key = ("/registry/configmaps/appended/cm-" + rev).getBytes(StandardCharsets.UTF_8);
                ByteBuffer b = ByteBuffer.wrap(enc.encode(KeyValue.put(key, rev, rev, 1, value, 0)));
                while (b.hasRemaining()) ch.write(b);
            }
            ch.force(true);
            System.out.println(ch.size());
        }
    }
}
