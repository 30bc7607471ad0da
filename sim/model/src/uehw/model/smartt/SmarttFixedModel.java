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
 */
public final class SmarttFixedModel {
    public enum Kind { ACK, NACK, TIMEOUT, INIT }

    /** What an event did to the window; the RTL's rule code has the same order. */
    public enum Rule { INIT, IGNORED, HELD, FAIR_DECREASE, MULTIPLICATIVE_DECREASE, FAIR_INCREASE,
        MULTIPLICATIVE_INCREASE, QUICK_ADAPT, FAST_INCREASE, LOSS,
        /** Reference profile: an ACK with rtt = trtt exactly, which applies no case. */
        AT_TARGET }

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

    /** {table value, p} with 1/x ~ value / 2^(V + p), for x >= 1. */
    long[] reciprocal(long x) {
        int msb = 63 - Long.numberOfLeadingZeros(x);
        long mask = (1L << recipIndexBits) - 1;
        long index = msb >= recipIndexBits ? (x >>> (msb - recipIndexBits)) & mask : (x << (recipIndexBits - msb)) & mask;
        return new long[] {recipTable[(int) index], msb};
    }

    private long byteMax() {
        return (1L << byteWidth) - 1;
    }

    private long cwndFieldMax() {
        return (1L << (byteWidth + F)) - 1;
    }

    private long timeMask() {
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
        final long cBefore = s.cwnd;
        // Alg. 2 line 8: bytes_to_ignore = unacked, or the window before QuickAdapt (CONTROL.UNACKED_FROM_WINDOW).
        if (e.unacked() < 0 || e.unacked() > byteMax()) {
            throw new IllegalArgumentException("unacked " + e.unacked() + " does not fit the " + byteWidth + "-bit port");
        }
        final long unacked = p.unackedFromWindow ? cBefore >>> F : e.unacked();
        final long trtt = p.targetRtt();
        final long now = e.now() & timeMask();
        final boolean expired = !s.qaStarted || ((now - s.qaEnd) & timeMask()) < (1L << (timeWidth - 1));
        final long qaValue = quickAdaptWindow(s.acked, scalingCoefficient()); // Alg. 2 line 7
        // The reference profile's window: read, then rolled (in either profile) when past its end.
        final long windowEnd = s.windowEnd;
        final boolean windowStarted = s.windowStarted;
        final boolean windowExpired = !windowStarted || ((now - windowEnd) & timeMask()) < (1L << (timeWidth - 1));
        if (windowExpired) {
            s.windowEnd = (now + trtt) & timeMask();
            s.windowStarted = true;
        }
        if (e.kind() != Kind.ACK) {
            countLoss(e.kind());
        }
        if (p.referenceProfile) {
            return e.kind() == Kind.ACK
                    ? ackReference(e, s, size, ackRtt(e), unacked, trtt, now, windowExpired, windowStarted, windowEnd)
                    : lossReference(e, s, size, unacked, trtt, now, windowExpired, windowStarted, windowEnd);
        }
        Rule rule;
        boolean retransmit = false;
        long c;
        if (e.kind() == Kind.ACK) {
            long rtt = ackRtt(e);
            long brtt = p.baseRttEff();
            long acked1 = Math.min(byteMax(), s.acked + size);                 // Alg. 1 line 4
            long ignore1 = Math.max(0, s.ignoreBytes - size);                 // Alg. 1 line 5
            if (ignore1 != 0) {                                               // Alg. 1 lines 8-9
                counters.inc("IGNORED");
                s.acked = acked1;
                s.ignoreBytes = ignore1;
                rule = Rule.IGNORED;
                c = s.cwnd;
            } else {
                s.ignoreBytes = 0;
                // Sec. 3.6.1: avg = alpha * ecn + (1 - alpha) * avg, alpha = 2^-shift.
                int wtd1 = wtdAverage(s.wtd, e.ecn(), p.wtdAlphaShift);
                boolean canDecrease = !p.wtdEnable                              // Alg. 1 line 12
                        || wtd1 >= p.wtdThreshold << (SmarttParams.WTD_STATE_FRAC - SmarttParams.WTD_FRAC);
                s.wtd = wtd1;
                // QuickAdapt, Alg. 2 with acked including this ACK (line 4 runs first).
                long qaOnAck = quickAdaptWindow(acked1, scalingCoefficient());
                boolean adapt = expired && s.triggerQa && s.qaStarted;          // Alg. 2 lines 3-4
                long c1 = adapt ? qaOnAck : s.cwnd;                             // Alg. 2 line 7
                if (adapt) {
                    s.triggerQa = false;
                    s.ignoreBytes = unacked;                                    // Alg. 2 line 8
                    counters.inc("QUICK_ADAPTS");
                }
                if (expired) {                                                  // Alg. 2 lines 11-12
                    s.qaEnd = (now + trtt) & timeMask();
                    s.qaStarted = true;
                    s.acked = 0;
                } else {
                    s.acked = acked1;
                }
                // FastIncrease, Alg. 3.
                boolean clean = rtt <= brtt + p.fastIncreaseCloseness && !e.ecn(); // line 2
                long count1 = clean ? Math.min(byteMax(), s.fiCount + size) : 0;  // lines 3, 10
                boolean fastIncrease = clean && (count1 > (c1 >>> F) || s.fiActive); // line 4
                s.fiCount = count1;
                s.fiActive = fastIncrease;                                        // lines 6, 11
                long c2 = fastIncrease
                        ? Math.min(cwndFieldMax(), c1 + fastIncreaseStep()) : c1; // line 5
                if (fastIncrease) {
                    counters.inc("FAST_INCREASES");
                }
                if (adapt || fastIncrease) {                                    // Alg. 1 lines 15-16
                    rule = adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE;
                    c = c2;
                } else {
                    CaseResult r = fourCases(s.cwnd, size, rtt, trtt, e.ecn(), canDecrease, false);
                    c = r.cwnd();
                    rule = r.rule();
                }
            }
        } else {
            // Alg. 1 lines 28-34: a trimmed packet's NACK, or a timeout when there is no trimming.
            retransmit = true;
            long ignore1 = Math.max(0, s.ignoreBytes - size);                 // line 5
            long c1 = Math.max(0, s.cwnd - (size << F));                      // line 29
            s.triggerQa = true;                                               // line 30
            boolean callQa = ignore1 == 0;                                    // line 32
            boolean adapt = callQa && expired && s.qaStarted;
            s.ignoreBytes = ignore1;
            c = c1;
            rule = Rule.LOSS;
            if (adapt) {
                c = qaValue;
                s.triggerQa = false;
                s.ignoreBytes = unacked;
                counters.inc("QUICK_ADAPTS");
                rule = Rule.QUICK_ADAPT;
            }
            if (callQa && expired) {
                s.qaEnd = (now + trtt) & timeMask();
                s.qaStarted = true;
                s.acked = 0;
            }
        }
        s.cwnd = clamp(c, true);                                              // Alg. 1 line 36
        return new Update(e.flow(), s.cwnd >>> F, rule, retransmit);
    }

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

