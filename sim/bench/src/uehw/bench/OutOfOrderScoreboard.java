// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Items are matched by key (e.g. flow or packet id); within one key they stay in order,
 * across keys any interleaving is accepted.
 */
public final class OutOfOrderScoreboard<K, T> {
    private final String name;
    private final Function<T, K> keyOf;
    private final Map<K, Deque<T>> expected = new HashMap<>();
    private long pending;
    private long matched;

    public OutOfOrderScoreboard(String name, Function<T, K> keyOf) {
        this.name = name;
        this.keyOf = keyOf;
    }

    public void expect(T item) {
        expected.computeIfAbsent(keyOf.apply(item), k -> new ArrayDeque<>()).addLast(item);
        pending++;
    }

    public void actual(T item) {
        K key = keyOf.apply(item);
        Deque<T> q = expected.get(key);
        T want = q == null ? null : q.pollFirst();
        if (want == null) {
            throw new AssertionError(name + ": unexpected item for key " + key + ": " + item);
        }
        if (!Objects.equals(want, item)) {
            throw new AssertionError(name + ": key " + key + " differs: expected " + want + " got " + item);
        }
        pending--;
        matched++;
    }

    public long matched() {
        return matched;
    }

    public void assertEmpty() {
        if (pending != 0) {
            throw new AssertionError(name + ": " + pending + " expected items never came");
        }
    }
}
