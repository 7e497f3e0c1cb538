package dev.walkit.cli;

/**
 * Whether help and messages use colour: the one rule for the prebuilt help ({@link FastStart}) and
 * picocli's, so both print the same bytes. Colour when stdin and stdout are a terminal, unless
 * {@code NO_COLOR} is set (no-color.org) or {@code TERM} is {@code dumb}.
 */
public final class Ansi {
    private Ansi() {
    }

    public static boolean enabled() {
        if (System.getenv("NO_COLOR") != null) return false;
        if ("dumb".equals(System.getenv("TERM"))) return false;
        return System.console() != null;
    }
}
