package dev.walkit.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;

/**
 * Answers {@code --version} and {@code --help} before anything heavy is loaded: the version from the
 * jar manifest, the help from text rendered by picocli at build time ({@link DocGen}) into
 * {@code META-INF/walkit/help/}. A JVM that starts, prints a resource and exits takes ≈ 0.1 s;
 * building picocli's command model first (its classes are Java 5 bytecode, which class-data
 * sharing cannot archive) takes ≈ 0.3 s more.
 *
 * <p>This class must not refer to picocli. Anything it does not recognise goes to picocli as before.
 */
public final class FastStart {
    /** Where {@link DocGen} puts the rendered help of each command, per tool jar. */
    static final String HELP_DIR = "/META-INF/walkit/help/";

    private FastStart() {
    }

    /**
     * The exit code when {@code args} were answered here ({@code --version}, or {@code [SUBCOMMAND...] --help}
     * with prebuilt text for that command), otherwise -1.
     */
    public static int answer(String tool, String[] args) {
        return answer(tool, args, System.out, Ansi.enabled());
    }

    public static int answer(String tool, String[] args, PrintStream out, boolean ansi) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            out.println(versionLine(tool));
            out.flush();
            return ExitCode.OK.code();
        }
        if (args.length == 0) return -1;
        String last = args[args.length - 1];
        if (!last.equals("--help") && !last.equals("-h")) return -1;
        StringBuilder name = new StringBuilder(tool);
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].isEmpty() || args[i].startsWith("-") || args[i].indexOf('/') >= 0) return -1;
            name.append('-').append(args[i]);
        }
        byte[] text = help(name.toString(), ansi);
        if (text == null) return -1;
        text = HelpWrap.wrap(new String(text, java.nio.charset.StandardCharsets.UTF_8), HelpWrap.width()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.write(text, 0, text.length);
        out.flush();
        return ExitCode.OK.code();
    }

    /** The prebuilt help of {@code command} ({@code tool} or {@code tool-sub}), unwrapped (a paragraph a line), or null. */
    public static byte[] help(String command, boolean ansi) {
        String resource = new StringBuilder(HELP_DIR).append(command).append(ansi ? ".ansi.txt" : ".txt").toString();
        try (InputStream in = FastStart.class.getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code walverify 0.1.0 (walkit, WAL format v2; reads v1)}. */
    public static String versionLine(String tool) {
        String v = FastStart.class.getPackage().getImplementationVersion();
        // A StringBuilder, not '+': javac's string concatenation bootstraps method handles (≈ 25 ms at start).
        return new StringBuilder(tool).append(' ').append(v == null ? "dev" : v).append(" (walkit, WAL format v2; reads v1)").toString();
    }
}
