package dev.walkit.format;

import dev.walkit.format.assess.Assessment;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one definition of healthy, torn tail only and the tail, on named spans and findings of a 1,000-byte log. */
class AssessmentTest {
    private static final long SIZE = 1000;

    private static DamageSpan span(DamageKind kind, long offset, long length) {
        return new DamageSpan(kind, offset, length, "test", -1, -1, null, 0);
    }

    private static Finding finding(DamageKind kind, long offset, long length) {
        return new Finding(kind, offset, length, 7, 1, "test");
    }

    @Test
    void nothingIsHealthy() {
        assertEquals(new Assessment(Assessment.Verdict.HEALTHY, SIZE), Assessment.of(List.of(), List.of(), SIZE));
    }

    @Test
    void aTornTailAndTheTransactionItCutAreTornTailOnly() {
        Assessment a = Assessment.of(List.of(span(DamageKind.TORN_TAIL, 900, 100)),
                List.of(finding(DamageKind.INCOMPLETE_TRANSACTION, 850, 50)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.TORN_TAIL, 850), a);
    }

    @Test
    void aLogThatEndsInsideATransactionIsTornTailOnly() {
        Assessment a = Assessment.of(List.of(), List.of(finding(DamageKind.INCOMPLETE_TRANSACTION, 950, 50)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.TORN_TAIL, 950), a);
    }

    @Test
    void aCrcMismatchOfTheLastRecordIsTheTailButDamage() {
        Assessment a = Assessment.of(List.of(span(DamageKind.CRC_MISMATCH, 900, 100)), List.of(), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.DAMAGED, 900), a);
    }

    @Test
    void damageBeforeValidRecordsIsNotTheTail() {
        Assessment a = Assessment.of(List.of(span(DamageKind.CRC_MISMATCH, 100, 50), span(DamageKind.TORN_TAIL, 900, 100)), List.of(), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.DAMAGED, 900), a);
    }

    @Test
    void aTornTailAfterAnIncompleteTransactionThatDoesNotTouchItIsDamaged() {
        Assessment a = Assessment.of(List.of(span(DamageKind.TORN_TAIL, 900, 100)),
                List.of(finding(DamageKind.INCOMPLETE_TRANSACTION, 500, 50)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.DAMAGED, 900), a);
    }

    @Test
    void aRuleFindingAloneIsRulesBrokenReportedAsDamaged() {
        Assessment a = Assessment.of(List.of(), List.of(finding(DamageKind.VERSION_MISMATCH, 300, 40)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.RULES_BROKEN, SIZE), a);
        assertEquals("damaged", a.verdict().label());
    }

    @Test
    void aRuleFindingBesideATornTailIsDamaged() {
        Assessment a = Assessment.of(List.of(span(DamageKind.TORN_TAIL, 900, 100)), List.of(finding(DamageKind.REVISION_REGRESSION, 300, 40)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.DAMAGED, 900), a);
    }

    /**
     * §9's tail is the damage after which no valid record follows: a CRC mismatch at 700..800 followed by a valid
     * record (800..850, the first of a transaction the torn tail cut) is not tail, though the spans and the
     * incomplete transaction touch (issue 30, point 15: tolerate-tail accepted it).
     */
    @Test
    void aDamagedSpanThatAValidRecordFollowsIsNotTail() {
        Assessment a = Assessment.of(List.of(span(DamageKind.CRC_MISMATCH, 700, 100), span(DamageKind.TORN_TAIL, 850, 150)),
                List.of(finding(DamageKind.INCOMPLETE_TRANSACTION, 800, 200)), SIZE);
        assertEquals(new Assessment(Assessment.Verdict.DAMAGED, 800), a);
        // Two damaged spans touching each other at the end are one tail.
        Assessment b = Assessment.of(List.of(span(DamageKind.GARBAGE_SPAN, 700, 150), span(DamageKind.TORN_TAIL, 850, 150)), List.of(), SIZE);
        assertEquals(700, b.tailStart());
    }
}
