package dev.walkit.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Builds small v2 logs in memory for tests, remembering where each record starts. */
public final class LogBuilder {
    private final RecordEncoder encoder = new RecordEncoder();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final List<Long> offsets = new ArrayList<>();
    private final List<Integer> lengths = new ArrayList<>();

    public LogBuilder add(KeyValue kv) {
        byte[] r = encoder.encode(kv);
        offsets.add((long) out.size());
        lengths.add(r.length);
        out.writeBytes(r);
        return this;
    }

    /** {@code n} single-put transactions of keys /k/0../k/n-1 at revisions 1..n. */
    public static LogBuilder puts(int n) {
        LogBuilder b = new LogBuilder();
        for (int i = 1; i <= n; i++) {
            b.add(KeyValue.put(("/registry/configmaps/default/cm-" + i).getBytes(StandardCharsets.UTF_8), i, i, 1,
                    ("{\"data\":{\"n\":\"" + i + "\"}}").getBytes(StandardCharsets.UTF_8), 0));
        }
        return b;
    }

    public long offset(int record) {
        return offsets.get(record);
    }

    public int length(int record) {
        return lengths.get(record);
    }

    public int count() {
        return offsets.size();
    }

    public byte[] bytes() {
        return out.toByteArray();
    }

    public static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    public static Path write(Path dir, String name, byte[] bytes) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, bytes);
        return p;
    }
}
