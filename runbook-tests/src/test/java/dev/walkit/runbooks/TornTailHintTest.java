package dev.walkit.runbooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.walkit.cli.Cli;
import dev.walkit.doctor.WalDoctor;
import dev.walkit.format.LogBuilder;
import dev.walkit.recover.WalRecover;
import dev.walkit.verify.WalVerify;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A torn tail's hint names the policy that repairs the log it is in: tolerate-tail when the torn tail is all the
 * damage, salvage when other damage makes tolerate-tail refuse (which it then does), in every report.
 */
class TornTailHintTest {
    static final String TOLERATE = "`walrecover --policy tolerate-tail` drops it";
    static final String SALVAGE = "tolerate-tail refuses the log: `walrecover --policy salvage` drops it";

    @TempDir
    Path dir;

    static String[] run(Object tool, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = tool instanceof WalDoctor ? WalDoctor.run(new PrintWriter(out), new PrintWriter(err), args)
                : Cli.run(tool, new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {Integer.toString(exit), out.toString(), err.toString()};
    }

    @Test
    void aTornTailBesideOtherDamageAdvisesSalvageAndATornTailAloneTolerateTail() throws Exception {
        LogBuilder b = LogBuilder.puts(12);
        byte[] clean = b.bytes();
        Path torn = LogBuilder.write(dir, "torn", Arrays.copyOf(clean, clean.length - 5));
        byte[] both = Arrays.copyOf(clean, clean.length - 5);
        both[(int) b.offset(3) + b.length(3) - 1] ^= 1; // and a CRC mid-log
        Path damaged = LogBuilder.write(dir, "damaged", both);

        String tornText = run(new WalVerify(), torn.toString())[1];
        assertTrue(tornText.contains(TOLERATE) && !tornText.contains(SALVAGE), tornText);
        String[] v = run(new WalVerify(), damaged.toString());
        assertEquals("3", v[0]);
        assertTrue(v[1].contains(SALVAGE) && !v[1].contains(TOLERATE), v[1]);
        String diagnose = run(new WalDoctor(), "diagnose", damaged.toString())[1];
        assertTrue(diagnose.contains(SALVAGE) && !diagnose.contains(TOLERATE), diagnose);
        JsonNode j = new ObjectMapper().readTree(run(new WalVerify(), "-w", "json", damaged.toString())[1]);
        JsonNode tail = j.get("damage").get(1);
        assertEquals("torn-tail", tail.get("kind").asText());
        assertTrue(tail.get("meaning").asText().contains(SALVAGE), tail.toString());
        // And what it says holds: tolerate-tail refuses this log, salvage writes it.
        assertEquals("3", run(new WalRecover(), "--policy", "tolerate-tail", "--dry-run", damaged.toString())[0]);
        assertEquals("0", run(new WalRecover(), "--policy", "salvage", "--dry-run", damaged.toString())[0]);
    }
}
