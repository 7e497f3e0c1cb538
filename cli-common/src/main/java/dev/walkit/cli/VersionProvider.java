package dev.walkit.cli;

import picocli.CommandLine;

/** --version for every tool: the project version from the jar manifest. */
public final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {FastStart.versionLine("${COMMAND-NAME}")};
    }

}
