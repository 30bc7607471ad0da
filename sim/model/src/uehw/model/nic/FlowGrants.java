// SPDX-License-Identifier: Apache-2.0
package uehw.model.nic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The NIC engine's flow state and grant path, clock by clock (docs/nic-engine.md, "Flow state and
 * grants"): each flow's counters written by the op port and by the grant path, the admission rule,
 * a check of a flow after each write that sets or clears its picker bit, and the grant picker
 * (GrantPicker). With message boundaries each flow also holds a ring of message ends (queued
 * counts the op port writes) and the count its grants passed: a new packet stops at the next end and
 * says `last`. Edge numbers count from the first edge that samples the op port ready.
 */
public final class FlowGrants {
    /** Edges from an op's acceptance to its state write (readers see it from the edge after). */
    public static final int OP_TO_WRITE = 3;
    /** Edges from a write to its check's picker update: read the edge after, three stages. */
    public static final int WRITE_TO_UPDATE = 5;
    /** Edges from a taken pick to its state write, its FIFO push and its refusal pulse (the pick registered, then read). */
    public static final int TAKE_TO_WRITE = 5;
    private static final long MASK = 0xFFFF_FFFFL;

    /**
     * A change of a flow's state: bytes added to the four counters, a window when setWindow. A
     * timeout op (a candidate of the timeout scan) adds only if the flow's retired count is still
     * `expect`. With `end` the queued count after the op ends a message.
     */
    public record Op(int flow, long queued, long retired, long resend, long credit, boolean setWindow, long window,
                     boolean timeout, long expect, boolean end) {
        public Op(int flow, long queued, long retired, long resend, long credit, boolean setWindow, long window) {
            this(flow, queued, retired, resend, credit, setWindow, window, false, 0, false);
        }

        public Op(int flow, long queued, long retired, long resend, long credit, boolean setWindow, long window,
                  boolean timeout, long expect) {
            this(flow, queued, retired, resend, credit, setWindow, window, timeout, expect, false);
        }

        /** The op that applies a timeout candidate. */
        public static Op timeout(Candidate c) {
            return new Op(c.flow(), 0, c.bytes(), c.resend(), 0, false, 0, true, c.expect());
        }

        public static Op doorbell(int flow, long bytes) {
            return new Op(flow, bytes, 0, 0, 0, false, 0);
        }

        /** A doorbell whose bytes end a message when `last`. */
        public static Op doorbell(int flow, long bytes, boolean last) {
            return new Op(flow, bytes, 0, 0, 0, false, 0, false, 0, last);
        }

        public static Op window(int flow, long window) {
            return new Op(flow, 0, 0, 0, 0, true, window);
        }
    }

    /** The timeout scan's candidate: the flow, its oldest packet's wire bytes and payload, the retired count read. */
    public record Candidate(int flow, int bytes, int resend, long expect) {
    }

    /** A timeout the op port applied: the flow, the wire bytes retired. */
    public record TimedOut(int flow, int bytes) {
    }

    /** A grant: the flow, the PSN (the flow's next new PSN), payload bytes, a resend or not, the end of a message or not. */
    public record Grant(int flow, long psn, int bytes, boolean resend, boolean last) {
    }

    /**
     * The op port's counters and window, the grant path's counters (all mod 2^32), with pacing
     * the grant path's paced toggle and whether it differs from the released one (held), with
     * message boundaries whether an end is written and not passed (endPending), that end, and the
     * count of ends passed (head, mod 2 x messageEnds).
     */
    public record State(long queued, long retired, long resend, long credit, long window,
                        long granted, long resent, long sent, long psn, boolean paced, boolean held,
                        boolean endPending, long end, int head) {
    }

    /** With pacing: a grant for the pacer, as its state is written (its wire bytes, the flow's paced toggle after it). */
    public record PaceSent(int flow, int wire, boolean paced) {
    }

    /** With pacing: a flow released (the toggle of the grant released). */
    public record PaceRelease(int flow, boolean paced) {
    }

    /** The admission's answer: the next packet's bytes, a resend or not, admitted or not, the end of its message or not. */
    public record Admission(boolean admit, int bytes, boolean resend, boolean last) {
    }

    private record Timed<T>(long edge, T value) {
    }

