package dev.walkit.migrate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Keys routed to shards by prefix ({@code --route PREFIX=URL[,URL...]}, or kube-apiserver's override form
 * {@code group/resource#URL;URL}, e.g. {@code /events#http://10.0.0.2:2379}: the resource's keys,
 * {@code /registry/RESOURCE/}), the rest to {@code --endpoints}: each shard its own target, copy and verify.
 */
record Routes(List<Route> routes) {
    /** A shard: the keys under {@code prefix}, into {@code endpoints}. */
    record Route(String prefix, List<String> endpoints) {
    }

    /** The routes {@code specs} say; an {@link IllegalArgumentException} saying which one is not a route. */
    static Routes parse(List<String> specs) {
        List<Route> out = new ArrayList<>();
        for (String s : specs == null ? List.<String>of() : specs) {
            String prefix;
            List<String> endpoints;
            int hash = s.indexOf('#');
            int eq = s.indexOf('=');
            if (hash > 0 && (eq < 0 || hash < eq)) {
                // kube-apiserver's --etcd-servers-overrides: group/resource#servers (core group: /resource), servers split by ';'.
                String gr = s.substring(0, hash);
                String resource = gr.substring(gr.lastIndexOf('/') + 1);
                if (resource.isEmpty()) throw new IllegalArgumentException("--route " + s + ": no resource before '#' (as kube-apiserver's /events#URL)");
                prefix = "/registry/" + resource + "/";
                endpoints = Arrays.stream(s.substring(hash + 1).split(";")).map(String::strip).filter(x -> !x.isEmpty()).toList();
            } else if (eq > 0) {
                prefix = s.substring(0, eq);
                endpoints = Arrays.stream(s.substring(eq + 1).split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
            } else {
                throw new IllegalArgumentException("--route " + s + ": not PREFIX=URL[,URL...] nor kube-apiserver's group/resource#URL[;URL...]");
            }
            if (endpoints.isEmpty()) throw new IllegalArgumentException("--route " + s + ": no endpoint");
            for (Route r : out) {
                if (prefix.startsWith(r.prefix()) || r.prefix().startsWith(prefix)) {
                    throw new IllegalArgumentException("--route " + s + ": its prefix " + prefix + " overlaps " + r.prefix() + "'s: a key goes to one shard");
                }
            }
            out.add(new Route(prefix, endpoints));
        }
        return new Routes(List.copyOf(out));
    }

    boolean isEmpty() {
        return routes.isEmpty();
    }

    /** Whether {@code key} goes to one of the routes (not to --endpoints). */
    boolean routed(byte[] key) {
        for (Route r : routes) if (Migrator.startsWith(key, r.prefix().getBytes(StandardCharsets.UTF_8))) return true;
        return false;
    }

    /** The keys of {@code in} that go to no route: --endpoints' shard. */
    KeySource rest(KeySource in) {
        return KeySource.filter(in, key -> !routed(key));
    }

    /** {@code o} for the shard of {@code r}: its endpoints, the keys under its prefix (within --prefix: a usage error else). */
    static MigrateOptions forRoute(MigrateOptions o, Route r) {
        String p = o.prefix() == null ? "" : o.prefix();
        if (!r.prefix().startsWith(p)) throw new IllegalArgumentException("--route " + r.prefix() + " is not under --prefix " + p);
        return new MigrateOptions(r.endpoints(), r.prefix(), o.batch(), o.concurrency(), o.dryRun(), o.leaseTtl(), o.cacert(), o.cert(), o.key(),
                o.user(), o.passwordFile());
    }
}
