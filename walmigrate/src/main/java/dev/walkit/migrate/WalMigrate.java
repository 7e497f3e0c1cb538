package dev.walkit.migrate;

import dev.walkit.cli.Cli;
import dev.walkit.cli.ExitCode;
import dev.walkit.cli.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code walmigrate}: Move kine/SQLite or a WAL into an etcd v3 endpoint with CAS transactions. Only the command line exists so far (issue #6). */
@Command(name = "walmigrate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Move kine/SQLite or a WAL into an etcd v3 endpoint with CAS transactions.", "Not implemented yet: tracked as issue #6."})
public final class WalMigrate implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Unmatched
    java.util.List<String> rest;

    public static void main(String[] args) {
        System.exit(Cli.run(new WalMigrate(), args));
    }

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("walmigrate: not implemented yet (issue #6); try 'walverify' for verification");
        return ExitCode.NOT_IMPLEMENTED.code();
    }
}