    /** FAST_INCREASE_K MTUs (u5.11) in 2^-F bytes. */
    private long fastIncreaseStep() {
        return (long) p.fastIncreaseK * p.mtuEff() >>> (SmarttParams.GAIN_FRAC - F);
    }

    /** Fractional bits of QuickAdapt's coefficient (u5.12: QA_SCALING with one more bit for the normalisation). */
    public static final int QA_COEF_FRAC = 12;

    /**
     * Alg. 2 line 7, max(bytes, mtu) x scaling in 2^-F bytes, saturated, as max(bytes x coefficient,
     * mtu x QA_SCALING) with the coefficient in u5.12: QA_SCALING, or in the reference profile
     * QA_SCALING times the normalisation to one target RTT ({@link #normalisedScaling}).
     */
    long quickAdaptWindow(long bytes, long coefficient) {
        long v = Math.max(bytes * coefficient, (long) p.mtuEff() * p.qaScaling << 1) >>> (QA_COEF_FRAC - F);
        return Math.min(cwndFieldMax(), v);
    }

    /** QA_SCALING as QuickAdapt's u5.12 coefficient (the paper profile). */
    private long scalingCoefficient() {
        return (long) p.qaScaling << (QA_COEF_FRAC - SmarttParams.GAIN_FRAC);
    }

    /**
     * Reference profile: QuickAdapt's bytes normalised to one target RTT, acked x trtt / (now -
     * previous window end + trtt), folded into the coefficient: QA_SCALING x f in u5.12 (truncated),
     * f = trtt / D in u.16 (at most 1) from the reciprocal table, D = (now - end mod 2^T) + trtt (at
     * least 1).
     */
    long normalisedScaling(long now, long qaEnd, long trtt) {
        long d = Math.max(1, ((now - qaEnd) & timeMask()) + trtt);
        long[] r = reciprocal(d);
        long f16 = Math.min(1L << 16, (trtt * r[0] << 16) >>> (recipValueBits + r[1]));
        return f16 * p.qaScaling >>> (16 + SmarttParams.GAIN_FRAC - QA_COEF_FRAC);
    }

    /** Reference profile: the window kept in whole bytes (the authors' integer window). */
    private long wholeBytes(long c) {
        return c & ~((1L << F) - 1);
    }

    /** The QuickAdapt window rolls: a new measurement of one target RTT starts now (Alg. 2 lines 11-12). */
    private void roll(State s, long now, long trtt) {
        s.qaEnd = (now + trtt) & timeMask();
        s.qaStarted = true;
        s.acked = 0;
    }