    private final int flows;
    private final boolean creditOn;
    private final boolean pacing;
    // with pacing: the released toggle as its RAMs hold it
    private final boolean[] releasedSeen;
    private final int fifoDepth;
    private final int messageEnds;
    private long messages;
    private final GrantPicker picker;
    private int mss;
    private int overhead;
    // [flow][queued, retired, resend, credit, window, tail, ends...]: as the op port sees them (all earlier ops) and as RAM readers do
    private final long[][] own;
    private final long[][] ownSeen;
    private static final int TAIL = 5;
    private static final int ENDS = 6;
    // [flow][granted, resent, sent, psn, paced (0/1), head]
    private final long[][] sent;
    private final Deque<Timed<long[]>> ownWrites = new ArrayDeque<>(); // value: {flow, own fields..., retires, now}
    private final Deque<Timed<Integer>> opChecks = new ArrayDeque<>();
    private final Deque<Timed<Integer>> grantChecks = new ArrayDeque<>();
    private final Deque<Timed<GrantPicker.Update>> opUpdates = new ArrayDeque<>();
    private final Deque<Timed<GrantPicker.Update>> grantUpdates = new ArrayDeque<>();
    private final Deque<Timed<Object[]>> taken = new ArrayDeque<>();   // {flow, Admission, State}
    private final Deque<Timed<Grant>> fifo = new ArrayDeque<>();       // edge: the push
    private final Deque<Long> takeEdges = new ArrayDeque<>();
    private boolean open;
    private int pickRead = -1;
    private long edge;
    private boolean refusedNow;
    private long refusals;
    // the timers: the time of each flow's last retiring op and of its first packet after it was idle, as the RAMs hold them
    private final long[] retiredAtSeen;
    private final long[] startedAtSeen;
    private long rto;
    /** The scan's read of the edge before ({flow, sent, retired, retiredAt, startedAt}) and its differences ({flow, inFlight, ages, retired}). */
    private long[] scanRead;
    private long[] scanT1;
    private Candidate scanT2;
    private Candidate slot;
    private final Deque<Long> timeoutOpEdges = new ArrayDeque<>();
    private final Deque<Timed<TimedOut>> timedOut = new ArrayDeque<>();   // edge: the one that samples it

    public FlowGrants(int flows, boolean creditOn, int pickerDepth, int fifoDepth, int mss, int overhead) {
        this(flows, creditOn, pickerDepth, fifoDepth, mss, overhead, false);
    }

    /** With pacing: a granted flow is held until its release ({@link #edge(Op, boolean, long, boolean, PaceRelease)}); two message ends. */
    public FlowGrants(int flows, boolean creditOn, int pickerDepth, int fifoDepth, int mss, int overhead, boolean pacing) {
        this(flows, creditOn, pickerDepth, fifoDepth, mss, overhead, pacing, 2);
    }

    /** With `messageEnds` message ends a flow (1, 2 or 4; 0: no message boundaries). */
    public FlowGrants(int flows, boolean creditOn, int pickerDepth, int fifoDepth, int mss, int overhead, boolean pacing, int messageEnds) {
        if (messageEnds != 0 && messageEnds != 1 && messageEnds != 2 && messageEnds != 4) {
            throw new IllegalArgumentException("messageEnds " + messageEnds + " is not 0, 1, 2 or 4");
        }
        this.messageEnds = messageEnds;
        this.flows = flows;
        this.creditOn = creditOn;
        this.pacing = pacing;
        this.releasedSeen = new boolean[flows];
        this.fifoDepth = fifoDepth;
        this.picker = new GrantPicker(flows, pickerDepth);
        this.own = new long[flows][ENDS + messageEnds];
        this.ownSeen = new long[flows][ENDS + messageEnds];
        this.sent = new long[flows][6];
        this.retiredAtSeen = new long[flows];
        this.startedAtSeen = new long[flows];
        setMss(mss);
        this.overhead = overhead;
    }

    public void setMss(int mss) {
        if (mss < 1 || mss > 0xFFFF) {
            throw new IllegalArgumentException("mss " + mss + " is outside 1..65535");
        }
        this.mss = mss;
    }

