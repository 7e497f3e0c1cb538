package dev.walkit.recover;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code walrecover}: Rebuild state and lease metadata and emit a clean recovery WAL, atomically. Only the command line exists so far (issue #4). */
@Command(name = "walrecover", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Rebuild state and lease metadata and emit a clean recovery WAL, atomically.", "Not implemented yet: tracked as issue #4."})
public final class WalRecover implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Unmatched
    java.util.List<String> rest;

    public static void main(String[] args) {
        System.exit(Cli.run(new WalRecover(), args));
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("walrecover: not implemented yet (issue #4); try 'walverify' for verification");
        return ExitCode.NOT_IMPLEMENTED.code();
    }
}