    /**
     * The reference profile's ACK (docs/smartt.md): the FastIncrease count first, on every ACK; while
     * QuickAdapt's ignore window lasts only ECN-marked ACKs are skipped; after QuickAdapt an unmarked
     * ACK still counts for WTD and may FastIncrease; the measurement window rolls even while
     * ignoring; rtt = trtt applies no case; the window in whole bytes.
     */
    private Update ackReference(Event e, State s, long size, long rtt, long unacked, long trtt, long now, boolean expired,
                                boolean started, long end) {
        long acked1 = Math.min(byteMax(), s.acked + size);                       // Alg. 1 line 4
        long ignore1 = Math.max(0, s.ignoreBytes - size);                       // line 5
        boolean ignoring = ignore1 != 0;
        // Alg. 3 as the authors' code keeps it: fiCount counts down the window recorded at the last
        // unclean ACK; FastIncrease once the clean bytes since then exceed it, and on until unclean.
        boolean clean = rtt <= p.baseRttEff() + p.fastIncreaseCloseness && !e.ecn();
        boolean fast = clean && (s.fiActive || size > s.fiCount);
        s.fiCount = !clean ? s.cwnd >>> F : fast ? 0 : s.fiCount - size;
        s.fiActive = fast;
        boolean adapt = !ignoring && expired && started && s.triggerQa;         // Alg. 2 lines 3-4
        long qaScaled = normalisedScaling(now, end, trtt);
        long c1 = s.cwnd;
        s.ignoreBytes = ignore1;
        if (adapt) {
            c1 = quickAdaptWindow(acked1, qaScaled);                             // Alg. 2 line 7
            s.triggerQa = false;
            s.ignoreBytes = unacked;                                             // Alg. 2 line 8
            counters.inc("QUICK_ADAPTS");
        }
        if (expired) {
            roll(s, now, trtt);
        } else {
            s.acked = acked1;
        }
        Rule rule;
        long c;
        if (e.ecn() && (ignoring || adapt)) {
            // Skipped: a marked ACK inside the ignore window (the one QuickAdapt opens included).
            rule = adapt ? Rule.QUICK_ADAPT : Rule.IGNORED;
            if (!adapt) {
                counters.inc("IGNORED");
            }
            c = c1;
        } else {
            s.wtd = wtdAverage(s.wtd, e.ecn(), p.wtdAlphaShift);                 // Sec. 3.6.1
            boolean canDecrease = !p.wtdEnable
                    || s.wtd >= p.wtdThreshold << (SmarttParams.WTD_STATE_FRAC - SmarttParams.WTD_FRAC);
            if (fast) {
                counters.inc("FAST_INCREASES");
                c = Math.min(cwndFieldMax(), c1 + fastIncreaseStep());          // Alg. 3 line 5
                rule = adapt ? Rule.QUICK_ADAPT : Rule.FAST_INCREASE;
            } else if (adapt) {
                // The authors' code goes on to the case from the QuickAdapt window; the four-clock loop
                // cannot (docs/smartt.md): the case's increase of this one ACK is dropped.
                c = c1;
                rule = Rule.QUICK_ADAPT;
            } else if (rtt == trtt) {
                c = c1;
                rule = Rule.AT_TARGET;
                counters.inc("AT_TARGET");
            } else {
                CaseResult r = fourCases(s.cwnd, size, rtt, trtt, e.ecn(), canDecrease, true);
                c = r.cwnd();
                rule = r.rule();
            }
        }
        s.cwnd = wholeBytes(clamp(c, true));                                    // Alg. 1 line 36
        return new Update(e.flow(), s.cwnd >>> F, rule, false);
    }

    /**
     * The reference profile's NACK or timeout: inside the ignore window it changes nothing but the
     * counts (a NACK's 64 B still count for QuickAdapt); outside it, Alg. 1 lines 28-34, with the
     * NACK's 64 B in QuickAdapt's bytes and its normalisation.
     */
    private Update lossReference(Event e, State s, long size, long unacked, long trtt, long now, boolean expired,
                                 boolean started, long end) {
        long ignore1 = Math.max(0, s.ignoreBytes - size);                       // Alg. 1 line 5
        long bytes = e.kind() == Kind.NACK ? Math.min(byteMax(), s.acked + NACK_ACKED_BYTES) : s.acked;
        s.ignoreBytes = ignore1;
        Rule rule;
        long c;
        if (ignore1 != 0) {
            counters.inc("IGNORED");
            rule = Rule.IGNORED;
            c = s.cwnd;
        } else {
            c = Math.max(0, s.cwnd - (size << F));                              // line 29
            s.triggerQa = true;                                                 // line 30
            rule = Rule.LOSS;
            if (expired && started) {                                            // line 32, Alg. 2
                c = quickAdaptWindow(bytes, normalisedScaling(now, end, trtt));
                s.triggerQa = false;
                s.ignoreBytes = unacked;
                counters.inc("QUICK_ADAPTS");
                rule = Rule.QUICK_ADAPT;
            }
        }
        if (expired) {
            roll(s, now, trtt);
        } else {
            s.acked = bytes;
        }
        s.cwnd = wholeBytes(clamp(c, true));
        return new Update(e.flow(), s.cwnd >>> F, rule, true);
    }

