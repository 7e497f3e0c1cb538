package dev.walkit.doctor;

import java.io.PrintWriter;
import java.util.List;

/**
 * One command of waldoctor's command table, used by the REPL and one-shot alike. Running returns a
 * {@link Outcome} (errors are printed and returned, not thrown); {@link #complete} offers the next
 * word from the replayed state.
 */
public interface ShellCommand {
    /** ERROR: the command failed (not found, out of range); USAGE: its command line was wrong. */
    enum Outcome { OK, ERROR, USAGE, QUIT }

    String name();

    /** e.g. {@code get KEY [--rev R]}. */
    String usage();

    String help();

    Outcome run(ShellContext ctx, Args args, PrintWriter out);

    /** Candidates for the word being typed, given the words before it (without the command name). */
    default List<String> complete(ShellContext ctx, List<String> before, String word) {
        return List.of();
    }
}