    /**
     * The admission rule (uec.cpp:1130-1135: cwnd >= in_flight + packet, wire bytes; with RCCC
     * credit > 0, uec.cpp:1770-1786): the counters' differences read as signed 32-bit numbers, a
     * negative in-flight count as none, a resend before new bytes; a held flow (pacing) none.
     */
    public static Admission admit(State s, int mss, int overhead, boolean creditOn) {
        int inFlight = (int) (s.sent() - s.retired());
        // new bytes up to the pending message end, else all queued; an end pending with none left: an empty message's packet
        int pending = (int) ((s.endPending() ? s.end() : s.queued()) - s.granted());
        int resend = (int) (s.resend() - s.resent());
        int credit = (int) (s.credit() - s.sent());
        long room = (s.window() & MASK) - overhead - Math.max(inFlight, 0);
        boolean hasResend = resend > 0;
        boolean hasQueued = pending > 0 || s.endPending();
        int bytes = hasResend ? (resend >= mss ? mss : resend & 0xFFFF) : (pending >= mss ? mss : pending & 0xFFFF);
        boolean admit = (hasResend || hasQueued) && room >= bytes && (!creditOn || credit > 0) && !s.held();
        return new Admission(admit, bytes, hasResend, !hasResend && s.endPending() && pending <= mss);
    }

    /** The retransmission timeout in ns (0: none), as the RTO input holds it. */
    public void setRto(long rto) {
        this.rto = rto & MASK;
    }

    private int scanFirst;

    /** The flow the timeout scan reads at the next edge. */
    public int timeoutScan() {
        return (int) ((scanFirst + edge) % flows);
    }

    /** Aligns the scan: it reads `flow` at the next edge (an engine starts its model some edges after the flow state's sweep). */
    public void setTimeoutScan(int flow) {
        scanFirst = (int) (((flow - edge) % flows + flows) % flows);
    }

    /** The timeout scan's candidate offered before the next edge, or null. */
    public Candidate timeoutCandidate() {
        return slot;
    }

    /** The timeout the op port applied, sampled at the next edge, or null. */
    public TimedOut timedOut() {
        Timed<TimedOut> t = timedOut.peek();
        return t != null && t.edge() == edge ? t.value() : null;
    }

    /** The op port is ready (after the post-reset sweep, always). */
    public boolean opReady() {
        return true;
    }

    /** The grant offered before the next edge (the FIFO's head), or null. */
    public Grant grant() {
        Timed<Grant> head = fifo.peek();
        return head != null && head.edge() < edge ? head.value() : null;
    }

    /** The refusal pulse sampled at the next edge. */
    public boolean refused() {
        return refusedNow;
    }

    public long refusals() {
        return refusals;
    }

    /** The flow's state as the RAMs hold it now. */
    public State state(int flow) {
        long[] o = ownSeen[flow];
        long[] s = sent[flow];
        boolean paced = s[4] == 1;
        boolean endPending = messageEnds > 0 && o[TAIL] != s[5];
        long end = messageEnds > 0 ? o[ENDS + (int) (s[5] % messageEnds)] : 0;
        return new State(o[0], o[1], o[2], o[3], o[4], s[0], s[1], s[2], s[3], paced, pacing && paced != releasedSeen[flow],
                endPending, end, (int) s[5]);
    }

    /** With message boundaries: the count of message ends the flow's grants passed, as the RAMs hold it now (mod 2 x messageEnds). */
    public int head(int flow) {
        return (int) sent[flow][5];
    }

    /** Message ends a flow holds at most (0: no message boundaries). */
    public int messageEnds() {
        return messageEnds;
    }

    /** Grants that ended a message (MESSAGES). */
    public long messages() {
        return messages;
    }

    /** The in-flight query's answer for a flow sampled at the next edge (it shows two edges later): sent - retired, below zero 0. */
    public long inFlight(int flow) {
        State s = state(flow);
        return Math.max((int) (s.sent() - s.retired()), 0);
    }

    /** With pacing: the grant whose state the next edge writes (io_sent, sampled at that edge), or null. */
    public PaceSent paceSent() {
        for (Timed<Object[]> t : taken) {
            if (t.edge() == edge && ((Admission) t.value()[1]).admit()) {
                Admission a = (Admission) t.value()[1];
                return new PaceSent((int) t.value()[0], a.bytes() + overhead, !((State) t.value()[2]).paced());
            }
        }
        return null;
    }

    /** One edge with no time and no timeouts held: {@link #edge(Op, boolean, long, boolean)}. */
    public void edge(Op op, boolean grantReady) {
        edge(op, grantReady, 0, false);
    }

