package dev.walkit.cli;

import picocli.CommandLine;

/** --version for every tool: the project version from the jar manifest. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return new String[] {"${COMMAND-NAME} " + (v == null ? "dev" : v) + " (walkit, WAL format v2; reads v1)"};
    }
}
