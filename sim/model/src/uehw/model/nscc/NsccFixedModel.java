// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

import uehw.model.Counters;
import uehw.model.smartt.SmarttFixedModel;

/**
 * Fixed-point NSCC, per flow: the specification of the {@code nscc} block, bit for bit and
 * independent of clocks. The rules and their order are the reference's (uet-htsim 40ccb05, uec.cpp,
 * as {@link NsccExactModel} runs them); the arithmetic is the hardware's: windows in integer bytes
 * (24 bits, as the reference's int64 truncates every double update to whole bytes), times in ns
 * modulo 2^32, the average delay in ns with 8 fractional bits, the pending increase in bytes^2 on 44
 * bits saturating (it never wraps), and the two divisions, by the average delay (multiplicative
 * decrease) and by the window (fulfill), through the reciprocal table SMaRTT's and Swift's windows
 * use (2^10 entries of 14 bits, bin midpoints, 2^-11 relative). docs/nscc.md states the formats.
 */
public final class NsccFixedModel {
    public enum Kind { ACK, NACK, TIMEOUT, INIT }

    /**
     * One event, with the widths of the block's event port.
     *
     * @param bytes ACK: newly received bytes; NACK, TIMEOUT: the packet's wire bytes (above MTU: MTU, counted); u24
     * @param rttNs the RTT sample, 0 = none (an ACK without a valid sample, uec.cpp:891-902); u24
     * @param rcvWndPen the receiver's window penalty, 255 = none (uec.cpp:933-936); u8
     * @param inFlight the sender's bytes in flight as the law runs (QuickAdapt's ignore count); u24
     * @param now ns modulo 2^32
     */
    public record Event(int flow, Kind kind, long bytes, long rttNs, boolean ecn, boolean lastHop, int rcvWndPen,
            long inFlight, long now) {}

    public static final int WINDOW_BITS = 24;
    public static final int TIME_BITS = 32;
    public static final int AVG_FRAC = 8;
    public static final int INC_BITS = 44;
    public static final int RECIP_INDEX = 10;
    public static final int RECIP_VALUE = 14;
    /** The multiplicative decrease factor's format, u1.23 (its cut 1 - factor, at most 1/2, is u0.23: a 24 x 23 product). */
    public static final int FACTOR_FRAC = 23;
    /** The pending increase meets the window's reciprocal as a 26-bit mantissa (one DSP operand). */
    public static final int INC_MANTISSA = 26;

    static final long WINDOW_MAX = (1L << WINDOW_BITS) - 1;
    static final long INC_MAX = (1L << INC_BITS) - 1;
    static final long TIME_MASK = (1L << TIME_BITS) - 1;
    static final long[] RECIP = SmarttFixedModel.reciprocalTable(RECIP_INDEX, RECIP_VALUE);

    /** A flow's state: the RTL's NsccFlowState, field by field. */
    public static final class State implements Cloneable {
        public long cwnd;           // u24 bytes
        public long maxwnd;         // u24 bytes, 1.5 BDP of baseRtt
        public long baseRtt;        // u24 ns
        public long avgDelay;       // u24.8 ns
        public long achieved;       // u24 bytes, saturating
        public long received;       // u24 bytes, saturating
        public long inc;            // u44 bytes^2, saturating
        public long bytesToIgnore;  // u24
        public long bytesIgnored;   // u24, saturating
        public boolean triggerQa;
        public boolean qaStarted;   // the reference's qa_endtime != 0
        public long qaEnd;          // ns mod 2^32
        public long fiCount;        // u24, saturating
        public boolean increase;
        public long lastAdjust;     // ns mod 2^32
        public long lastDec;        // ns mod 2^32
        /** What the last event did (not stored by the RTL: its update's rule code). */
        public NsccRule rule;
        public boolean fulfilled;

