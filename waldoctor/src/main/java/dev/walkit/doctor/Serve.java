package dev.walkit.doctor;

import dev.walkit.cli.ExitCode;
import dev.walkit.cli.VersionProvider;
import dev.walkit.cli.render.AccountText;
import dev.walkit.doctor.serve.EtcdEndpoint;
import dev.walkit.format.account.Account;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code waldoctor serve PATH}: the store's history over etcd's own API, read-only, until SIGTERM or Ctrl-C. */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Serve any store (a WAL, even damaged; an etcd db or data directory; a kine db) over etcd's v3 API, read-only: "
                + "etcdctl get/watch/lease/endpoint status/member list, and every tool built on an etcd client, at any revision from the "
                + "compaction on. Writes are refused. Runs until SIGTERM or Ctrl-C; one line on stderr at start and at stop.",
                "Values are served as stored, Secrets included: this is an operator's endpoint. It listens on loopback unless told "
                        + "otherwise, and another address needs TLS (--cert-file, --key-file).",
                "A damaged store is served as replay left it; its damage is under the keys walkit/account and walkit/damage/."})
final class Serve implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "PATH", description = "A WAL file, an etcd db or data directory, or a kine state.db.")
    Path path;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Address to listen on (default: ${DEFAULT-VALUE}; port 0: any free port).")
    String listen = "127.0.0.1:2379";

    @Option(names = "--rev", paramLabel = "R", description = "Serve the store as it was at revision R: R is then the latest a client sees.")
    long rev;

    @Option(names = "--cert-file", paramLabel = "FILE", description = "TLS certificate (PEM) of the endpoint.")
    Path certFile;

    @Option(names = "--key-file", paramLabel = "FILE", description = "TLS key (PEM) of the endpoint.")
    Path keyFile;

    @Option(names = "--trusted-ca-file", paramLabel = "FILE", description = "CA (PEM) that client certificates must chain to.")
    Path trustedCaFile;

    @Option(names = "--no-index", description = WalDoctor.NO_INDEX)
    boolean noIndex;

    @Option(names = "--client-cert-auth", description = "Require a client certificate signed by --trusted-ca-file.")
    boolean clientCertAuth;

    @Override
    public Integer call() {
        return run(spec.commandLine().getErr());
    }

    /** Serves until stopped; {@code err} has the start line and every error. What picocli and the plain parse ({@link PlainArgs#serve}) call. */
    int run(PrintWriter err) {
        dev.walkit.cli.Timing.mark("parsed");
        InetSocketAddress address;
        try {
            address = address(listen);
        } catch (IllegalArgumentException | UnknownHostException e) {
            return usage(err, "--listen " + listen + ": " + e.getMessage());
        }
        EtcdEndpoint.Tls tls = null;
        if (certFile != null || keyFile != null) {
            if (certFile == null || keyFile == null) return usage(err, "--cert-file and --key-file go together");
            for (Path p : new Path[] {certFile, keyFile, trustedCaFile}) {
                if (p != null && !Files.isReadable(p)) return usage(err, "cannot read " + p);
            }
            tls = new EtcdEndpoint.Tls(certFile, keyFile, trustedCaFile, clientCertAuth);
        } else if (clientCertAuth || trustedCaFile != null) {
            return usage(err, "--client-cert-auth and --trusted-ca-file need --cert-file and --key-file");
        }
        if (tls == null && !address.getAddress().isLoopbackAddress()) {
            return usage(err, "--listen " + listen + " is not a loopback address: serving values (Secrets included) there needs TLS "
                    + "(--cert-file, --key-file; --trusted-ca-file with --client-cert-auth to require client certificates)");
        }
        EtcdEndpoint.Tls finalTls = tls;
        EtcdEndpoint.warmInBackground(); // the options are good: beside the load
        long started = System.nanoTime();
        return WalDoctor.withIndex("waldoctor serve", path, err, System.console() != null, noIndex, x -> {
            dev.walkit.cli.Timing.mark("loaded");
            ServedHistory history;
            try {
                history = new ServedHistory(x, rev);
            } catch (IllegalArgumentException e) {
                return usage(err, e.getMessage());
            }
            EtcdEndpoint endpoint;
            try {
                endpoint = EtcdEndpoint.start(history, address, finalTls);
            } catch (java.io.IOException e) {
                err.println("waldoctor serve: " + e.getMessage());
                err.flush();
                return ExitCode.UNREADABLE.code();
            }
            dev.walkit.cli.Timing.mark("listening");
            Account a = x.account();
            // How long the load took, and whether a saved index spared it: what the next start will cost.
            err.printf("waldoctor serve: %s (%s; revisions %d..%d served%s; %s) read-only at %s (loaded in %.2f s, %s)%n", path, AccountText.kind(a),
                    history.compactRevision() + (history.compactRevision() > 0 ? 0 : 1), history.latest(),
                    history.compactRevision() > 0 ? ", compacted at " + history.compactRevision() : "",
                    verdictLine(a), endpoint.url(), (System.nanoTime() - started) / 1e9,
                    x.indexed() ? "from its saved index" : "read whole");
            err.flush();
            x.startSaving(); // a first start's index, saved once the port is open: the next start maps it
            Thread stop = new Thread(() -> {
                endpoint.close();
                x.awaitSaved(); // a first start's index, still being saved when stopped, is finished: the next start maps it
                err.printf("waldoctor serve: stopped after %,d request(s)%n", endpoint.requests());
                err.flush();
            }, "walkit-serve-stop");
            Runtime.getRuntime().addShutdownHook(stop);
            try {
                endpoint.awaitTermination();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ExitCode.OK.code();
        });
    }

    private static int usage(PrintWriter err, String message) {
        err.println("waldoctor serve: " + message);
        err.flush();
        return ExitCode.USAGE.code();
    }

    /** HOST:PORT, [V6]:PORT, or :PORT (loopback). */
    static InetSocketAddress address(String s) throws UnknownHostException {
        int colon = s.lastIndexOf(':');
        if (colon < 0) throw new IllegalArgumentException("not HOST:PORT");
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a port: " + s.substring(colon + 1));
        }
        if (port < 0 || port > 65535) throw new IllegalArgumentException("not a port: " + port);
        InetAddress a = host.isEmpty() ? InetAddress.getLoopbackAddress() : InetAddress.getByName(host);
        return new InetSocketAddress(a, port);
    }

    /** The start line's word on the store: its verdict, as every view says it (a torn tail is not damage beyond it). */
    static String verdictLine(Account a) {
        return switch (a.verdict()) {
            case HEALTHY -> "healthy";
            case TORN_TAIL -> "a torn tail, served without it: " + AccountText.damageSummary(a) + "; see walkit/damage/";
            case DAMAGED, RULES_BROKEN -> "DAMAGED: " + AccountText.damageSummary(a) + "; see walkit/damage/";
        };
    }
}
