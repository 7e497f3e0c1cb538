package dev.walkit.doctor;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code waldoctor}: The incident report (diagnose) and an interactive shell over the log's state. Only the command line exists so far (issue #5). */
@Command(name = "waldoctor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"The incident report (diagnose) and an interactive shell over the log's state.", "Not implemented yet: tracked as issue #5."})
public final class WalDoctor implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Unmatched
    java.util.List<String> rest;

    public static void main(String[] args) {
        System.exit(Cli.run(new WalDoctor(), args));
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("waldoctor: not implemented yet (issue #5); try 'walverify' for verification");
        return ExitCode.NOT_IMPLEMENTED.code();
    }
}
