package dev.walkit.cli;

import picocli.CommandLine;

/** --version for every tool: the project version from the jar manifest. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {line("${COMMAND-NAME}")};
    }

    /** {@code walverify 0.1.0 (walkit, WAL format v2; reads v1)}. */
    public static String line(String command) {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return command + " " + (v == null ? "dev" : v) + " (walkit, WAL format v2; reads v1)";
    }
}
