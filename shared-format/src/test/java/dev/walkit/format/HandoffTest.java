package dev.walkit.format;

import dev.walkit.format.scan.Handoff;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** What a producer hands on comes out in order, then the end (for good), or the producer's failure; close stops it. */
class HandoffTest {
    @Test
    void itemsInOrderThenTheEndForGood() {
        try (Handoff<Integer> h = new Handoff<>("test", 2, "counting", out -> {
            for (int i = 0; i < 100; i++) out.put(i);
        })) {
            for (int i = 0; i < 100; i++) assertEquals(i, h.take());
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                assertNull(h.take());
                assertNull(h.take(), "the end stays the end");
            });
        }
    }

    @Test
    void theProducersFailureIsThrownAfterWhatItHandedOn() {
        IllegalArgumentException boom = new IllegalArgumentException("boom");
        try (Handoff<String> h = new Handoff<>("test", 2, "failing", out -> {
            out.put("first");
            throw boom;
        })) {
            assertEquals("first", h.take());
            assertSame(boom, assertThrows(IllegalArgumentException.class, h::take));
        }
        IOException io = new IOException("disk");
        try (Handoff<String> h = new Handoff<>("test", 2, "reading", out -> {
            throw io;
        })) {
            assertSame(io, assertThrows(UncheckedIOException.class, h::take).getCause());
        }
    }

    @Test
    void closeStopsAProducerWaitingOnAFullQueue() throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        Handoff<Integer> h = new Handoff<>("test", 1, "waiting", out -> {
            try {
                for (int i = 0; ; i++) out.put(i);
            } finally {
                stopped.countDown();
            }
        });
        assertEquals(0, h.take());
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            h.close();
            stopped.await();
        });
    }
}
