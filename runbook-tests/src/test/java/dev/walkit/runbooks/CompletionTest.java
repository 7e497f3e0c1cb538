package dev.walkit.runbooks;

import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.migrate.WalMigrate;
import dev.walkit.recover.WalRecover;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Completion offers exactly the values the tools accept: each value of each bash completion list is taken by its option. */
class CompletionTest {
    private static final Pattern VALUES = Pattern.compile("_option_args=\\(([^)]*)\\) # (--[\\w-]+) values");

    private record Run(int exit, String out, String err) {
    }

    private static Run run(Supplier<Object> tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.run(tool.get(), new PrintWriter(out), new PrintWriter(err), args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Option → its completion values, from the tool's bash completion script. */
    private static Map<String, List<String>> values(Supplier<Object> tool) {
        Run r = run(tool, "generate-completion");
        assertEquals(0, r.exit(), r.err());
        Map<String, List<String>> m = new LinkedHashMap<>();
        Matcher x = VALUES.matcher(r.out());
        while (x.find()) {
            List<String> v = new ArrayList<>();
            for (String q : x.group(1).trim().split(" +")) v.add(q.replace("\"", ""));
            m.put(x.group(2), v);
        }
        return m;
    }

    @Test
    void everyValueOfferedIsAccepted() {
        Map<String, Supplier<Object>> tools = Map.of("walrecover", WalRecover::new, "walverify", WalVerify::new);
        for (var t : tools.entrySet()) {
            Map<String, List<String>> values = values(t.getValue());
            assertTrue(values.containsKey("--write-out"), t.getKey() + ": " + values);
            for (var o : values.entrySet()) {
                for (String v : o.getValue()) {
                    // Parsed (the converter runs) before --help answers: a value it rejects is a usage error.
                    Run r = run(t.getValue(), o.getKey(), v, "--help");
                    assertEquals(0, r.exit(), t.getKey() + " " + o.getKey() + " " + v + ": " + r.err());
                }
            }
        }
        assertEquals(dev.walkit.format.policy.RecoveryPolicy.labels(), values(WalRecover::new).get("--policy"), "every policy of ALL, in order");
        assertEquals(List.of("payload-only", "skip-flags"), values(WalRecover::new).get("--accept-crc"));
    }

    @Test
    void noToolOffersAnEnumsConstantNames() {
        for (Supplier<Object> t : List.<Supplier<Object>>of(WalRecover::new, WalVerify::new, WalDoctor::new, WalMigrate::new)) {
            for (var o : values(t).entrySet()) {
                for (String v : o.getValue()) assertFalse(v.chars().anyMatch(Character::isUpperCase), o.getKey() + " offers " + v);
            }
        }
    }
}
