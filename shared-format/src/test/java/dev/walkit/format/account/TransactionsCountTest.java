package dev.walkit.format.account;

import dev.walkit.format.LogBuilder;
import dev.walkit.format.pass.Level;
import dev.walkit.format.pass.Pass;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code transactions} means one thing at every level: the transactions read whole. A log written twice over (its
 * second half repeats the first: every transaction of it a revision not above the last applied) has 10 at frame and
 * decode level, which count closing records, and 10 at semantic level: 5 applied and 5 dropped by the rule.
 */
class TransactionsCountTest {
    @TempDir
    Path dir;

    @Test
    void everyLevelCountsTheTransactionsReadWhole() throws Exception {
        byte[] once = LogBuilder.puts(5).bytes();
        byte[] twice = new byte[once.length * 2];
        System.arraycopy(once, 0, twice, 0, once.length);
        System.arraycopy(once, 0, twice, once.length, once.length);
        Path wal = LogBuilder.write(dir, "wal", twice);
        for (Level level : new Level[] {Level.FRAME, Level.DECODE, Level.SEMANTIC}) {
            Account a = Pass.read(wal, level, null).account();
            assertEquals(10, a.records(), level.toString());
            assertEquals(10, a.transactions(), level + ": transactions read whole");
        }
        Account semantic = Pass.read(wal, Level.SEMANTIC, null).account();
        assertEquals(5, semantic.revisions().applied());
        assertEquals(5, semantic.drops().size(), "the repeats, dropped by the rule");
        // An incomplete transaction (its close never read) is in neither count: the last record's TXN_CONT, its end cut.
        byte[] cut = LogBuilder.puts(3).add(dev.walkit.format.KeyValue.put("/k".getBytes(), 4, 4, 1, "v".getBytes(), 0)
                .withFlags(dev.walkit.format.Flags.TXN_CONT)).bytes();
        Path open = LogBuilder.write(dir, "open", cut);
        for (Level level : new Level[] {Level.DECODE, Level.SEMANTIC}) assertEquals(3, Pass.read(open, level, null).account().transactions(), level.toString());
    }
}
