package dev.walkit.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * How every tool runs: {@code main} answers {@code --version}/{@code --help} through {@link FastStart}, else
 * {@code System.exit(Cli.run(new Tool(), args))}; tests call
 * {@link #run(Object, PrintWriter, PrintWriter, String...)}. Usage errors give exit 2 with a one-line
 * message on stderr; unexpected exceptions exit 70 with one line (the stack trace only with
 * {@code WALKIT_DEBUG=1}).
 */
public final class Cli {
    private Cli() {
    }

    public static int run(Object command, String... args) {
        return run(command, stdout(), stderr(), args);
    }

    /** Reports an unexpected exception (a bug) in one line, with the stack under {@code WALKIT_DEBUG=1}; returns exit 70. */
    public static int internalError(String name, Throwable e, PrintWriter err) {
        err.println(name + ": internal error: " + e);
        if ("1".equals(System.getenv("WALKIT_DEBUG"))) e.printStackTrace(err);
        err.flush();
        return ExitCode.SOFTWARE.code();
    }

    /**
     * Ends the process with {@code code}, unless standard output could not be written (a full disk, a closed
     * pipe): then it says so on stderr and exits 4, so that a runbook writing the JSON to a file does not
     * take an exit 0 with no report for success. A worse code stands.
     */
    public static void exit(String tool, int code) {
        System.out.flush();
        if (System.out.checkError() && code < ExitCode.UNREADABLE.code()) {
            IOException failure = installed == null ? null : installed.failure;
            if (failure != null && brokenPipe(failure)) {
                // The reader stopped reading (| head, | less quit): what was read stands, and so does its code.
                System.exit(code);
            }
            System.err.println(tool + ": standard output" + stdoutTarget() + " could not be written"
                    + (failure != null && failure.getMessage() != null ? ": " + failure.getMessage() : " (a full disk, a closed pipe)")
                    + ": the output is incomplete");
            code = ExitCode.UNREADABLE.code();
        }
        System.exit(code);
    }

    /** Whether {@code e} is a write into a pipe whose reader has gone (EPIPE). */
    static boolean brokenPipe(IOException e) {
        return e.getMessage() != null && e.getMessage().contains("Broken pipe");
    }

    /** " (PATH)" when standard output is a file, for the message that says it could not be written; else "". */
    private static String stdoutTarget() {
        try {
            java.nio.file.Path p = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/1"));
            return p.isAbsolute() ? " (" + p + ")" : "";
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    /** Standard output as the tools write it: the first write that failed (a closed pipe, a full disk) is kept for the exit. */
    private static final class Stdout extends java.io.FilterOutputStream {
        volatile IOException failure;

        Stdout() {
            super(new java.io.FileOutputStream(java.io.FileDescriptor.out));
        }

        @Override
        public void write(int b) throws IOException {
            try {
                out.write(b);
            } catch (IOException e) {
                if (failure == null) failure = e;
                throw e;
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (IOException e) {
                if (failure == null) failure = e;
                throw e;
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                out.flush();
            } catch (IOException e) {
                if (failure == null) failure = e;
                throw e;
            }
        }
    }

    private static Stdout installed;

    /**
     * Whether standard error is a terminal, for progress lines ({@code \r} rewrites): {@link System#console()}
     * says so of stdin and stdout only, so {@code 2>log} on a terminal wrote them into the log. On Linux,
     * fd 2's link names a tty; elsewhere the console stands in.
     */
    public static boolean stderrIsTerminal() {
        if (System.console() == null) return false;
        try {
            String target = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return true;
        }
    }

    /** The process's standard output for a tool's main (never a test's: they pass writers of their own). */
    public static synchronized PrintWriter stdout() {
        if (installed == null) {
            installed = new Stdout();
            System.setOut(new java.io.PrintStream(new java.io.BufferedOutputStream(installed, 1 << 16), false));
        }
        return new PrintWriter(System.out, true);
    }

    public static PrintWriter stderr() {
        return new PrintWriter(System.err, true);
    }

    public static int run(Object command, PrintWriter out, PrintWriter err, String... args) {
        return commandLine(command, out, err).execute(args);
    }

    public static CommandLine commandLine(Object command, PrintWriter out, PrintWriter err) {
        return configure(new CommandLine(command), out, err);
    }

    /**
     * A command whose help is made from the engine's own tables (walrecover's policies from {@code RecoveryPolicy.ALL}),
     * not restated in an annotation: told its spec once, before any help is printed or prepared at build time.
     */
    public interface Described {
        void describe(CommandLine.Model.CommandSpec spec);
    }

    /** Sets outputs, handlers and the exit-code list on {@code cl} and every subcommand it has now. */
    public static CommandLine configure(CommandLine cl, PrintWriter out, PrintWriter err) {
        if (cl.getCommand() instanceof Described d) d.describe(cl.getCommandSpec());
        cl.setOut(out);
        cl.setErr(err);
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(Ansi.enabled() ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + usageLine(ex, c));
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            c.getErr().flush();
            return ExitCode.USAGE.code();
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> internalError(c.getCommandName(), ex, c.getErr()));
        setExitCodeHelp(cl);
        // Help rendered a paragraph a line, then wrapped at spaces to the terminal's width (HelpWrap): picocli's own
        // wrapping breaks inside words (~/. | cache) and knows no terminal.
        // (The sections are rendered whole and wrapped as one text: a heading and its section share a line.)
        cl.setUsageHelpWidth(10_000);
        wrapHelp(cl);
        return cl;
    }

    /** {@code cl}'s help and its subcommands', rendered whole (every section, in order) and wrapped by {@link HelpWrap}. */
    private static void wrapHelp(CommandLine cl) {
        java.util.List<String> keys = cl.getHelpSectionKeys();
        java.util.Map<String, CommandLine.IHelpSectionRenderer> sections = cl.getHelpSectionMap();
        if (!keys.equals(java.util.List.of(WRAPPED))) {
            java.util.List<String> order = java.util.List.copyOf(keys);
            java.util.Map<String, CommandLine.IHelpSectionRenderer> original = new java.util.LinkedHashMap<>(sections);
            java.util.Map<String, CommandLine.IHelpSectionRenderer> one = new java.util.LinkedHashMap<>();
            one.put(WRAPPED, help -> {
                StringBuilder b = new StringBuilder();
                for (String k : order) {
                    CommandLine.IHelpSectionRenderer r = original.get(k);
                    if (r != null) b.append(r.render(help));
                }
                return HelpWrap.wrap(b.toString(), HelpWrap.width());
            });
            cl.getCommandSpec().usageMessage().sectionMap(one).sectionKeys(java.util.List.of(WRAPPED));
        }
        for (CommandLine sub : cl.getSubcommands().values()) wrapHelp(sub);
    }

    /** The one help section of every command: all of picocli's, wrapped. */
    private static final String WRAPPED = "walkit-wrapped";

    /**
     * A command line's mistake in the tool's words, not the parser's: an unknown option or command with the nearest
     * name (as git's "did you mean", for every option), an argument too many, a value that is not a number.
     */
    static String usageLine(CommandLine.ParameterException ex, CommandLine c) {
        if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String typed = u.getUnmatched().get(0);
            boolean option = typed.startsWith("-") && typed.length() > 1;
            String bare = option && typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
            java.util.Collection<String> names = option ? c.getCommandSpec().optionsMap().keySet() : c.getSubcommands().keySet();
            // The nearest by edits among the names (`shel` → shell, `gte` → get, `--polcy` → --policy).
            String best = Nearest.of(bare, names);
            boolean takesArguments = !c.getCommandSpec().positionalParameters().isEmpty();
            if (option || best != null || (!c.getSubcommands().isEmpty() && !takesArguments)) {
                return "unknown " + (option ? "option" : "command") + " '" + bare + "'" + (best != null ? ": did you mean '" + best + "'?" : "");
            }
            int more = u.getUnmatched().size() - 1;
            return "unexpected argument '" + typed + "'" + (more > 0 ? " (and " + more + " more)" : "");
        }
        String m = ex.getMessage() == null ? ex.toString() : ex.getMessage();
        m = m.replaceAll("^Invalid value for option '([^']*)': ", "$1: ")
                .replaceAll("^Invalid value for positional parameter at index \\d+ \\(([^)]*)\\): ", "$1: ")
                .replaceAll(" is not an? (long|int|integer|double|float)\\b", " is not a number")
                .replaceAll("^Missing required parameter for option '([^']*)' \\((.*)\\)$", "$1 needs a value ($2)")
                .replaceAll("^Missing required options? (and parameters? )?", "missing ")
                .replaceAll("^Missing required parameters?: ", "missing ");
        return m;
    }

    private static void setExitCodeHelp(CommandLine cl) {
        cl.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCode.helpLines());
        for (CommandLine sub : cl.getSubcommands().values()) setExitCodeHelp(sub);
    }
}
