package uehw.sim.dart;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Dart's receiver half, direct apportioning of sending rates (dart.txt Sec. III-A..D, Fig. 4 and 5),
 * as the receiver NIC would run it: the active unique sender set (AUSS) with each sender's count of
 * messages in flight and the time of its last packet, the look-ahead of an incast group, the
 * congestion state machine, and per data packet the n (and whether the ECN echo passes) its ACK
 * carries. Integer arithmetic and ns times throughout, so that it can be the specification of the
 * hardware block; the set holds at most {@code capacity} senders.
 *
 * <p>The set is {@code capacity} slots, as in the hardware's RAM: a new sender takes the slot at
 * the head of a free list (initially 0, 1, ...), a sender that leaves returns its slot to the tail.
 * Soft state (Sec. III-B) is a sweep: each call looks at one slot, in turn, and evicts its sender if
 * it has been idle longer than the timeout. A crashed sender so leaves the set at most
 * {@code capacity} calls after its timeout, a few microseconds after the paper's 2 s, and the rule
 * depends on the calls alone, not on clocks.
 *
 * <p>Order of one call: the throughput windows that ended before {@code now} are closed (each one
 * may change the state), the sweep looks at its slot, the packet (or look-ahead) is applied, its
 * bytes and ECN mark are counted in the current window, and the reply is formed.
 */
public final class DasrModel {
    /** Fig. 5. */
    public enum State { NO_CONGESTION, RECEIVER_CONGESTION, NON_RECEIVER_CONGESTION }

    /** What the packet's ACK carries: n, and whether its ECN echo passes. */
    public record Reply(int n, boolean ecnPass) {
    }

    private static final class Entry {
        int slot;
        int messages;
        long lastNs;
        /** Messages a look-ahead started whose first packet has not come yet. */
        int announced;
    }

    public final int capacity;
    public final int maxMessages;
    /** Soft state (Sec. III-B): a sender idle longer than this is evicted (paper: about 2 s). */
    public long idleTimeoutNs;
    /** The receive throughput is measured over windows of this length ... */
    public long windowNs;
    /** ... and is "at line rate" when the window's bytes reach this many (line rate x window x a fraction). */
    public long lineRateBytes;

    private final Map<Integer, Entry> set = new HashMap<>();
    /** Slot -> its sender (null: free), and the free slots in the order they are taken. */
    private final Integer[] slots;
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    private int sweep;
    /** The look-ahead groups seen lately: every message of a group announces it, the first one counts. */
    private final ArrayDeque<Integer> groupsSeen = new ArrayDeque<>();
    public static final int GROUPS_REMEMBERED = 16;
    private int overflow;
    private State state = State.NO_CONGESTION;
    private long windowStart;
    private long windowBytes;
    private boolean windowEcn;

    public long adds, removes, evictions, overflowed, lookAheadAdds, stateChanges, endsWithoutStart, messageCountSaturated;
    /** Packets and look-ahead names whose sender id does not fit the id width: the set ignores them (their bytes count). */
    public long senderOutOfRange;
    /** Sender ids are this many bits (a generation parameter of the block; 16: 64K sender NICs). */
    public final int senderIdBits;

    public DasrModel(int capacity, int maxMessages, long idleTimeoutNs, long windowNs, long lineRateBytes) {
        this(capacity, maxMessages, idleTimeoutNs, windowNs, lineRateBytes, 16);
    }

    public DasrModel(int capacity, int maxMessages, long idleTimeoutNs, long windowNs, long lineRateBytes, int senderIdBits) {
        this.senderIdBits = senderIdBits;
        this.capacity = capacity;
        this.maxMessages = maxMessages;
        this.idleTimeoutNs = idleTimeoutNs;
        this.windowNs = windowNs;
        this.lineRateBytes = lineRateBytes;
        this.slots = new Integer[capacity];
        for (int i = 0; i < capacity; i++) {
            freeSlots.addLast(i);
        }
    }

    public State state() {
        return state;
    }

    /** |AUSS| plus the senders that found the set full (Sec. III-B: n = |AUSS|). */
    public int activeSenders() {
        return set.size() + overflow;
    }

    public boolean contains(int sender) {
        return set.containsKey(sender);
    }