    private record CaseResult(long cwnd, Rule rule) {
    }

    /**
     * Alg. 1 lines 19-27, the four cases, from the window c (2^-F bytes). The reference profile caps
     * MD + FD at one MTU without Eq. 2's cap at the size.
     */
    private CaseResult fourCases(long c, long size, long rtt, long trtt, boolean ecn, boolean canDecrease,
                                 boolean reference) {
        boolean above = rtt > trtt;
        long diff = above ? rtt - trtt : trtt - rtt;
        long[] rr = reciprocal(rtt);
        // |rtt - trtt| / rtt in u.16, at most 1.
        long frac16 = Math.min(1L << 16, (diff * rr[0] << 16) >>> (recipValueBits + rr[1]));
        long[] rc = reciprocal(c);
        // incFI and incMI are numerators in bytes^2 x 2^-GAIN_FRAC divided by c (2^-F bytes), in 2^-F bytes:
        // num x 2^-11 / (c x 2^-8) x 2^8 = num x 2^5 / c = (num x t) >> (V + p - 5).
        int shift = recipValueBits + (int) rc[1] - (2 * F - SmarttParams.GAIN_FRAC);
        long mtu = p.mtuEff();
        if (ecn) {
            if (!canDecrease) {
                counters.inc("WTD_HELD");
                return new CaseResult(c, Rule.HELD);
            }
            // Sec. 3.2.1 Eq. 1: cwnd/bdp x fd x size = c x kFD, kFD = size x fd / bdp in u0.30.
            long kFd = Math.min((1L << 30) - 1, size * p.fd * p.invBdp() >>> 21);
            long fdTerm = c * kFd >>> 30;
            if (!above) {
                counters.inc("FAIR_DECREASES");
                return new CaseResult(Math.max(0, c - fdTerm), Rule.FAIR_DECREASE);
            }
            // Sec. 3.2.2 Eq. 2: min(size, (rtt - trtt)/rtt x md x size), plus Fair Decrease, the sum at most
            // one MTU (README: htsim); the reference profile has no cap at the size.
            long md = Math.min((reference ? mtu : size) << F,
                    frac16 * p.mdEff() * size >>> (16 + SmarttParams.GAIN_FRAC - F));
            counters.inc("MULTIPLICATIVE_DECREASES");
            return new CaseResult(Math.max(0, c - Math.min(mtu << F, md + fdTerm)), Rule.MULTIPLICATIVE_DECREASE);
        }
        // Sec. 3.2.3 Eq. 3: size / cwnd x mtu x fi. Each numerator is cut to its top MANTISSA_BITS
        // (one DSP's operand) before it meets 1/cwnd: x / cwnd ~ ((x >> e) x t) >> (shift - e).
        long numFi = size * mtu * p.fi;
        long incFi = overCwnd(numFi, rc[0], shift);
        if (above) {
            counters.inc("FAIR_INCREASES");
            return new CaseResult(Math.min(cwndFieldMax(), c + incFi), Rule.FAIR_INCREASE);
        }
        // Sec. 3.2.4 Eq. 4: min(size, (trtt - rtt)/rtt x size/cwnd x mtu x mi), then a Fair Increase:
        // size + FI when MI reaches the size, else (MI's numerator + FI's) / cwnd in one product.
        long numMi = (size * p.mi * frac16 >>> 16) * mtu;
        long inc = overCwnd(numMi, rc[0], shift) > size << F ? (size << F) + incFi : overCwnd(numMi + numFi, rc[0], shift);
        counters.inc("MULTIPLICATIVE_INCREASES");
        return new CaseResult(Math.min(cwndFieldMax(), c + inc), Rule.MULTIPLICATIVE_INCREASE);
    }

    /** Bits of an increase numerator that meet the window's reciprocal: a DSP48E2's 26 unsigned. */
    public static final int MANTISSA_BITS = 26;

    /** (x >> e) x t >> (shift - e), e = max(0, bits(x) - MANTISSA_BITS): x / cwnd with x cut to its top bits. */
    static long overCwnd(long x, long t, int shift) {
        int e = Math.max(0, 64 - Long.numberOfLeadingZeros(x) - MANTISSA_BITS);
        return (x >>> e) * t >>> (shift - e);
    }
}
