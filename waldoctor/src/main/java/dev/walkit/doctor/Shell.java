package dev.walkit.doctor;

import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * waldoctor's shell over a loaded log. Interactive on a terminal (jline: completion of commands and
 * of keys one path segment at a time, persistent history, Ctrl-C clears the line, Ctrl-D exits);
 * from a pipe it reads commands line by line, prints only the answers, and exits at end of input.
 */
public final class Shell {
    /** Rows a listing shows on a terminal unless --limit says otherwise. */
    static final long ROWS = 100;

    private Shell() {
    }

    /**
     * Runs commands read line by line (a runbook piping commands in): answers on {@code out}, errors on
     * {@code err} as {@code line N: …}. Returns the number of commands that failed.
     */
    public static int piped(ShellContext ctx, BufferedReader in, PrintWriter out, PrintWriter err) throws IOException {
        int failed = 0;
        ShellOut answers = new ShellOut(out, err);
        for (String line; (line = in.readLine()) != null; ) {
            answers.line++;
            ShellCommand.Outcome o = Commands.execute(ctx, Args.words(line), answers);
            answers.flush();
            if (o == ShellCommand.Outcome.ERROR || o == ShellCommand.Outcome.USAGE) failed++;
            if (o == ShellCommand.Outcome.QUIT) break;
        }
        return failed;
    }

    /** The lines the interactive shell starts with: what was opened, and when it is not healthy, the account's damage in one line. */
    public static String banner(dev.walkit.format.account.Account a) {
        StringBuilder b = new StringBuilder(String.format("waldoctor shell: %s, revision %s, %,d live keys. 'help' lists commands; Ctrl-D leaves.%n",
                a.store().path(), dev.walkit.cli.Revision.text(a.lastRevision()), a.liveKeys()));
        if (!a.healthy()) {
            b.append(String.format("the %s is %s: %s ('damage' lists them; waldoctor diagnose for the report)%n", a.store().isWal() ? "log" : "store",
                    a.verdict() == dev.walkit.format.assess.Assessment.Verdict.TORN_TAIL ? "torn at its tail" : "damaged",
                    dev.walkit.cli.render.AccountText.damageSummary(a)));
        }
        return b.toString();
    }

    /** The interactive loop on {@code terminal}; {@code history} is the history file, or null. */
    public static void interactive(ShellContext ctx, Terminal terminal, Path history) {
        // A line is read as typed: no history expansion, which would eat a backslash (\q, a key's \xff) and a '!'.
        LineReaderBuilder b = LineReaderBuilder.builder().terminal(terminal).appName("waldoctor").completer(completer(ctx))
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true);
        if (history != null) b.variable(LineReader.HISTORY_FILE, history);
        LineReader reader = b.build();
        PrintWriter out = new ShellOut(terminal.writer());
        ctx.rows = ROWS;
        // Wrapped at spaces to the terminal's width (a long path or damage line would otherwise break mid-word).
        ctx.width = terminal.getWidth() > 0 ? terminal.getWidth() : dev.walkit.cli.HelpWrap.DEFAULT;
        out.print(dev.walkit.cli.HelpWrap.wrap(banner(ctx.index.account()), ctx.width));
        out.flush();
        ctx.index.startSaving(); // a first open's index, saved while the operator reads the banner and types
        // Ctrl-C while a command runs stops it (its loops look at the flag) and the session goes on, as in
        // sqlite3 and psql; at the prompt, the line reader has the signal itself and clears the line.
        Terminal.SignalHandler before = terminal.handle(Terminal.Signal.INT, sig -> ctx.interrupted = true);
        try {
            for (;;) {
                String line;
                try {
                    String prompt = ctx.viewRevision == Long.MAX_VALUE ? "waldoctor> " : "waldoctor@" + ctx.viewRevision + "> ";
                    line = reader.readLine(prompt);
                } catch (UserInterruptException e) {
                    continue; // Ctrl-C: the line is cleared
                } catch (EndOfFileException e) {
                    break;
                }
                ctx.interrupted = false;
                ShellCommand.Outcome o = Commands.execute(ctx, Args.words(line), out);
                if (ctx.interrupted) out.println("^C: interrupted");
                out.flush();
                if (o == ShellCommand.Outcome.QUIT) break;
            }
        } finally {
            terminal.handle(Terminal.Signal.INT, before);
        }
        out.flush();
        try {
            reader.getHistory().save();
        } catch (IOException | RuntimeException e) {
            // history is a convenience: never fail the session for it
        }
    }

    /** Completes command names, then each command's next word from the replayed state. */
    static Completer completer(ShellContext ctx) {
        return (LineReader reader, ParsedLine line, List<Candidate> candidates) -> {
            if (line.wordIndex() == 0) {
                for (String name : Commands.table().keySet()) candidates.add(new Candidate(name));
                return;
            }
            ShellCommand c = Commands.table().get(line.words().get(0));
            if (c == null) return;
            List<String> before = line.words().subList(1, line.wordIndex());
            for (String s : c.complete(ctx, before, line.word())) {
                boolean partial = s.endsWith("/");
                candidates.add(new Candidate(s, s, null, null, null, null, !partial));
            }
        };
    }
}
