package dev.walkit.format.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Putting several new files in place of old ones (walrecover's {@code wal} and {@code leases.json}) so that a
 * crash at any moment never leaves the last name, the commit name, beside a file of the other generation.
 *
 * <p>rename(2) changes one name at a time, so two names cannot change in one step; renameat2's
 * RENAME_EXCHANGE swaps only two names too, and not on every file system (FUSE ones such as LazyFS refuse
 * it). So the switch is ordered around its commit name ({@code wal}), and recorded first in an intent file:
 * <ol>
 *   <li>{@code .walkit.switch} is written and made durable: the names, their temp files, which old files exist,
 *       and the suffix the old ones are kept under ({@code .broken.TIMESTAMP});</li>
 *   <li>the old files move aside, the commit name first: from here on there is no {@code wal} until the end;</li>
 *   <li>the new files move in, the commit name last;</li>
 *   <li>the intent file is removed.</li>
 * </ol>
 * Each rename is followed by an fsync of the directory, so a crash leaves a prefix of these steps: whenever
 * {@code wal} exists, the other names beside it are of its own generation, and no file is ever lost (the old
 * ones are under their {@code .broken} names, the new ones under their temp names). The next writer into the
 * directory finds the intent file under the lock and {@linkplain #recover undoes} the unfinished switch (the old
 * files back under their names, as if the crashed run had not been, and the same command run again succeeds), or,
 * when every rename was already made, finishes it: the new files were fsynced and verified before the first
 * rename, so a complete pair is kept, never deleted by the run after.
 */
final class PairSwitch {
    static final String INTENT = dev.walkit.format.Wal.SWITCH_INTENT;

    /** True when {@code dir} holds the intent file of a switch that did not finish: the next run into DIR undoes it. */
    static boolean unfinished(java.nio.file.Path dir) {
        return java.nio.file.Files.exists(dir.resolve(INTENT));
    }
    private static final String MAGIC = "walkit switch 1";
    /** How {@link #recover} says it finished a switch (rather than undid it). */
    static final String FINISHED = "an earlier run had put its new ";

    /** One name of the switch: its final name, the temp file that becomes it, whether an old file of that name was there. */
    record Entry(String name, String temp, boolean old) {
    }

    private PairSwitch() {
    }

    /**
     * Puts {@code entries}' temp files in place under their names in {@code dir}, in the order given (the commit
     * name last), keeping old files as {@code NAME + suffix}. On a failure part-way, undoes what it did and throws.
     * {@code afterStep} is told each durable step's number (1 = the intent file): a test stops the run there.
     */
    static void run(Path dir, List<Entry> entries, String suffix, java.util.function.IntConsumer afterStep) throws IOException {
        if (entries.size() == 1 && !entries.get(0).old()) {
            // One new name: its rename is the whole switch, atomic by itself; nothing to record or undo.
            Entry e = entries.get(0);
            Durable.rename(dir.resolve(e.temp()), dir.resolve(e.name()));
            afterStep.accept(1);
            return;
        }
        int step = 0;
        writeIntent(dir, entries, suffix);
        afterStep.accept(++step);
        try {
            for (int i = entries.size() - 1; i >= 0; i--) {
                Entry e = entries.get(i);
                if (!e.old()) continue;
                Durable.rename(dir.resolve(e.name()), dir.resolve(e.name() + suffix));
                afterStep.accept(++step);
            }
            for (Entry e : entries) {
                Durable.rename(dir.resolve(e.temp()), dir.resolve(e.name()));
                afterStep.accept(++step);
            }
        } catch (IOException e) {
            try {
                undo(dir, entries, suffix);
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        Durable.delete(dir.resolve(INTENT));
    }

    /**
     * Under the lock, before anything else is written: an unfinished switch of a run that crashed is undone.
     * Returns what was done in words, or null when there was none.
     */
    static String recover(Path dir) throws IOException {
        Path intent = dir.resolve(INTENT);
        if (!Files.exists(intent)) return null;
        List<String> lines = Files.readAllLines(intent, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC) || lines.size() < 2 || !lines.get(1).startsWith("suffix ")) {
            throw new IOException(intent + ": not an intent file this version wrote (first line \"" + (lines.isEmpty() ? "" : lines.get(0))
                    + "\"); left as it is: look at it, and remove it by hand to go on");
        }
        String suffix = lines.get(1).substring("suffix ".length());
        List<Entry> entries = new ArrayList<>();
        for (String l : lines.subList(2, lines.size())) {
            String[] f = l.split(" ");
            if (f.length != 4 || !f[0].equals("file") || f[1].contains("/") || f[2].contains("/")) {
                throw new IOException(intent + ": unreadable line \"" + l + "\"; left as it is: remove it by hand to go on");
            }
            entries.add(new Entry(f[1], f[2], f[3].equals("old")));
        }
        String names = String.join(" and ", entries.stream().map(Entry::name).toList());
        boolean anyOld = entries.stream().anyMatch(Entry::old);
        if (complete(dir, entries, suffix)) {
            // Every rename was made (each after its file was fsynced and verified): the switch is finished, not undone,
            // so a complete pair is never deleted by the run after it.
            Durable.delete(intent);
            return FINISHED + names + " in place and stopped before it said so: its switch is finished"
                    + (anyOld ? " (the old files are kept as NAME" + suffix + ")" : "");
        }
        undo(dir, entries, suffix);
        Durable.delete(intent);
        return "an earlier run stopped while putting " + names + " in place: undone, "
                + (anyOld ? "the old files are back under their names" : "its new files removed");
    }

    /** Whether every rename of the switch was made: each temp gone into its name, each old file under its kept name. */
    private static boolean complete(Path dir, List<Entry> entries, String suffix) {
        for (Entry e : entries) {
            if (Files.exists(dir.resolve(e.temp())) || !Files.exists(dir.resolve(e.name()))) return false;
            if (e.old() && !Files.exists(dir.resolve(e.name() + suffix))) return false;
        }
        return true;
    }

    /** Back to before the switch: new files out (the commit name first), then old files in (the commit name last), temps removed. */
    private static void undo(Path dir, List<Entry> entries, String suffix) throws IOException {
        for (int i = entries.size() - 1; i >= 0; i--) {
            Entry e = entries.get(i);
            // A name holds the new file when the old one has moved aside (or there was none) and the name exists.
            boolean oldMovedAside = !e.old() || Files.exists(dir.resolve(e.name() + suffix));
            if (oldMovedAside) Durable.delete(dir.resolve(e.name()));
        }
        for (Entry e : entries) {
            Path kept = dir.resolve(e.name() + suffix);
            if (e.old() && Files.exists(kept)) Durable.rename(kept, dir.resolve(e.name()));
        }
        for (Entry e : entries) Durable.delete(dir.resolve(e.temp()));
    }

    private static void writeIntent(Path dir, List<Entry> entries, String suffix) throws IOException {
        StringBuilder s = new StringBuilder(MAGIC).append('\n').append("suffix ").append(suffix).append('\n');
        for (Entry e : entries) {
            s.append("file ").append(e.name()).append(' ').append(e.temp()).append(' ').append(e.old() ? "old" : "none").append('\n');
        }
        Path tmp = dir.resolve(INTENT + ".tmp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            Files.writeString(tmp, s, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Durable.fsync(tmp);
            Durable.rename(tmp, dir.resolve(INTENT));
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
