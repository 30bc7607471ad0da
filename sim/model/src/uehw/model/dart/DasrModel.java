// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import uehw.model.Counters;

/**
 * Dart's receiver half, direct apportioning of sending rates (dart.txt Sec. III-A..D, Fig. 4 and 5),
 * as the receiver NIC runs it: the specification of the {@code dart-dasr} block, bit for bit. The
 * active unique sender set (AUSS) with each sender's count of messages in flight and the time of
 * its last packet, the look-ahead of an incast group, the congestion state machine, and per data
 * packet the n (and whether the ECN echo passes) its ACK carries. Integer arithmetic, times in ns
 * modulo 2^32; the rules depend on the order of the calls alone, never on clocks.
 *
 * <p>The set is {@code capacity} slots, as in the hardware's RAM. Free slots wait in a free list
 * (initially 0, 1, ..., capacity - 1) and a new sender takes the one at its head. A sweep looks at
 * one slot per call, in turn: an occupied slot whose sender has been idle longer than the timeout
 * is evicted (soft state, Sec. III-B) and its slot goes to the tail of the free list; a slot whose
 * sender left (its last message ended) goes there when the sweep next passes it, at most
 * {@code capacity} calls later. A crashed sender so leaves the set at most {@code capacity} calls
 * after its timeout.
 *
 * <p>Order of one call (a data packet, or one sender of a look-ahead): the throughput window is
 * closed if it has ended (Fig. 5), the sweep looks at its slot, the call is applied, its bytes and
 * ECN mark are counted in the window, and the reply is formed.
 */
public final class DasrModel {
    /** Fig. 5. */
    public enum State { NO_CONGESTION, RECEIVER_CONGESTION, NON_RECEIVER_CONGESTION }

    /** What the packet's ACK carries: n, and whether its ECN echo passes. */
    public record Reply(int n, boolean ecnPass) {
    }

    /** Times are ns modulo 2^32 (the block's {@code now} input). */
    public static final long TIME_MASK = 0xFFFF_FFFFL;
    /** n, and the count of senders that found the set full, saturate here (16-bit fields). */
    public static final int N_MAX = 0xFFFF;
    /** Look-ahead group ids are 16 bits; the last 16 groups are remembered. */
    public static final int GROUP_MASK = 0xFFFF;
    public static final int GROUPS_REMEMBERED = 16;
    /** The window's byte count saturates here (32 bits). */
    public static final long BYTES_MAX = 0xFFFF_FFFFL;

    public final int capacity;
    public final int maxMessages;
    /** Sender ids are this many bits (a generation parameter of the block; 16: 64K sender NICs). */
    public final int senderIdBits;
    /** Soft state (Sec. III-B): a sender idle longer than this (ns, below 2^32) is evicted (paper: about 2 s). */
    public long idleTimeoutNs;
    /** The receive throughput is measured over windows of this many ns (below 2^32) ... */
    public long windowNs;
    /** ... and is "at line rate" when the window's bytes reach this many (line rate x window x a fraction). */
    public long lineRateBytes;

