package dev.walkit.doctor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A lease ID is read as etcdctl reads it (`etcdctl lease timetolive ID`: hex), digits only or not; the 19-digit decimal
 * `leases` prints first, too long to be hex, is read as decimal.
 */
class LeaseIdTest {
    @Test
    void hexAsEtcdctlReadsItDigitsOnlyOrNot() {
        assertEquals(0x07c1a23cf75b1f08L, Commands.leaseId("07c1a23cf75b1f08"));
        assertEquals(0x07c1a23cf75b1f08L, Commands.leaseId("7c1a23cf75b1f08"));
        assertEquals(0x12345L, Commands.leaseId("12345"), "etcdctl reads 12345 as hex");
        assertEquals(0x1234567890123456L, Commands.leaseId("1234567890123456"), "16 digits, as etcdctl prints an ID: hex");
        assertEquals(16, Commands.leaseId("0x10"));
        assertEquals(558906211502333704L, Commands.leaseId("558906211502333704"), "the decimal leases prints first");
        assertThrows(NumberFormatException.class, () -> Commands.leaseId("lease-1"));
    }
}