        @Override
        public State clone() {
            try {
                return (State) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /** The block's state bits per flow (docs/nscc.md "State"): the fields above, the last two aside. */
    public static final int STATE_BITS = 8 * WINDOW_BITS + (WINDOW_BITS + AVG_FRAC) + INC_BITS + 3 * TIME_BITS + 3;

    /** The CSRs: a bench changes them where the block's docs say a write takes effect. */
    public NsccFixedParams p;
    /** INIT_BASE_RTT and INIT_CWND (CSRs too). */
    public long initBaseRtt;
    public long initCwnd;
    private final State[] state;
    /** The counters, by the names of the block's count registers. */
    public final Counters counters = new Counters("EVENTS", "ACKS", "NACKS", "TIMEOUTS", "INITS", "OUT_OF_RANGE",
            "FAIR_INCREASES", "PROPORTIONAL_INCREASES", "FAST_INCREASES", "MULTIPLICATIVE_DECREASES", "DECREASES_HELD",
            "NOOPS", "QUICK_ADAPTS", "IGNORED", "NACK_DECREASES", "NACKS_LAST_HOP", "FULFILLS", "ETAS", "BASE_RTT_LOWERED",
            "NO_RTT_SAMPLE", "ZERO_BYTES", "OVER_MTU", "INC_SATURATED");

    /**
     * @param initBaseRtt the base RTT a flow starts with, ns (the network RTT, uec.cpp:863)
     * @param initCwnd the window a flow starts with, 0 = maxwnd (uec.cpp:169-173)
     */
    public NsccFixedModel(int flows, NsccFixedParams p, long initBaseRtt, long initCwnd) {
        this.p = p;
        this.initBaseRtt = initBaseRtt;
        this.initCwnd = initCwnd;
        this.state = new State[flows];
        for (int i = 0; i < flows; i++) {
            state[i] = initialState(0);
        }
    }

    public int flows() {
        return state.length;
    }

    public State state(int flow) {
        return state[flow];
    }

    public void setState(int flow, State s) {
        state[flow] = s.clone();
    }

    /** initNscc (uec.cpp:161-184), at time now: the reference's connections are made at time 0 and its times start there. */
    public State initialState(long now) {
        State s = new State();
        s.baseRtt = initBaseRtt;
        s.maxwnd = maxWindowOf(initBaseRtt);
        s.cwnd = initCwnd == 0 ? s.maxwnd : Math.min(initCwnd, WINDOW_MAX);
        s.lastAdjust = now & TIME_MASK;
        s.lastDec = now & TIME_MASK;
        s.rule = NsccRule.INIT;
        return s;
    }

    /** uec.cpp:1392-1393: BDP = rtt x link speed / 8, maxwnd = 1.5 BDP = BDP + BDP / 2, both truncated. */
    public long maxWindowOf(long rttNs) {
        long bdp = Math.min(rttNs * p.bytesPerNs() >> NsccFixedParams.BYTES_PER_NS_FRAC, WINDOW_MAX);
        return Math.min(bdp + (bdp >> 1), WINDOW_MAX);
    }

    /** Applies one event; an out-of-range flow is counted and changes nothing. */
    public void apply(Event e) {
        if (e.flow < 0 || e.flow >= state.length) {
            counters.inc("OUT_OF_RANGE");
            return;
        }
        counters.inc("EVENTS"); // as the skeleton counts them: events for flows < N
        State s = state[e.flow];
        s.fulfilled = false;
        switch (e.kind) {
            case INIT -> {
                counters.inc("INITS");
                state[e.flow] = initialState(e.now);
            }
            case ACK -> {
                counters.inc("ACKS");
                ack(s, e);
            }
            case NACK -> {
                counters.inc("NACKS");
                nack(s, e);
            }
            case TIMEOUT -> {
                counters.inc("TIMEOUTS");
                s.cwnd = Math.max(s.cwnd - packetBytes(e), p.mtu()); // uec.cpp:1297-1304
                s.rule = NsccRule.TIMEOUT_DECREASE;
            }
        }
        if (s.rule.counter != null && e.kind != Kind.INIT) {
            counters.inc(s.rule.counter);
        }
    }

    private long packetBytes(Event e) {
        if (e.bytes == 0) {
            counters.inc("ZERO_BYTES");
        }
        if (e.bytes > p.mtu()) {
            counters.inc("OVER_MTU");
            return p.mtu();
        }
        return e.bytes;
    }

    private static long sat(long x, long max) {
        return Math.min(x, max);
    }

    private void ack(State s, Event e) {
        long newly = e.bytes;
        if (newly == 0) {
            counters.inc("ZERO_BYTES");
        }
        s.achieved = sat(s.achieved + newly, WINDOW_MAX); // uec.cpp:910-917
        s.received = sat(s.received + newly, WINDOW_MAX);
        s.bytesIgnored = sat(s.bytesIgnored + newly, WINDOW_MAX);
        if (e.rcvWndPen < 255) { // uec.cpp:933-936: newly - floor(newly x pen / 255)
            long decrease = newly - newly * e.rcvWndPen / 255;
            s.cwnd = Math.max(s.cwnd - decrease, p.mtu());
        }
        long delay;
        if (e.rttNs > 0) { // uec.cpp:958-973
            lowerBaseRtt(s, e.rttNs);
            delay = e.rttNs - s.baseRtt;
            updateAverage(s, !e.ecn && delay << AVG_FRAC > p.target() ? s.baseRtt << (AVG_FRAC - 2) : delay << AVG_FRAC);
        } else {
            counters.inc("NO_RTT_SAMPLE");
            delay = s.avgDelay >> AVG_FRAC; // uec.cpp:1003
        }
        if (quickAdapt(s, e, false, e.ecn, delay)) { // uec.cpp:1314
            return;
        }
        if (!e.ecn && delay << AVG_FRAC >= p.target()) {
            s.inc = addIncrease(s.inc, p.fi() * newly >> NsccFixedParams.FI_FRAC); // uec.cpp:1202-1206
            s.rule = NsccRule.FAIR_INCREASE;
        } else if (!e.ecn) {
            s.rule = fastIncrease(s, newly, delay) ? NsccRule.FAST_INCREASE : NsccRule.PROPORTIONAL_INCREASE;
            if (s.rule == NsccRule.PROPORTIONAL_INCREASE) { // uec.cpp:1208-1219
                s.inc = addIncrease(s.inc, mulShift(p.alpha() * newly, p.target() - (delay << AVG_FRAC),
                        NsccFixedParams.ALPHA_FRAC + AVG_FRAC));
            }
        } else if (delay << AVG_FRAC >= p.target()) {
            s.rule = multiplicativeDecrease(s, e.now) ? NsccRule.MULTIPLICATIVE_DECREASE : NsccRule.DECREASE_HELD;
        } else {
            s.rule = NsccRule.NOOP; // uec.cpp:1333
        }
        bound(s);
        long sinceAdjust = (e.now - s.lastAdjust) & TIME_MASK;
        if (s.received > p.adjustBytes() || sinceAdjust << AVG_FRAC > p.networkRtt()) { // uec.cpp:1341, 1257-1295
            s.fulfilled = true;
            counters.inc("FULFILLS");
            s.cwnd = sat(s.cwnd + overWindow(s.inc, s.cwnd), WINDOW_MAX);
            if (sinceAdjust << AVG_FRAC >= p.networkRtt()) {
                counters.inc("ETAS");
                s.cwnd = sat(s.cwnd + p.eta(), WINDOW_MAX);
                s.lastAdjust = e.now & TIME_MASK;
            }
            s.inc = 0;
            s.received = 0;
        }
        bound(s);
    }

    private void nack(State s, Event e) {
        long bytes = packetBytes(e);
        if (p.baseRttOnNack() && e.rttNs > 0) {
            lowerBaseRtt(s, e.rttNs); // uec.cpp:1568-1570
        }
        s.bytesIgnored = sat(s.bytesIgnored + bytes, WINDOW_MAX); // uec.cpp:1362
        updateAverage(s, p.networkRtt());                        // uec.cpp:1369: a delay sample of network_rtt
        s.triggerQa = true;
        if (quickAdapt(s, e, true, true, 0)) {
            return;
        }
        if (!p.receiverCc() || !e.lastHop) { // uec.cpp:1380
            s.cwnd = s.cwnd - bytes;
            bound(s);
            s.rule = NsccRule.NACK_DECREASE;
        } else {
            s.rule = NsccRule.NACK_LAST_HOP;
        }
    }

    /** uec.cpp:1389-1400. */
    private void lowerBaseRtt(State s, long rttNs) {
        if (rttNs < s.baseRtt) {
            counters.inc("BASE_RTT_LOWERED");
            s.baseRtt = rttNs;
            s.maxwnd = maxWindowOf(rttNs);
        }
    }

    /**
     * uec.cpp:1402-1423: avg += delay_alpha x (sample - avg), in u24.8 with the product floored
     * (an arithmetic shift) and the sum held in 0 .. 2^32 - 1.
     */
    private void updateAverage(State s, long sample) {
        long step = Math.floorDiv(p.delayAlpha() * (sample - s.avgDelay), 1L << NsccFixedParams.DELAY_ALPHA_FRAC);
        s.avgDelay = Math.max(0, Math.min(s.avgDelay + step, (1L << (WINDOW_BITS + AVG_FRAC)) - 1));
    }

    /** uec.cpp:1145-1200; true when QuickAdapt fired or the event is ignored. */
    private boolean quickAdapt(State s, Event e, boolean isLoss, boolean skip, long delay) {
        boolean doneOrIgnore = false;
        if (s.bytesIgnored < s.bytesToIgnore && skip) { // :1157
            doneOrIgnore = true;
            s.rule = NsccRule.IGNORED;
        } else if (!s.qaStarted || after(e.now, s.qaEnd)) { // :1159
            if (s.qaStarted && (s.triggerQa || isLoss || delay > p.qaThresholdNs())
                    && s.achieved < (s.maxwnd >> p.qaGate())) {
                s.cwnd = Math.max(s.achieved, p.mtu()); // :1174
                s.bytesToIgnore = sat(e.inFlight, WINDOW_MAX);
                s.bytesIgnored = 0;
                s.triggerQa = false;
                doneOrIgnore = true;
                s.rule = NsccRule.QUICK_ADAPT;
            }
            s.achieved = 0;
            s.qaEnd = (e.now + s.baseRtt + p.targetNs()) & TIME_MASK;
            s.qaStarted = true;
        }
        if (doneOrIgnore) {
            s.inc = 0;
            s.received = 0;
        }
        return doneOrIgnore;
    }

    /** now later than t, modulo 2^32 (the signed difference is positive). */
    static boolean after(long now, long t) {
        return (int) ((now - t) & TIME_MASK) > 0;
    }

    private long addIncrease(long inc, long add) {
        long sum = inc + add;
        if (sum > INC_MAX) {
            counters.inc("INC_SATURATED");
            return INC_MAX;
        }
        return sum;
    }

    /** uec.cpp:1221-1238; true when the increase latched (cwnd += bytes x fi_scale). */
    private boolean fastIncrease(State s, long newly, long delay) {
        if (delay < p.fastDelayNs()) {
            s.fiCount = sat(s.fiCount + newly, WINDOW_MAX);
            if (s.fiCount > s.cwnd || s.increase) {
                s.cwnd = sat(s.cwnd + (newly * p.fiScale() >> NsccFixedParams.FI_SCALE_FRAC), WINDOW_MAX);
                s.increase = true;
                return true;
            }
        } else {
            s.fiCount = 0;
        }
        s.increase = false;
        return false;
    }

    /**
     * uec.cpp:1240-1255: when the average is above T and a base RTT has passed since the last
     * decrease, cwnd x max(1 - gamma (avg - T) / avg, 0.5) with 1/avg from the table and the
     * factor in u1.17, floor MTU.
     */
    private boolean multiplicativeDecrease(State s, long now) {
        s.increase = false;
        s.fiCount = 0;
        long target = p.target();
        if (s.avgDelay > target && ((now - s.lastDec) & TIME_MASK) > s.baseRtt) {
            s.cwnd = Math.max(s.cwnd * decreaseFactor(s.avgDelay - target, s.avgDelay) >> FACTOR_FRAC, p.mtu());
            s.lastDec = now & TIME_MASK;
            return true;
        }
        return false;
    }

    /** max(1 - gamma x d / avg, 1/2) in u1.23, d &lt; avg; d / avg = d x table(avg) / 2^(14 + msb(avg)) in u0.23. */
    long decreaseFactor(long d, long avg) {
        int msb = 63 - Long.numberOfLeadingZeros(avg);
        // avg > T >= 1 ns = 2^8: msb >= 8, the shift >= -1 (a left shift for an average below 2 ns)
        int shift = RECIP_VALUE + msb - FACTOR_FRAC;
        long product = d * recip(avg);
        long ratio = Math.min(shift >= 0 ? product >> shift : product << -shift, 1L << FACTOR_FRAC);
        long cut = p.gamma() * ratio >> NsccFixedParams.GAMMA_FRAC;
        return Math.max((1L << FACTOR_FRAC) - cut, 1L << (FACTOR_FRAC - 1));
    }

    /**
     * inc / cwnd (uec.cpp:1260): the increase cut to a 26-bit mantissa m x 2^e, times the window's
     * table value, shifted right by 14 + msb(cwnd) - e.
     */
    static long overWindow(long inc, long cwnd) {
        int e = Math.max(0, 64 - Long.numberOfLeadingZeros(inc) - INC_MANTISSA);
        int msb = 63 - Long.numberOfLeadingZeros(cwnd);
        return (inc >> e) * recip(cwnd) >> (RECIP_VALUE + msb - e);
    }

    /** The table value for x = 2^p (1 + m): round(2^14 / (1 + the index bin's middle)). */
    static long recip(long x) {
        return RECIP[SmarttFixedModel.reciprocalIndex(x, RECIP_INDEX)];
    }

    /** floor(a x b / 2^shift) for a &lt; 2^50, b &lt; 2^25 (a 75-bit product). */
    static long mulShift(long a, long b, int shift) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi << (64 - shift)) | (lo >>> shift);
    }

    /**
     * uec.cpp:1137-1143: [MTU, maxwnd]. Where maxwnd is below the MTU (a base RTT under about
     * MTU / link speed: bad input) the reference's order gives maxwnd, down to 0; here the MTU
     * wins, so that the window the fulfill divides by is never 0 (docs/nscc.md).
     */
    private void bound(State s) {
        s.cwnd = Math.max(Math.min(s.cwnd, s.maxwnd), p.mtu());
    }
}
