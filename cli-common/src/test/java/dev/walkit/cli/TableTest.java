package dev.walkit.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TableTest {
    @Test
    void bordersCapitalHeadersNumbersRightText() {
        StringWriter s = new StringWriter();
        new Table("kind", "offset").row("torn-tail", 1047378L).row("crc-mismatch", null).print(new PrintWriter(s, true));
        assertEquals(String.join(System.lineSeparator(),
                "+--------------+---------+",
                "|     KIND     | OFFSET  |",
                "+--------------+---------+",
                "| torn-tail    | 1047378 |",
                "| crc-mismatch | -       |",
                "+--------------+---------+", ""), s.toString());
    }

    @Test
    void aRowMustFillTheColumns() {
        assertThrows(IllegalArgumentException.class, () -> new Table("a", "b").row("x"));
    }

    @Test
    void writeOutChecksAgreementAndSupport() {
        StringWriter err = new StringWriter();
        WriteOut w = new WriteOut();
        assertEquals(OutputFormat.SIMPLE, w.format());
        assertNull(w.check("t", new PrintWriter(err), OutputFormat.SIMPLE));
        w.format = OutputFormat.TABLE;
        assertEquals("-w table is not supported here (simple, json)", w.check("t", new PrintWriter(err), OutputFormat.SIMPLE, OutputFormat.JSON));
        w.json = true;
        assertEquals("--json and -w table exclude each other", w.check("t", new PrintWriter(err), OutputFormat.values()));
        w.format = OutputFormat.JSON;
        assertNull(w.check("t", new PrintWriter(err), OutputFormat.values()));
        assertEquals(OutputFormat.JSON, w.format());
        assertEquals("t: -w table is not supported here (simple, json)" + System.lineSeparator()
                + "t: --json and -w table exclude each other" + System.lineSeparator(), err.toString());
    }
}