    /**
     * One edge: the op sampled (null: none), the grant output's ready, the time (`now`) and the
     * timeout hold input the edge samples.
     */
    public void edge(Op op, boolean grantReady, long now, boolean timeoutHold) {
        edge(op, grantReady, now, timeoutHold, null);
    }

    /** As {@link #edge(Op, boolean, long, boolean)}, with pacing's release the edge samples (null: none). */
    public void edge(Op op, boolean grantReady, long now, boolean timeoutHold, PaceRelease release) {
        if (release != null && !pacing) {
            throw new IllegalArgumentException("a release without pacing");
        }
        long e = edge;
        now &= MASK;
        // the timeout scan: the decision of the edge before into the slot
        // (only while no timeout op is between its acceptance and its result, and none held)
        while (!timeoutOpEdges.isEmpty() && timeoutOpEdges.peek() + 3 < e) {
            timeoutOpEdges.poll();
        }
        boolean timeoutInFlight = timeoutOpEdges.stream().anyMatch(a -> a + 1 <= e && (a + 3 > e || timedOut.stream().anyMatch(t -> t.edge() == e)));
        if (scanT2 != null && slot == null && !timeoutHold && !timeoutInFlight) {
            slot = scanT2;
        }
        // t2: the decision on the differences of the edge before
        scanT2 = null;
        if (scanT1 != null) {
            int inFlight = (int) scanT1[1];
            long packet = (long) mss + overhead;
            if (rto != 0 && inFlight > 0 && scanT1[2] >= rto && scanT1[3] >= rto) {
                int bytes = (int) Math.min(inFlight, packet);
                scanT2 = new Candidate((int) scanT1[0], bytes, bytes > overhead ? bytes - overhead : 0, scanT1[4]);
            }
        }
        // t1: the differences of the read of the edge before, with this edge's time
        scanT1 = scanRead == null ? null : new long[] {scanRead[0], (scanRead[1] - scanRead[2]) & MASK,
            (now - scanRead[3]) & MASK, (now - scanRead[4]) & MASK, scanRead[2]};
        // t0: this edge reads flow e mod N (the RAMs before this edge's writes)
        int k = timeoutScan();
        scanRead = new long[] {k, sent[k][2], ownSeen[k][1], retiredAtSeen[k], startedAtSeen[k]};
        // the pick taken at the edge before reads both states at this edge (the writes of earlier edges)
        int offer = picker.offer();
        boolean take = open && offer >= 0;
        if (pickRead >= 0) {
            taken.add(new Timed<>(e + TAKE_TO_WRITE - 1, new Object[] {pickRead, admit(state(pickRead), mss, overhead, creditOn), state(pickRead)}));
        }
        pickRead = take ? offer : -1;
        if (take) {
            takeEdges.add(e);
        }
        // the checks that read at this edge
        check(opChecks, opUpdates, e);
        check(grantChecks, grantUpdates, e);
        // the op: its sums over all earlier ops of the flow, written OP_TO_WRITE edges later
        if (op != null) {
            long[] o = own[op.flow()];
            if (op.timeout()) {
                if (slot == null || !slot.equals(new Candidate(op.flow(), (int) op.retired(), (int) op.resend(), op.expect()))) {
                    throw new IllegalStateException("a timeout op at edge " + e + ", " + op + ", that is not the scan's candidate " + slot);
                }
                slot = null;
                timeoutOpEdges.add(e);
            }
            // a timeout applies only if nothing was retired since the scan read the flow
            boolean cancel = op.timeout() && o[1] != (op.expect() & MASK);
            o[0] = (o[0] + op.queued()) & MASK;
            o[1] = (o[1] + (cancel ? 0 : op.retired())) & MASK;
            o[2] = (o[2] + (cancel ? 0 : op.resend())) & MASK;
            o[3] = (o[3] + op.credit()) & MASK;
            if (op.setWindow()) {
                o[4] = op.window() & MASK;
            }
            if (op.end() && messageEnds > 0) {
                o[ENDS + (int) (o[TAIL] % messageEnds)] = o[0];
                o[TAIL] = (o[TAIL] + 1) % (2L * messageEnds);
            }
            boolean retires = op.retired() != 0 && !cancel;
            long[] w = new long[o.length + 3];
            w[0] = op.flow();
            System.arraycopy(o, 0, w, 1, o.length);
            w[o.length + 1] = retires ? 1 : 0;
            w[o.length + 2] = now;
            ownWrites.add(new Timed<>(e + OP_TO_WRITE, w));
            if (op.timeout() && !cancel) {
                timedOut.add(new Timed<>(e + 3, new TimedOut(op.flow(), (int) op.retired())));
            }
        }
        // the picker, its two ports' updates of this edge
        List<GrantPicker.Update> updates = new ArrayList<>();
        GrantPicker.Update u0 = due(opUpdates, e);
        GrantPicker.Update u1 = due(grantUpdates, e);
        // port order: a later port wins; GrantPicker takes the list in port order (absent ports left out)
        if (u0 != null) {
            updates.add(u0);
        }
        if (u1 != null) {
            updates.add(u1);
        }
        picker.edge(open, updates);
        // the held count before this edge: picks in the path (taken at e-5 .. e-1) and the FIFO
        while (!takeEdges.isEmpty() && takeEdges.peek() < e - 5) {
            takeEdges.poll();
        }
        long inPath = takeEdges.stream().filter(t -> t < e).count();
        int occupancy = fifo.size();
        // the FIFO: a pop of a head pushed before, then this edge's push
        if (grantReady && grant() != null) {
            fifo.poll();
        }
        refusedNow = false;
        while (!taken.isEmpty() && taken.peek().edge() == e) {
            Object[] t = taken.poll().value();
            int flow = (int) t[0];
            Admission a = (Admission) t[1];
            State s = (State) t[2];
            if (a.admit()) {
                long[] b = sent[flow];
                b[0] = (s.granted() + (a.resend() ? 0 : a.bytes())) & MASK;
                b[1] = (s.resent() + (a.resend() ? a.bytes() : 0)) & MASK;
                b[2] = (s.sent() + overhead + a.bytes()) & MASK;
                b[3] = (s.psn() + (a.resend() ? 0 : 1)) & MASK;
                b[4] = s.paced() ? 0 : 1;
                if (a.last()) {
                    b[5] = (s.head() + 1) % (2L * messageEnds);
                    messages++;
                }
                // nothing in flight before this packet: the flow's timer starts now
                if ((int) (s.sent() - s.retired()) <= 0) {
                    startedAtSeen[flow] = now;
                }
                fifo.add(new Timed<>(e, new Grant(flow, s.psn(), a.bytes(), a.resend(), a.last())));
                if (fifo.size() > fifoDepth) {
                    throw new IllegalStateException("the grant FIFO overflowed at edge " + e);
                }
                if (!pacing) {
                    grantChecks.add(new Timed<>(e + 1, flow));
                }
            }
        }
        // a refusal is c3's pulse, sampled at the edge a write would have had
        for (Timed<Object[]> t : taken) {
            if (t.edge() == e + 1 && !((Admission) t.value()[1]).admit()) {
                refusedNow = true;
                refusals++;
            }
        }
        // with pacing: the release of this edge, written now; its check reads at the next edge
        if (release != null) {
            releasedSeen[release.flow()] = release.paced();
            grantChecks.add(new Timed<>(e + 1, release.flow()));
        }
        // the op port's writes of this edge
        while (!ownWrites.isEmpty() && ownWrites.peek().edge() == e) {
            long[] w = ownWrites.poll().value();
            int fields = w.length - 3;
            System.arraycopy(w, 1, ownSeen[(int) w[0]], 0, fields);
            if (w[fields + 1] == 1) {
                retiredAtSeen[(int) w[0]] = w[fields + 2];
            }
            opChecks.add(new Timed<>(e + 1, (int) w[0]));
        }
        open = inPath + occupancy <= fifoDepth - 2;
        while (!timedOut.isEmpty() && timedOut.peek().edge() <= e) {
            timedOut.poll();
        }
        edge++;
    }

    private void check(Deque<Timed<Integer>> reads, Deque<Timed<GrantPicker.Update>> updates, long e) {
        while (!reads.isEmpty() && reads.peek().edge() == e) {
            int flow = reads.poll().value();
            boolean eligible = admit(state(flow), mss, overhead, creditOn).admit();
            updates.add(new Timed<>(e + WRITE_TO_UPDATE - 1, new GrantPicker.Update(flow, eligible)));
        }
    }

    private static GrantPicker.Update due(Deque<Timed<GrantPicker.Update>> updates, long e) {
        if (!updates.isEmpty() && updates.peek().edge() == e) {
            return updates.poll().value();
        }
        return null;
    }

    public int flows() {
        return flows;
    }
}
