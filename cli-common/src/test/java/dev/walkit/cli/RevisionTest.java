package dev.walkit.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RevisionTest {
    @Test
    void whereADamagedSpanLies() {
        assertEquals("inside revision 903134", Revision.where(903134, 903134));
        assertEquals("between revisions 86379 and 86381 (up to 1 lost)", Revision.where(86379, 86381));
        assertEquals("between revisions 518279 and 518280", Revision.where(518279, 518280));
        assertEquals("between revisions 324 and -", Revision.where(324, -1));
        assertEquals("between revisions - and 5", Revision.where(-1, 5));
    }
}
