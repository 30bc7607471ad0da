// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/** Expected items must come out in the order they were pushed; any difference fails at once. */
public final class InOrderScoreboard<T> {
    private final String name;
    private final Deque<T> expected = new ArrayDeque<>();
    private long matched;
    private T last;

    public InOrderScoreboard(String name) {
        this.name = name;
    }

    public void expect(T item) {
        expected.addLast(item);
    }

    public void actual(T item) {
        T want = expected.pollFirst();
        if (want == null) {
            throw new AssertionError(name + ": unexpected item #" + matched + ": " + item);
        }
        if (!Objects.equals(want, item)) {
            throw new AssertionError(name + ": item #" + matched + " differs: expected " + want + " got " + item);
        }
        matched++;
        last = item;
    }

    public long matched() {
        return matched;
    }

    /** The last item that came out and matched (null before the first). */
    public T lastMatched() {
        return last;
    }

    public int pending() {
        return expected.size();
    }

    /** At the end of a run: nothing expected may be left over. */
    public void assertEmpty() {
        if (!expected.isEmpty()) {
            throw new AssertionError(name + ": " + expected.size() + " expected items never came, first " + expected.peekFirst());
        }
    }
}
