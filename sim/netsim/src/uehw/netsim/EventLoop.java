// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/**
 * The network simulator's discrete-event core: actions at times in picoseconds, run in time order
 * and, at one time, in the order they were scheduled (so a run is deterministic). A small loop of
 * our own, as in the reference simulators (htsim's EventList): one heap, no threads.
 */
public final class EventLoop {
    // A binary heap in parallel arrays ordered by (time, order): no allocation per event beyond the action.
    private long[] times = new long[1024];
    private long[] orders = new long[1024];
    private Runnable[] actions = new Runnable[1024];
    private int size;
    private long now;
    private long order;
    private long executed;

    /** The current time in ps. */
    public long now() {
        return now;
    }

    /** Runs {@code action} {@code delayPs} after now. */
    public void after(long delayPs, Runnable action) {
        if (delayPs < 0) {
            throw new IllegalArgumentException("negative delay " + delayPs);
        }
        if (size == times.length) {
            times = java.util.Arrays.copyOf(times, 2 * size);
            orders = java.util.Arrays.copyOf(orders, 2 * size);
            actions = java.util.Arrays.copyOf(actions, 2 * size);
        }
        long t = now + delayPs, o = order++;
        int i = size++;
        while (i > 0) { // sift up
            int parent = (i - 1) >>> 1;
            if (times[parent] < t || times[parent] == t && orders[parent] < o) {
                break;
            }
            times[i] = times[parent];
            orders[i] = orders[parent];
            actions[i] = actions[parent];
            i = parent;
        }
        times[i] = t;
        orders[i] = o;
        actions[i] = action;
    }

    /** Runs every event up to and including {@code untilPs}; returns whether events are left. */
    public boolean run(long untilPs) {
        while (size > 0 && times[0] <= untilPs) {
            now = times[0];
            Runnable action = actions[0];
            removeHead();
            executed++;
            action.run();
        }
        return size > 0;
    }

    private void removeHead() {
        int last = --size;
        long t = times[last], o = orders[last];
        Runnable a = actions[last];
        actions[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        while (true) { // sift down
            int child = 2 * i + 1;
            if (child >= last) {
                break;
            }
            int right = child + 1;
            if (right < last && (times[right] < times[child] || times[right] == times[child] && orders[right] < orders[child])) {
                child = right;
            }
            if (t < times[child] || t == times[child] && o < orders[child]) {
                break;
            }
            times[i] = times[child];
            orders[i] = orders[child];
            actions[i] = actions[child];
            i = child;
        }
        times[i] = t;
        orders[i] = o;
        actions[i] = a;
    }

    /** Events executed so far. */
    public long executed() {
        return executed;
    }
}
