// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.bench.CounterCheck;
import uehw.model.Counters;

/** The one counter check fails on each way a block and its expectation can disagree. */
@Tag("model")
class CounterCheckTest {
    static final Map<String, Integer> ADDRESSES = Map.of("STATUS", 0x00, "ACKS", 0x10, "DROPS", 0x14);
    static final List<String> COUNTERS = List.of("ACKS", "DROPS");
    /** The "RTL": ACKS reads 5, DROPS 2^32 + 1 counted, so 1. */
    static long read(int address) {
        return address == 0x10 ? 5 : address == 0x14 ? 1 : 0;
    }

    @Test
    void agreesAndFailsOnEachDisagreement() {
        Counters model = new Counters("ACKS", "DROPS");
        model.add("ACKS", 5);
        model.add("DROPS", (1L << 32) + 1);  // registers wrap at 2^32
        CounterCheck.assertRegisters("x", ADDRESSES, COUNTERS, CounterCheckTest::read, model.snapshot(), Set.of());

        model.inc("ACKS");
        AssertionError wrong = assertThrows(AssertionError.class,
                () -> CounterCheck.assertRegisters("x", ADDRESSES, COUNTERS, CounterCheckTest::read, model.snapshot(), Set.of()));
        assertTrue(wrong.getMessage().contains("ACKS (0x10): RTL 5, expected 6"), wrong.getMessage());

        AssertionError unexpected = assertThrows(AssertionError.class, () -> CounterCheck.assertRegisters("x", ADDRESSES,
                COUNTERS, CounterCheckTest::read, Map.of("ACKS", 5L), Set.of()));
        assertTrue(unexpected.getMessage().contains("DROPS: the block counts it, nothing expects it"), unexpected.getMessage());
        CounterCheck.assertRegisters("x", ADDRESSES, COUNTERS, CounterCheckTest::read, Map.of("ACKS", 5L), Set.of("DROPS"));

        AssertionError noRegister = assertThrows(AssertionError.class, () -> CounterCheck.assertRegisters("x", ADDRESSES,
                COUNTERS, CounterCheckTest::read, Map.of("ACKS", 5L, "DROPS", 1L, "NACKS", 0L), Set.of()));
        assertTrue(noRegister.getMessage().contains("NACKS: expected, but x has no such register"), noRegister.getMessage());

        assertThrows(IllegalArgumentException.class, () -> model.inc("ACK"), "a misspelt counter fails at once");
    }
}
