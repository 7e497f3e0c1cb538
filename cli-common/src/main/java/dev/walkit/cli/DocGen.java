package dev.walkit.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Build-time documents from each tool's picocli model, so that they cannot drift from the options:
 * <ul>
 *   <li>{@code help OUT CLASS...}: the rendered {@code --help} of every command, plain and coloured,
 *   into {@code OUT/META-INF/walkit/help/} (what {@link FastStart} prints);</li>
 *   <li>{@code man OUT CLASS...}: a man page per tool, {@code OUT/man1/TOOL.1} (roff);</li>
 *   <li>{@code completion OUT CLASS...}: {@code OUT/TOOL.bash}, picocli's completion script (bash, and
 *   zsh through {@code bashcompinit}).</li>
 * </ul>
 * Each CLASS is a tool's main class with {@code public static CommandLine commandLine(PrintWriter out, PrintWriter err)}.
 */
public final class DocGen {
    private DocGen() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) throw new IllegalArgumentException("usage: DocGen help|man|completion OUT CLASS...");
        Path out = Path.of(args[1]);
        for (int i = 2; i < args.length; i++) {
            CommandLine cl = commandLine(args[i]);
            switch (args[0]) {
                case "help" -> writeHelp(cl, out.resolve(FastStart.HELP_DIR.substring(1)));
                case "man" -> write(out.resolve("man1").resolve(cl.getCommandName() + ".1"), manPage(cl));
                case "completion" -> write(out.resolve(cl.getCommandName() + ".bash"), AutoComplete.bash(cl.getCommandName(), cl));
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
        }
    }

    /** The tool's configured command line, from its main class. */
    public static CommandLine commandLine(String mainClass) throws ReflectiveOperationException {
        Method m = Class.forName(mainClass).getMethod("commandLine", PrintWriter.class, PrintWriter.class);
        PrintWriter sink = new PrintWriter(new StringWriter());
        return (CommandLine) m.invoke(null, sink, sink);
    }

    static void writeHelp(CommandLine cl, Path dir) throws IOException {
        String name = cl.getCommandSpec().qualifiedName("-");
        if (cl.getCommandSpec().optionsMap().containsKey("--help")) {
            // Unwrapped: FastStart wraps it to the terminal's width at run time (HelpWrap).
            String was = System.setProperty(HelpWrap.UNWRAPPED, "true");
            try {
                write(dir.resolve(name + ".txt"), cl.getUsageMessage(CommandLine.Help.Ansi.OFF));
                write(dir.resolve(name + ".ansi.txt"), cl.getUsageMessage(CommandLine.Help.Ansi.ON));
            } finally {
                if (was == null) System.clearProperty(HelpWrap.UNWRAPPED);
                else System.setProperty(HelpWrap.UNWRAPPED, was);
            }
        }
        for (CommandLine sub : cl.getSubcommands().values()) writeHelp(sub, dir);
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    // ---- man pages ----

    /** A man(7) page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, ARGUMENTS, COMMANDS (each with its own), EXIT STATUS. */
    public static String manPage(CommandLine cl) {
        CommandSpec spec = cl.getCommandSpec();
        String name = spec.name();
        String version = FastStart.versionLine(name).substring(name.length() + 1);
        StringBuilder m = new StringBuilder();
        m.append(".\\\" Generated from the picocli model by dev.walkit.cli.DocGen; do not edit.\n");
        m.append(".TH ").append(name.toUpperCase(java.util.Locale.ROOT)).append(" 1 \"\" \"").append(esc(version)).append("\" \"walkit manual\"\n");
        // No hyphenation, ragged right: an option name is never split across lines (--ac‐ cept-crc), nor a sentence spaced out.
        m.append(".nh\n.ad l\n");
        m.append(".SH NAME\n").append(esc(name)).append(" \\- ").append(esc(summary(spec))).append('\n');
        m.append(".SH SYNOPSIS\n");
        synopsis(m, cl);
        m.append(".SH DESCRIPTION\n");
        m.append(esc(String.join("\n", spec.usageMessage().description()))).append('\n');
        section(m, cl, true);
        List<CommandLine> subs = commands(cl);
        if (!subs.isEmpty()) {
            m.append(".SH COMMANDS\n");
            for (CommandLine sub : subs) {
                CommandSpec s = sub.getCommandSpec();
                m.append(".SS ").append(esc(s.qualifiedName(" "))).append('\n');
                m.append(esc(String.join("\n", s.usageMessage().description()))).append("\n.PP\n");
                synopsis(m, sub);
                section(m, sub, false);
            }
        }
        m.append(".SH EXIT STATUS\n");
        for (Map.Entry<String, String> e : ExitCode.helpLines().entrySet()) {
            m.append(".TP\n.B ").append(e.getKey().trim()).append('\n').append(esc(e.getValue())).append('\n');
        }
        m.append(".SH ENVIRONMENT\n.TP\n.B JAVA_HOME\nThe Java (17 or newer) to run; otherwise \\fBjava\\fR on the PATH.\n")
                .append(".TP\n.B JAVA_OPTS\nExtra JVM options, e.g. \\fB\\-Xmx8g\\fR for a log with very many live keys.\n")
                .append(".TP\n.B NO_COLOR\nSet: no colour in help.\n")
                .append(".TP\n.B WALKIT_DEBUG\n1: print the stack trace of an internal error.\n");
        if (name.equals("waldoctor")) {
            m.append(".TP\n.B XDG_STATE_HOME\nWhere the shell keeps its history (an absolute path; else \\fB$HOME/.local/state\\fR).\n");
            m.append(".SH FILES\n.TP\n.I $XDG_STATE_HOME/walkit/waldoctor_history\n")
                    .append("The shell's history (else \\fI$HOME/.local/state/walkit/waldoctor_history\\fR), made mode 0600 as psql and bash make theirs; ")
                    .append("where it cannot be written the shell says so once and keeps the history in memory.\n");
        }
        m.append(".SH SEE ALSO\n");
        List<String> others = new ArrayList<>(List.of("walverify", "waldoctor", "walrecover", "walmigrate"));
        others.remove(name);
        for (int i = 0; i < others.size(); i++) m.append(i == 0 ? "" : ",\n").append(".BR ").append(others.get(i)).append(" (1)");
        m.append("\n.PP\nThe WAL format and the runbooks: \\fIdocs/format.md\\fR and \\fIdocs/runbooks/\\fR of the distribution.\n");
        return m.toString();
    }

    private static List<CommandLine> commands(CommandLine cl) {
        List<CommandLine> out = new ArrayList<>();
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommandSpec().usageMessage().hidden()) continue;
            out.add(sub);
            out.addAll(commands(sub));
        }
        return out;
    }

    private static String summary(CommandSpec spec) {
        String s = String.join(" ", spec.usageMessage().description());
        int end = s.length();
        for (String stop : new String[] {". ", ": ", "; "}) {
            int i = s.indexOf(stop);
            if (i > 0 && i < end) end = i;
        }
        return s.substring(0, end).replaceFirst("\\.$", "");
    }

    private static void synopsis(StringBuilder m, CommandLine cl) {
        int width = cl.getCommandSpec().usageMessage().width();
        cl.getCommandSpec().usageMessage().width(10_000);  // one line: roff fills it to the reader's terminal
        String syn = cl.getHelp().synopsis(0).replaceFirst("^Usage: ", "").strip();
        cl.getCommandSpec().usageMessage().width(width);
        String name = cl.getCommandSpec().qualifiedName(" ");
        String rest = syn.startsWith(name) ? syn.substring(name.length()).strip() : syn;
        m.append(".B \"").append(esc(name)).append("\"\n").append(esc(rest)).append('\n');
    }

    private static void section(StringBuilder m, CommandLine cl, boolean top) {
        CommandSpec spec = cl.getCommandSpec();
        List<OptionSpec> options = new ArrayList<>();
        for (OptionSpec o : spec.options()) if (!o.hidden()) options.add(o);
        if (!options.isEmpty()) {
            m.append(top ? ".SH OPTIONS\n" : ".PP\n.B Options:\n");
            for (OptionSpec o : options) {
                m.append(".TP\n");
                StringBuilder names = new StringBuilder();
                for (String n : o.names()) names.append(names.length() == 0 ? "" : ", ").append("\\fB").append(esc(n)).append("\\fR");
                if (o.arity().max() > 0) names.append("=\\fI").append(esc(o.paramLabel())).append("\\fR");
                m.append(names).append('\n').append(esc(description(o))).append('\n');
            }
        }
        List<PositionalParamSpec> params = new ArrayList<>();
        for (PositionalParamSpec p : spec.positionalParameters()) if (!p.hidden()) params.add(p);
        if (!params.isEmpty()) {
            m.append(top ? ".SH ARGUMENTS\n" : ".PP\n.B Arguments:\n");
            for (PositionalParamSpec p : params) {
                m.append(".TP\n\\fI").append(esc(p.paramLabel())).append("\\fR\n").append(esc(description(p))).append('\n');
            }
        }
    }

    private static String description(ArgSpec a) {
        String d = String.join(" ", a.description());
        String def = a.defaultValueString();
        d = d.replace("${DEFAULT-VALUE}", def == null ? "none" : def);
        if (a.completionCandidates() != null) {
            List<String> c = new ArrayList<>();
            a.completionCandidates().forEach(c::add);
            d = d.replace("${COMPLETION-CANDIDATES}", String.join(", ", c));
        }
        return d;
    }

    /** Escapes text for roff: backslashes, hyphens (so they are not hyphenation points) and a leading dot or quote. */
    static String esc(String s) {
        String t = s.replace("\\", "\\e").replace("-", "\\-");
        if (t.startsWith(".") || t.startsWith("'")) t = "\\&" + t;
        return t.replace("\n.", "\n\\&.").replace("\n'", "\n\\&'");
    }
}
