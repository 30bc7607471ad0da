// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import uehw.model.Counters;

/**
 * Fixed-point golden model of the SMaRTT window unit (smartt-reps.txt Sec. 3.2-3.6, Alg. 1-3),
 * bit-exact with the RTL: every width, truncation and saturation below is the hardware's. The
 * exact reference is {@link SmarttExactModel}; docs/smartt.md states the formats.
 *
 * <p>cwnd is stored with {@link #F} fractional bits (units of 2^-F bytes). Division by the variable
 * RTT and window uses a reciprocal table: x = 2^p (1 + m), 1/x ~ table[top I bits of m] / 2^(V+p).
 *
 * <p>The model is shaped like the RTL: each rule of the RTL's table (SmarttRules) is a method of
 * its name here ({@link #fairDecrease}, {@link #quickAdapt}, ...), the update's code is its
 * {@link Rule} and the rule's counter is counted from it (as the table counts it), and the two
 * profiles are one {@link SmarttProfile} implemented twice: the paper's Alg. 1-3
 * ({@link SmarttPaperProfile}) and the authors' simulator ({@link SmarttReferenceProfile}).
 */
public final class SmarttFixedModel {
    public enum Kind { ACK, NACK, TIMEOUT, INIT }

    /** What an event did to the window: the RTL's rule code (the same order) and the counter the table counts it in. */
    public enum Rule {
        INIT(null), IGNORED("IGNORED"), HELD("WTD_HELD"), FAIR_DECREASE("FAIR_DECREASES"),
        MULTIPLICATIVE_DECREASE("MULTIPLICATIVE_DECREASES"), FAIR_INCREASE("FAIR_INCREASES"),
        MULTIPLICATIVE_INCREASE("MULTIPLICATIVE_INCREASES"), QUICK_ADAPT("QUICK_ADAPTS"),
        /** Counted by its flag (FAST_INCREASES), also when QuickAdapt applied. */
        FAST_INCREASE(null), LOSS(null),
        /** Reference profile: an ACK with rtt = trtt exactly, which applies no case. */
        AT_TARGET("AT_TARGET");

        /** The counter the RTL's table counts this code in, or null. */
        public final String counter;

        Rule(String counter) {
            this.counter = counter;
        }
    }

    /** Bytes a NACK adds to QuickAdapt's acknowledged bytes in the reference profile (a trimmed header). */
    public static final int NACK_ACKED_BYTES = 64;

    /**
     * One event: rtt in ns (ACKs), size in bytes, unacked = the sender's bytes in flight without
     * this packet (Alg. 2 line 8, below 2^byteWidth), now in ns modulo 2^timeWidth.
     */
    public record Event(int flow, Kind kind, int size, long rtt, boolean ecn, long unacked, long now) {
    }

    /** The window update for one in-range event. */
    public record Update(int flow, long cwnd, Rule rule, boolean retransmit) {
    }

    /** Per-flow state (the RTL's SmarttFlowState, field by field). */
    public static final class State implements Cloneable {
        public long cwnd;        // 2^-F bytes
        public long acked;       // bytes ACKed in the current QuickAdapt window (Alg. 2)
        public long qaEnd;       // end of that window, ns mod 2^timeWidth
        public boolean qaStarted; // Alg. 2 line 4 "end != 0"
        public boolean triggerQa; // Alg. 1 line 30
        public long ignoreBytes;  // bytes_to_ignore - bytes_ignored, saturating at 0 (Alg. 1 lines 5, 8, 32)
        public long fiCount;      // Alg. 3 count
        public boolean fiActive;  // Alg. 3 increase
        public int wtd;           // EWMA of ECN marks, u0.13 (Sec. 3.6.1)
        /**
         * The reference profile's QuickAdapt measurement window (the RTL's early loop): rolls on
         * every event past its end, in either profile; INIT clears it.
         */
        public long windowEnd;
        public boolean windowStarted;

