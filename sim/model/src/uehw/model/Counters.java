// SPDX-License-Identifier: Apache-2.0
package uehw.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A golden model's event counters, keyed by the names of the block's count registers (the CSR
 * names of docs/<block>.md: SENDS, DROP_RUNT, ...). The names are fixed when the model is made, so
 * a misspelt one fails at once; the benches compare the whole set against the RTL's count
 * registers in one check (uehw.bench.CounterCheck), which fails on a register the model does not
 * count and on a count the block has no register for.
 */
public final class Counters {
    private final Map<String, long[]> counts = new LinkedHashMap<>();

    public Counters(String... names) {
        for (String n : names) {
            if (counts.put(n, new long[1]) != null) {
                throw new IllegalArgumentException("counter " + n + " named twice");
            }
        }
    }

    public void inc(String name) {
        slot(name)[0]++;
    }

    public void add(String name, long amount) {
        slot(name)[0] += amount;
    }

    public long get(String name) {
        return slot(name)[0];
    }

    /** The names, in the order given. */
    public Set<String> names() {
        return Collections.unmodifiableSet(counts.keySet());
    }

    /** Every count now, by name, in the order given. */
    public Map<String, Long> snapshot() {
        Map<String, Long> s = new LinkedHashMap<>();
        counts.forEach((n, v) -> s.put(n, v[0]));
        return s;
    }

    private long[] slot(String name) {
        long[] s = counts.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no counter " + name + ": the model counts " + counts.keySet());
        }
        return s;
    }
}
