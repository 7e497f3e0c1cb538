package dev.walkit.format;

import java.io.IOException;

/** {@link EntrySource} over a v2 {@link WalReader} (at DECODE level). */
final class V2Entries implements EntrySource {
    private final WalReader reader;

    V2Entries(WalReader reader) {
        this.reader = reader;
    }

    @Override
    public LogItem next() {
        ReadResult r = reader.next();
        if (r == null) return null;
        if (r instanceof DamageSpan d) return d;
        return WalEntry.of((RecordView) r);
    }

    @Override
    public WalFormat format() {
        return WalFormat.V2;
    }

    @Override
    public WalFile file() {
        return reader.file();
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