        @Override
        public State clone() {
            try {
                return (State) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    public static final int F = 8;
    public final int flows;
    public final int byteWidth;
    public final int timeWidth;
    public final int recipIndexBits;
    public final int recipValueBits;
    public final SmarttParams p;
    private final long[] recipTable;
    private final State[] state;

    // counters, as the CSRs name them
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("EVENTS", "ACKS", "NACKS", "TIMEOUTS", "INITS", "FAIR_DECREASES", "MULTIPLICATIVE_DECREASES", "FAIR_INCREASES", "MULTIPLICATIVE_INCREASES", "QUICK_ADAPTS", "FAST_INCREASES", "IGNORED", "WTD_HELD", "OUT_OF_RANGE", "RTT_ZERO", "RTT_BELOW_BASE", "SIZE_ZERO", "SIZE_OVER_MTU", "CLAMPED_MIN", "CLAMPED_MAX", "AT_TARGET");

    public SmarttFixedModel(int flows, int byteWidth, int timeWidth, int recipIndexBits, int recipValueBits,
                            SmarttParams params) {
        this.flows = flows;
        this.byteWidth = byteWidth;
        this.timeWidth = timeWidth;
        this.recipIndexBits = recipIndexBits;
        this.recipValueBits = recipValueBits;
        this.p = params;
        this.recipTable = reciprocalTable(recipIndexBits, recipValueBits);
        this.state = new State[flows];
        for (int i = 0; i < flows; i++) {
            state[i] = initialState();
        }
    }

    /**
     * Sec. 3.6.1: avg' = alpha ecn + (1 - alpha) avg with alpha = 2^-shift, in u0.13 with the decay
     * avg / 2^shift rounded to nearest (half up) and the sum saturated below 1.0. The rounding
     * error of each step is at most half an LSB, so the average stays within 2^(shift-1) LSBs of
     * the exact EWMA (plus one LSB where it saturates).
     */
    public static int wtdAverage(int avg, boolean ecn, int shift) {
        int frac = SmarttParams.WTD_STATE_FRAC;
        int decay = ((avg << 1) >> shift) + 1 >> 1;
        return Math.min((1 << frac) - 1, avg - decay + (ecn ? (1 << frac) >> shift : 0));
    }

    /** round(2^(V+I+1) / (2^(I+1) + 2i + 1)): 2^V / (1 + (i + 1/2) / 2^I), the reciprocal at the bin's middle. */
    public static long[] reciprocalTable(int indexBits, int valueBits) {
        long[] t = new long[1 << indexBits];
        for (int i = 0; i < t.length; i++) {
            long denom = (1L << (indexBits + 1)) + 2L * i + 1;
            t[i] = ((1L << (valueBits + indexBits + 2)) + denom) / (2 * denom);
        }
        return t;
    }

    /** The table index of x = 2^p (1 + m), x >= 1: the I bits of m below the leading one. */
    public static int reciprocalIndex(long x, int indexBits) {
        int msb = 63 - Long.numberOfLeadingZeros(x);
        long mask = (1L << indexBits) - 1;
        return (int) ((msb >= indexBits ? x >>> (msb - indexBits) : x << (indexBits - msb)) & mask);
    }

    /** {table value, p} with 1/x ~ value / 2^(V + p), for x >= 1. */
    long[] reciprocal(long x) {
        return new long[] {recipTable[reciprocalIndex(x, recipIndexBits)], 63 - Long.numberOfLeadingZeros(x)};
    }

    private long byteMax() {
        return (1L << byteWidth) - 1;
    }

    long cwndFieldMax() {
        return (1L << (byteWidth + F)) - 1;
    }

    long timeMask() {
        return (1L << timeWidth) - 1;
    }

    /**
     * INIT: the window starts at INIT_CWND, every counter at zero (clamped like any update); in the
     * reference profile FastIncrease's count starts at that window.
     */
    public State initialState() {
        State s = new State();
        s.cwnd = clamp(Math.min(p.initCwnd, byteMax()) << F, false);
        if (p.referenceProfile) {
            s.fiCount = s.cwnd >>> F; // the window FastIncrease's clean bytes must exceed: the first one
        }
        return s;
    }

    public State state(int flow) {
        return state[flow];
    }

    /** Replaces a flow's state (error measurement from random states). */
    public void setState(int flow, State s) {
        state[flow] = s;
    }

    private long clamp(long c, boolean count) {
        long lo = (long) p.mtuEff() << F;
        long hi = Math.min(p.maxCwnd, byteMax()) << F;
        // Alg. 1 line 36: cwnd = max(min(cwnd, max), mtu) -- the MTU wins if MAX_CWND < MTU.
        long cut = Math.min(c, hi);
        if (count) {
            // docs/smartt.md, "What each counter counts": CLAMPED_MIN when the window cut to MAX_CWND
            // is below MTU (so with MAX_CWND < MTU every update, even one already at MTU);
            // CLAMPED_MAX when the window is above MAX_CWND and not counted in CLAMPED_MIN.
            if (cut < lo) {
                counters.inc("CLAMPED_MIN");
            } else if (c > hi) {
                counters.inc("CLAMPED_MAX");
            }
        }
        return Math.max(cut, lo);
    }

    /** Applies one event; returns null for a flow id >= N (counted, nothing changes). */
    public Update apply(Event e) {
        if (e.flow() < 0 || e.flow() >= flows) {
            counters.inc("OUT_OF_RANGE");
            return null;
        }
        counters.inc("EVENTS");
        if (e.kind() == Kind.INIT) {
            counters.inc("INITS");
            state[e.flow()] = initialState();
            return new Update(e.flow(), state[e.flow()].cwnd >>> F, Rule.INIT, false);
        }
        State s = state[e.flow()];
        final int mtu = p.mtuEff();
        long size = e.size();
        if (size == 0) {
            counters.inc("SIZE_ZERO");
        } else if (size > mtu) {
            counters.inc("SIZE_OVER_MTU");
            size = mtu; // a packet is at most one MTU
        }
        // Alg. 2 line 8: bytes_to_ignore = unacked, or the window before QuickAdapt (CONTROL.UNACKED_FROM_WINDOW).
        if (e.unacked() < 0 || e.unacked() > byteMax()) {
            throw new IllegalArgumentException("unacked " + e.unacked() + " does not fit the " + byteWidth + "-bit port");
        }
        final long unacked = p.unackedFromWindow ? s.cwnd >>> F : e.unacked();
        final long trtt = p.targetRtt();
        final long now = e.now() & timeMask();
        final boolean expired = !s.qaStarted || ((now - s.qaEnd) & timeMask()) < (1L << (timeWidth - 1));
        // The reference profile's window: read, then rolled (in either profile) when past its end.
        final long windowEnd = s.windowEnd;
        final boolean windowStarted = s.windowStarted;
        final boolean windowExpired = !windowStarted || ((now - windowEnd) & timeMask()) < (1L << (timeWidth - 1));
        if (windowExpired) {
            s.windowEnd = (now + trtt) & timeMask();
            s.windowStarted = true;
        }
        final boolean ack = e.kind() == Kind.ACK;
        final long rtt = ack ? ackRtt(e) : 0;
        if (!ack) {
            countLoss(e.kind());
        }
        SmarttProfile profile = p.referenceProfile ? reference : paper;
        SmarttProfile.Event pe = new SmarttProfile.Event(e, s, size, rtt, unacked, trtt, now, expired, windowExpired,
                windowStarted, windowEnd);
        SmarttProfile.Outcome o = ack ? profile.ack(pe) : profile.loss(pe);
        if (o.rule().counter != null) {
            counters.inc(o.rule().counter);                                    // the table's counter of the rule
        }
        s.cwnd = profile.window(clamp(o.cwnd(), true));                        // Alg. 1 line 36
        return new Update(e.flow(), s.cwnd >>> F, o.rule(), !ack);
    }

    /** The rules, one method each (SmarttRules). */
    final SmarttRules rules = new SmarttRules(this);
    private final SmarttProfile paper = new SmarttPaperProfile(this);
    private final SmarttProfile reference = new SmarttReferenceProfile(this);

    /** An ACK's RTT as the rules take it: at least BASE_RTT (counted when 0 or below). */
    private long ackRtt(Event e) {
        counters.inc("ACKS");
        long rtt = e.rtt();
        long brtt = p.baseRttEff();
        if (rtt == 0) {
            counters.inc("RTT_ZERO");
        } else if (rtt < brtt) {
            counters.inc("RTT_BELOW_BASE");
        }
        return Math.max(rtt, brtt); // the paper's rules assume rtt >= brtt (Sec. 3.2.4)
    }

    private void countLoss(Kind kind) {
        if (kind == Kind.NACK) {
            counters.inc("NACKS");
        } else {
            counters.inc("TIMEOUTS");
        }
    }

    /** The FastIncrease flag (Alg. 3 line 4): counted in FAST_INCREASES, also when QuickAdapt applied. */
    void countFastIncrease() {
        counters.inc("FAST_INCREASES");
    }

    /** Sec. 3.6.1's average after this ACK, and whether Alg. 1 line 12 allows a decrease. */
    boolean waitToDecrease(State s, boolean ecn) {
        s.wtd = wtdAverage(s.wtd, ecn, p.wtdAlphaShift);
        return !p.wtdEnable || s.wtd >= p.wtdThreshold << (SmarttParams.WTD_STATE_FRAC - SmarttParams.WTD_FRAC);
    }

    /** Alg. 1 line 4: the acked bytes with this ACK's, saturated. */
    long ackedWith(State s, long size) {
        return Math.min(byteMax(), s.acked + size);
    }

    /** Alg. 1 line 5: the ignore bytes left after this packet, at least 0. */
    static long ignoreLeft(State s, long size) {
        return Math.max(0, s.ignoreBytes - size);
    }

    /** Alg. 3 line 2: an ACK close to the base RTT and not marked. */
    boolean clean(long rtt, boolean ecn) {
        return rtt <= p.baseRttEff() + p.fastIncreaseCloseness && !ecn;
    }

    /** Byte counts saturate at 2^byteWidth - 1. */
    long byteMaxValue() {
        return byteMax();
    }

    /** The QuickAdapt window rolls: a new measurement of one target RTT starts now (Alg. 2 lines 11-12). */
    void roll(State s, long now, long trtt) {
        s.qaEnd = (now + trtt) & timeMask();
        s.qaStarted = true;
        s.acked = 0;
    }

    /** Fractional bits of QuickAdapt's coefficient (u5.12: QA_SCALING with one more bit for the normalisation). */
    public static final int QA_COEF_FRAC = 12;
    /** Bits of an increase numerator that meet the window's reciprocal: a DSP48E2's 26 unsigned. */
    public static final int MANTISSA_BITS = 26;
}