    /** Fig. 5 at the end of each throughput window: ECN marks with the receiver at line rate is receiver congestion. */
    private void closeWindows(long nowNs) {
        while (nowNs >= windowStart + windowNs) {
            State next = !windowEcn ? State.NO_CONGESTION
                    : windowBytes >= lineRateBytes ? State.RECEIVER_CONGESTION : State.NON_RECEIVER_CONGESTION;
            if (next != state) {
                stateChanges++;
                state = next;
            }
            windowStart += windowNs;
            windowBytes = 0;
            windowEcn = false;
            if (nowNs >= windowStart + windowNs && next == State.NO_CONGESTION) {
                windowStart = nowNs - (nowNs - windowStart) % windowNs; // empty windows change nothing more
            }
        }
    }

    /** The sweep: one slot a call; its sender leaves if idle longer than the timeout. */
    private void evictIdle(long nowNs) {
        Integer sender = slots[sweep];
        if (sender != null && nowNs - set.get(sender).lastNs > idleTimeoutNs) {
            leave(sender);
            evictions++;
        }
        sweep = (sweep + 1) % capacity;
    }

    private void leave(int sender) {
        Entry e = set.remove(sender);
        slots[e.slot] = null;
        freeSlots.addLast(e.slot);
    }

    private boolean outOfRange(int sender) {
        boolean out = sender < 0 || sender >= 1L << senderIdBits;
        senderOutOfRange += out ? 1 : 0;
        return out;
    }

    /** A message of {@code sender} starts now (its first packet, or a look-ahead). */
    private void start(int sender, long nowNs) {
        Entry e = set.get(sender);
        if (e != null) {
            if (e.messages == maxMessages) {
                messageCountSaturated++;
            } else {
                e.messages++;
            }
        } else if (!freeSlots.isEmpty()) {
            e = new Entry();
            e.slot = freeSlots.removeFirst();
            e.messages = 1;
            slots[e.slot] = sender;
            set.put(sender, e);
            adds++;
        } else {
            overflow++;         // counted, and still in n
            overflowed++;
            return;
        }
        e.lastNs = nowNs;
    }

    private void end(int sender) {
        Entry e = set.get(sender);
        if (e != null) {
            if (--e.messages == 0) {
                leave(sender);
                removes++;
            }
        } else if (overflow > 0) {
            overflow--;         // one of the senders that found the set full
        } else {
            endsWithoutStart++;
        }
    }

    private Reply reply() {
        int n = state == State.NON_RECEIVER_CONGESTION ? 1 : Math.max(1, activeSenders());
        return new Reply(n, state != State.RECEIVER_CONGESTION);
    }

    /**
     * One data packet: its sender, whether it starts and/or ends its message, whether its message was
     * announced by a look-ahead, its ECN mark and bytes. The first packet of an announced message
     * whose start a look-ahead already counted does not count it again.
     */
    public Reply packet(int sender, boolean first, boolean last, boolean announced, boolean ecn, int bytes, long nowNs) {
        closeWindows(nowNs);
        evictIdle(nowNs);
        if (outOfRange(sender)) {
            windowBytes += bytes;
            windowEcn |= ecn;
            return reply();
        }
        Entry known = set.get(sender);
        if (first && announced && known != null && known.announced > 0) {
            known.announced--;
        } else if (first) {
            start(sender, nowNs);
        }
        Entry e = set.get(sender);
        if (e != null) {
            e.lastNs = nowNs;
        }
        if (last) {
            end(sender);
        }
        windowBytes += bytes;
        windowEcn |= ecn;
        return reply();
    }

    /**
     * Sec. III-D: incast group {@code group} names its senders; the first notification of a group
     * starts a message for each, as if it began now (later ones of the same group change nothing).
     */
    public void lookAhead(int group, int[] senders, long nowNs) {
        closeWindows(nowNs);
        evictIdle(nowNs);
        if (groupsSeen.contains(group)) {
            return;
        }
        groupsSeen.addLast(group);
        if (groupsSeen.size() > GROUPS_REMEMBERED) {
            groupsSeen.removeFirst();
        }
        for (int s : senders) {
            if (outOfRange(s)) {
                continue;
            }
            start(s, nowNs);
            Entry e = set.get(s);
            if (e != null) {
                e.announced++;
            }
            lookAheadAdds++;
        }
    }
}