    // The slots: owner, messages in flight, messages a look-ahead announced whose first packet has
    // not come yet, last packet's time; occupied; waiting in the free list.
    private final int[] owner;
    private final int[] messages;
    private final int[] announced;
    private final long[] lastNs;
    private final boolean[] occupied;
    private final boolean[] queued;
    private final Map<Integer, Integer> slotOf = new HashMap<>();
    private final ArrayDeque<Integer> freeSlots = new ArrayDeque<>();
    private int sweep;
    private final ArrayDeque<Integer> groupsSeen = new ArrayDeque<>();
    /** Whether the look-ahead notification being read counts (its group was new). */
    private boolean notificationCounts;
    private int overflow;
    private State state = State.NO_CONGESTION;
    private long windowStart;
    private long windowBytes;
    private boolean windowEcn;

    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("PACKETS", "LOOK_AHEAD_ENTRIES", "ADDS", "REMOVES", "EVICTIONS", "OVERFLOWED", "LOOK_AHEAD_ADDS", "LOOK_AHEAD_SKIPPED", "STATE_CHANGES", "ENDS_WITHOUT_START", "MESSAGE_COUNT_SATURATED", "SENDER_OUT_OF_RANGE");

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
        owner = new int[capacity];
        messages = new int[capacity];
        announced = new int[capacity];
        lastNs = new long[capacity];
        occupied = new boolean[capacity];
        queued = new boolean[capacity];
        for (int i = 0; i < capacity; i++) {
            freeSlots.addLast(i);
            queued[i] = true;
        }
    }

    public State state() {
        return state;
    }

    /** |AUSS|. */
    public int members() {
        return slotOf.size();
    }

    /** Slots in the free list (the FREE CSR). */
    public int freeSlots() {
        return freeSlots.size();
    }

    /** Senders that found the set full and have not ended yet (saturating at {@link #N_MAX}). */
    public int overflow() {
        return overflow;
    }

    /** |AUSS| plus the senders that found the set full (Sec. III-B: n = |AUSS|). */
    public int activeSenders() {
        return slotOf.size() + overflow;
    }

    public boolean contains(int sender) {
        return slotOf.containsKey(sender);
    }

    /**
     * Fig. 5 at the end of the throughput window: ECN marks with the receiver at line rate is
     * receiver congestion, marks below it non-receiver congestion, no marks no congestion. When a
     * whole empty window has passed too, it ends any congestion and the next window starts now.
     */
    private void closeWindow(long nowNs) {
        long elapsed = (nowNs - windowStart) & TIME_MASK;
        if (elapsed < windowNs) {
            return;
        }
        setState(!windowEcn ? State.NO_CONGESTION
                : windowBytes >= lineRateBytes ? State.RECEIVER_CONGESTION : State.NON_RECEIVER_CONGESTION);
        if (elapsed >= 2 * windowNs) {
            setState(State.NO_CONGESTION);
            windowStart = nowNs & TIME_MASK;
        } else {
            windowStart = (windowStart + windowNs) & TIME_MASK;
        }
        windowBytes = 0;
        windowEcn = false;
    }

    private void setState(State next) {
        if (next != state) {
            counters.inc("STATE_CHANGES");
            state = next;
        }
    }

    /** The sweep: one slot a call. An idle sender is evicted; a free slot not in the free list joins it. */
    private void sweep(long nowNs) {
        int k = sweep;
        sweep = (sweep + 1) % capacity;
        if (occupied[k]) {
            if (((nowNs - lastNs[k]) & TIME_MASK) > idleTimeoutNs) {
                leave(k);
                counters.inc("EVICTIONS");
                freeSlots.addLast(k);
                queued[k] = true;
            }
        } else if (!queued[k]) {
            freeSlots.addLast(k);
            queued[k] = true;
        }
    }

    private void leave(int slot) {
        occupied[slot] = false;
        slotOf.remove(owner[slot]);
    }

    private boolean outOfRange(int sender) {
        boolean out = sender < 0 || sender >= 1L << senderIdBits;
        counters.add("SENDER_OUT_OF_RANGE", out ? 1 : 0);
        return out;
    }

    /** A message of {@code sender} starts now (its first packet, or a look-ahead); its slot, or -1 if the set was full. */
    private int start(int sender, long nowNs) {
        Integer slot = slotOf.get(sender);
        if (slot != null) {
            if (messages[slot] == maxMessages) {
                counters.inc("MESSAGE_COUNT_SATURATED");
            } else {
                messages[slot]++;
            }
            return slot;
        }
        if (!freeSlots.isEmpty()) {
            int s = freeSlots.removeFirst();
            queued[s] = false;
            occupied[s] = true;
            owner[s] = sender;
            messages[s] = 1;
            announced[s] = 0;
            slotOf.put(sender, s);
            counters.inc("ADDS");
            return s;
        }
        if (overflow < N_MAX) {
            overflow++;         // counted, and still in n
        }
        counters.inc("OVERFLOWED");
        return -1;
    }

    private void end(Integer slot) {
        if (slot != null) {
            if (--messages[slot] == 0) {
                leave(slot);
                counters.inc("REMOVES");
            }
        } else if (overflow > 0) {
            overflow--;         // one of the senders that found the set full
        } else {
            counters.inc("ENDS_WITHOUT_START");
        }
    }

    private void count(boolean ecn, int bytes) {
        windowBytes = Math.min(BYTES_MAX, windowBytes + bytes);
        windowEcn |= ecn;
    }

    private Reply reply() {
        int n = state == State.NON_RECEIVER_CONGESTION ? 1 : Math.min(N_MAX, Math.max(1, activeSenders()));
        return new Reply(n, state != State.RECEIVER_CONGESTION);
    }

    /**
     * One data packet: its sender, whether it starts and/or ends its message, whether its message was
     * announced by a look-ahead, its ECN mark and bytes (0..65535). The first packet of an announced
     * message whose start a look-ahead already counted does not count it again.
     */
    public Reply packet(int sender, boolean first, boolean last, boolean announcedFirst, boolean ecn, int bytes, long nowNs) {
        closeWindow(nowNs);
        sweep(nowNs);
        counters.inc("PACKETS");
        if (!outOfRange(sender)) {
            Integer slot = slotOf.get(sender);
            if (first && announcedFirst && slot != null && announced[slot] > 0) {
                announced[slot]--;
            } else if (first) {
                int s = start(sender, nowNs);
                slot = s < 0 ? null : s;
            }
            if (slot != null) {
                lastNs[slot] = nowNs & TIME_MASK;
            }
            if (last) {
                end(slot);
            }
        }
        count(ecn, bytes);
        return reply();
    }

    /**
     * Sec. III-D: incast group {@code group} names its senders; the first notification of a group
     * starts a message for each, as if it began now (later ones of the same group change nothing).
     * One call per sender named, as the block takes them; an empty notification changes nothing.
     */
    public void lookAhead(int group, int[] senders, long nowNs) {
        for (int i = 0; i < senders.length; i++) {
            lookAheadEntry(group, senders[i], i == 0, nowNs);
        }
    }

    /**
     * One sender of a look-ahead notification; {@code firstOfNotification} marks the notification's
     * first, whose group decides whether the whole notification counts. Entries before any first are
     * skipped (counted).
     */
    public void lookAheadEntry(int group, int sender, boolean firstOfNotification, long nowNs) {
        closeWindow(nowNs);
        sweep(nowNs);
        counters.inc("LOOK_AHEAD_ENTRIES");
        if (firstOfNotification) {
            int g = group & GROUP_MASK;
            notificationCounts = !groupsSeen.contains(g);
            if (notificationCounts) {
                groupsSeen.addLast(g);
                if (groupsSeen.size() > GROUPS_REMEMBERED) {
                    groupsSeen.removeFirst();
                }
            }
        }
        if (!notificationCounts) {
            counters.inc("LOOK_AHEAD_SKIPPED");
            return;
        }
        if (outOfRange(sender)) {
            return;
        }
        int slot = start(sender, nowNs);
        if (slot >= 0) {
            lastNs[slot] = nowNs & TIME_MASK;
            if (announced[slot] == maxMessages) {
                counters.inc("MESSAGE_COUNT_SATURATED");
            } else {
                announced[slot]++;
            }
        }
        counters.inc("LOOK_AHEAD_ADDS");
    }
}
