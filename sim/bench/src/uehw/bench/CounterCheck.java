// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntToLongFunction;

/**
 * One check of a block's count registers against what they should read: the model's counters
 * (uehw.model.Counters, keyed by register name), the bench's own counts and the model's gauges.
 * Every count register the block has (its generated CSR class's COUNTERS) must be expected or
 * named as checked elsewhere, every expected name must be a register of the block, and each reads
 * its expected value modulo 2^32. All differences are reported at once.
 */
public final class CounterCheck {
    private CounterCheck() {
    }

    /**
     * @param block      the block's name, for the message
     * @param addresses  its registers by name (the CSR class's ADDRESSES)
     * @param counters   its count registers (the CSR class's COUNTERS)
     * @param read       reads the register at a byte address
     * @param expected   what registers should read, by name
     * @param elsewhere  count registers this check leaves to directed tests (none of them may be expected)
     */
    public static void assertRegisters(String block, Map<String, Integer> addresses, List<String> counters, IntToLongFunction read,
                                       Map<String, Long> expected, Set<String> elsewhere) {
        List<String> wrong = new ArrayList<>();
        for (String c : counters) {
            if (!expected.containsKey(c) && !elsewhere.contains(c)) {
                wrong.add(c + ": the block counts it, nothing expects it");
            }
        }
        for (var e : expected.entrySet()) {
            Integer address = addresses.get(e.getKey());
            if (address == null) {
                wrong.add(e.getKey() + ": expected, but " + block + " has no such register");
                continue;
            }
            long rtl = read.applyAsLong(address);
            long want = e.getValue() & 0xFFFF_FFFFL;
            if (rtl != want) {
                wrong.add(String.format("%s (0x%02X): RTL %d, expected %d", e.getKey(), address, rtl, want));
            }
        }
        if (!wrong.isEmpty()) {
            throw new AssertionError(block + " registers: " + String.join("; ", wrong));
        }
    }
}
