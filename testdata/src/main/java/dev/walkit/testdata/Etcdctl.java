package dev.walkit.testdata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Debian's etcdctl (API 3) for the tests: a command's output, and the answers they compare with. */
public final class Etcdctl {
    /** A key as etcdctl's {@code get -w json} gives it: {@code key} as UTF-8 text, {@code keyBytes} as its bytes. */
    public record Kv(String key, byte[] value, long createRevision, long modRevision, long version, long lease, byte[] keyBytes) {
        public String valueText() {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private Etcdctl() {
    }

    /** Runs {@code etcdctl --endpoints ENDPOINTS ARGS} with {@code stdin} (or none); its output; throws when it fails. */
    public static String run(String endpoints, String stdin, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", endpoints));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDCTL_API", "3");
        Process p = pb.start();
        if (stdin != null) p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(cmd + " failed: " + out);
        return out;
    }

    /** The keys under {@code prefix} at revision {@code rev} (0: the latest), in key order; {@code more} adds options (TLS). */
    public static List<Kv> get(String endpoints, String prefix, long rev, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(more));
        args.addAll(List.of("get", prefix, "--prefix", "-w", "json"));
        if (rev > 0) args.addAll(List.of("--rev", String.valueOf(rev)));
        JsonNode j = JSON.readTree(run(endpoints, null, args.toArray(new String[0])));
        List<Kv> out = new ArrayList<>();
        if (j.get("kvs") == null) return out;
        for (JsonNode kv : j.get("kvs")) {
            byte[] key = Base64.getDecoder().decode(kv.get("key").asText());
            out.add(new Kv(new String(key, StandardCharsets.UTF_8),
                    kv.has("value") ? Base64.getDecoder().decode(kv.get("value").asText()) : new byte[0],
                    kv.path("create_revision").asLong(), kv.path("mod_revision").asLong(), kv.path("version").asLong(), kv.path("lease").asLong(), key));
        }
        return out;
    }

    /**
     * A transaction of the API server's shape (what kine accepts): {@code compare} (e.g. {@code mod("/k") = "0"}),
     * then {@code op}; with {@code elseGet}, else a read of that key (as an update or delete sends). True when the
     * compare held and {@code op} ran.
     */
    public static boolean txn(String endpoints, String compare, String op, String elseGet) throws Exception {
        String failure = elseGet == null ? "" : "get " + elseGet + "\n";
        return run(endpoints, compare + "\n\n" + op + "\n\n" + failure + "\n", "txn").startsWith("SUCCESS");
    }

    /** The API server's create: compare mod = 0, then put (with a lease when {@code lease} is not 0). */
    public static boolean create(String endpoints, String key, String value, long lease) throws Exception {
        return txn(endpoints, "mod(\"" + key + "\") = \"0\"", "put " + (lease != 0 ? "--lease=" + Long.toHexString(lease) + " " : "") + key + " " + value, null);
    }

    /** The API server's update or delete ({@code op}) of {@code key}, on the revision it last read. */
    public static boolean change(String endpoints, String key, String op) throws Exception {
        return txn(endpoints, "mod(\"" + key + "\") = \"" + modRevision(endpoints, key) + "\"", op, key);
    }

    /** The store's revision now. */
    public static long revision(String endpoints) throws Exception {
        return JSON.readTree(run(endpoints, null, "get", "/none", "-w", "json")).get("header").get("revision").asLong();
    }

    /** The mod_revision of {@code key}. */
    public static long modRevision(String endpoints, String key) throws Exception {
        return JSON.readTree(run(endpoints, null, "get", key, "-w", "json")).get("kvs").get(0).get("mod_revision").asLong();
    }

    /** Grants a lease of {@code ttl} seconds; its ID. */
    public static long grant(String endpoints, long ttl) throws Exception {
        Matcher m = Pattern.compile("lease ([0-9a-f]+) granted").matcher(run(endpoints, null, "lease", "grant", String.valueOf(ttl)));
        if (!m.find()) throw new IllegalStateException("etcdctl lease grant: no lease ID");
        return Long.parseUnsignedLong(m.group(1), 16);
    }

    /** The TTL the lease was granted with ({@code lease timetolive}). */
    public static long grantedTtl(String endpoints, long lease) throws Exception {
        Matcher m = Pattern.compile("granted with TTL\\((\\d+)s\\)").matcher(run(endpoints, null, "lease", "timetolive", Long.toHexString(lease)));
        if (!m.find()) throw new IllegalStateException("etcdctl lease timetolive: no TTL");
        return Long.parseLong(m.group(1));
    }
}
