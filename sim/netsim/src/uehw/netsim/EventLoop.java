// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.PriorityQueue;

/**
 * The network simulator's discrete-event core: actions at times in picoseconds, run in time order
 * and, at one time, in the order they were scheduled (so a run is deterministic). A small loop of
 * our own, as in the reference simulators (htsim's EventList): one heap, no threads.
 */
public final class EventLoop {
    private record Entry(long time, long order, Runnable action) {
    }

    private final PriorityQueue<Entry> heap = new PriorityQueue<>((a, b) ->
            a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.order, b.order));
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
        heap.add(new Entry(now + delayPs, order++, action));
    }

    /** Runs every event up to and including {@code untilPs}; returns whether events are left. */
    public boolean run(long untilPs) {
        while (!heap.isEmpty() && heap.peek().time <= untilPs) {
            Entry e = heap.poll();
            now = e.time;
            executed++;
            e.action.run();
        }
        return !heap.isEmpty();
    }

    /** Events executed so far. */
    public long executed() {
        return executed;
    }
}
