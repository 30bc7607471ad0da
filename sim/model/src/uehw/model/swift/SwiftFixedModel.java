// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

import uehw.model.Counters;
import uehw.model.smartt.SmarttFixedModel;

/**
 * Swift (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) in the fixed-point formats of the `swift` block:
 * the specification of its RTL, bit for bit, independent of clocks. {@link SwiftExactModel} is the
 * exact reference; {@code SwiftFixedModelTest} measures the error between the two.
 *
 * <p>Formats: windows in packets x 2^-{@value #CWND_FRAC} (0.001 packets is 131 LSBs), at least
 * {@value #MIN_WINDOW} LSBs; beta and max_mdf u1.{@value #GAIN_FRAC} (at most 1); ai u4.{@value #AI_FRAC};
 * the packets an ACK acknowledges u6.{@value #ACKED_FRAC}; delays and times in whole ns, times
 * modulo 2^{@value #TIME_BITS}; the endpoint-delay EWMA in ns x 2^-{@value #EWMA_FRAC} with the gain
 * 2^-shift. 1/x ~ recip[I bits below the leading one] / 2^(V + msb) (SMaRTT's table, I = 10,
 * V = 14); flow scaling's 1/sqrt(fcwnd) the same with a table per parity of msb (I = 8, V = 14).
 *
 * <p>Two choices make the law fit a four-clock update loop with no leading-one search in it
 * (docs/swift.md, "Arithmetic"):
 * <ul>
 * <li>The reciprocal, leading one and 1/sqrt of each window an event writes are found after the
 * loop, for the flow's next event (same-flow events are {@code Swift.sameFlowSpacing} clocks apart):
 * the increase divides by the window the event reads, as Alg. 1 line 8 does. The fabric target's
 * flow-scaling term is of the window the flow's <em>previous</em> event read (each event computes it
 * for the next): the target lags one update.</li>
 * <li>The decrease factor max(1 - beta (delay - target) / delay, 1 - max_mdf) is computed as
 * (1 - beta + beta x base / delay) + fs x (beta / delay), the first term from the event alone, so
 * that only fs x (beta / delay) and products with the window run in the loop.</li>
 * </ul>
 */
public final class SwiftFixedModel {
    public static final int CWND_FRAC = 17;
    /** Window width: 9 integer bits (511 packets) and the fraction, an unsigned DSP operand (26 bits). */
    public static final int CWND_BITS = 26;
    public static final int GAIN_FRAC = 15;
    public static final int AI_FRAC = 9;
    public static final int ACKED_FRAC = 7;
    public static final int EWMA_FRAC = 4;
    public static final int TIME_BITS = 32;
    public static final int RECIP_INDEX = 10;
    public static final int RECIP_VALUE = 14;
    public static final int RSQRT_INDEX = 8;
    public static final int RSQRT_VALUE = 14;
    /** 2^G scales beta / delay for the loop's fs x (beta / delay) product (saturated to 26 bits). */
    public static final int G = 16;
    public static final long G_MAX = (1L << 26) - 1;
    public static final long ONE = 1L << CWND_FRAC;
    public static final long GAIN_ONE = 1L << GAIN_FRAC;
    /** The smallest window (MIN_CWND below it acts as it): 2^7 LSBs, 0.00098 packets. */
    public static final long MIN_WINDOW = 1L << 7;
    /** Forward hops are 4 bits: a larger TTL difference scales the target as 15 hops (counted). */
    public static final int MAX_HOPS = 15;
    private static final long TIME_MASK = (1L << TIME_BITS) - 1;
    private static final long RATIO_MAX = (1L << 17) - 1;
    private static final long[] RECIP = SmarttFixedModel.reciprocalTable(RECIP_INDEX, RECIP_VALUE);
    private static final long[][] RSQRT = rsqrtTables(RSQRT_INDEX, RSQRT_VALUE);

    /** The law's constants in their fixed formats (the block's CSRs). */
    public record Params(long ai, long beta, long maxMdf, long minCwnd, long maxCwnd, long initCwnd, int retxResetThreshold,
                         long baseTargetNs, long perHopNs, long fsRangeNs, long fsAlpha, long fsBeta, long endpointTargetNs,
                         int endpointEwmaShift, boolean line27AsPrinted) {
        /** The fixed form of the exact model's parameters (endpointEwma must be a power of two). */
        public static Params of(SwiftParams p) {
            int shift = Long.numberOfTrailingZeros(Math.round(1 / p.endpointEwma));
            if (Math.abs(Math.pow(2, -shift) - p.endpointEwma) > 1e-12) {
                throw new IllegalArgumentException("endpointEwma " + p.endpointEwma + " is not a power of two");
            }
            double alpha = p.fsRangeNs / (1 / Math.sqrt(p.fsMinCwnd) - 1 / Math.sqrt(p.fsMaxCwnd));
            return new Params(Math.round(p.ai * (1 << AI_FRAC)), gain(p.beta), gain(p.maxMdf), cwnd(p.minCwnd), cwnd(p.maxCwnd),
                    cwnd(p.initCwnd), p.retxResetThreshold, Math.round(p.baseTargetNs), Math.round(p.perHopNs),
                    Math.round(p.fsRangeNs), Math.round(alpha), Math.round(-alpha / Math.sqrt(p.fsMaxCwnd)),
                    Math.round(p.endpointTargetNs), shift, p.line27AsPrinted);
        }

        /** The same with other window limits (MIN_CWND, MAX_CWND). */
        public Params withLimits(long min, long max) {
            return new Params(ai, beta, maxMdf, min, max, initCwnd, retxResetThreshold, baseTargetNs, perHopNs, fsRangeNs,
                    fsAlpha, fsBeta, endpointTargetNs, endpointEwmaShift, line27AsPrinted);
        }

        public Params withLine27AsPrinted(boolean asPrinted) {
            return new Params(ai, beta, maxMdf, minCwnd, maxCwnd, initCwnd, retxResetThreshold, baseTargetNs, perHopNs, fsRangeNs,
                    fsAlpha, fsBeta, endpointTargetNs, endpointEwmaShift, asPrinted);
        }

        long betaEff() {
            return Math.min(beta, GAIN_ONE);
        }

        /** 1 - max_mdf in u1.15. */
        long floorFactor() {
            return GAIN_ONE - Math.min(maxMdf, GAIN_ONE);
        }

        long minEff() {
            return Math.max(minCwnd, MIN_WINDOW);
        }

        /** Alg. 1 line 26: max(min(x, max_cwnd), min_cwnd). */
        long clamp(long x) {
            return Math.max(minEff(), Math.min(x, maxCwnd));
        }
    }

    public static long cwnd(double packets) {
        return Math.round(packets * ONE);
    }

    public static long gain(double g) {
        return Math.round(g * GAIN_ONE);
    }

    /** One window of Alg. 1 with its last-decrease time and what the next event divides by. */
    public static final class Window {
        public long cwnd;
        public long tLastDecrease;
        /** No decrease yet: any time may decrease. */
        public boolean decreased;

        public void set(long w) {
            cwnd = w;
        }
    }

    /** A flow's state. */
    public static final class Flow {
        public final Window fabric = new Window();
        public final Window endpoint = new Window();
        public int retransmitCount;
        public long endpointDelay;     // ns x 2^-EWMA_FRAC
        public long rttNs;
        /** Sec. 3.5 flow scaling (ns) of the fabric window the last event read. */
        public long fsNs;

        public long cwnd() {
            return Math.min(fabric.cwnd, endpoint.cwnd);
        }
    }

    /** What happened to one window (the update's rule field, two bits a window). */
    public enum Change { NONE, INCREASE, DECREASE, RESET }

    /** Event kinds, in the RTL's encoding. */
    public enum Kind { ACK, NACK, TIMEOUT, INIT }

    /** One event: ACK fields are ignored by the other kinds; acked in packets x 2^-10. */
    public record Event(int flow, Kind kind, long rttNs, long endpointDelayNs, int hops, long acked, long nowNs) {
    }

    /** The block's update: the windows after the event, what changed them, the pacing delay. */
    public record Update(int flow, long cwnd, long fabricCwnd, long endpointCwnd, Change fabric, Change endpoint,
                         long pacingNs) {
        /** The RTL's 4-bit rule field: fabric in bits 1:0, endpoint in 3:2. */
        public int rule() {
            return fabric.ordinal() | endpoint.ordinal() << 2;
        }
    }

    public Params p;
    private final Flow[] flows;
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("EVENTS", "ACKS", "NACKS", "TIMEOUTS", "INITS", "FABRIC_INCREASES",
            "FABRIC_DECREASES", "ENDPOINT_INCREASES", "ENDPOINT_DECREASES", "HELD", "RESETS", "PACED", "OUT_OF_RANGE",
            "RTT_ZERO", "ENDPOINT_ABOVE_RTT", "HOPS_CLAMPED", "CLAMPED_MAX", "CLAMPED_MIN", "PACING_SATURATED");
    private boolean eventHigh;
    private boolean eventLow;

    public SwiftFixedModel(int flows, Params p) {
        this.p = p;
        this.flows = new Flow[flows];
        for (int i = 0; i < flows; i++) {
            init(i);
        }
    }

    public Flow flow(int i) {
        return flows[i];
    }

    /** The state of a new flow (INIT event, reset sweep): both windows INIT_CWND clamped. */
    public void init(int i) {
        Flow f = new Flow();
        long w = p.clamp(p.initCwnd);
        f.fabric.set(w);
        f.endpoint.set(w);
        f.fsNs = flowScalingNs(w);
        flows[i] = f;
    }

    /** Sets a flow's windows, and its flow scaling as if its last event had read the fabric one (for directed tests). */
    public void setWindows(int i, long fabric, long endpoint) {
        Flow f = flows[i];
        f.fabric.set(fabric);
        f.endpoint.set(endpoint);
        f.fsNs = flowScalingNs(fabric);
    }

    /** 1/sqrt(2^(p & 1) (1 + (i + 1/2) / 2^I)) in u0.V, for the two parities of the leading one. */
    static long[][] rsqrtTables(int indexBits, int valueBits) {
        long[][] t = new long[2][1 << indexBits];
        for (int odd = 0; odd < 2; odd++) {
            for (int i = 0; i < t[odd].length; i++) {
                double x = (1 + (i + 0.5) / (1 << indexBits)) * (odd == 1 ? 2 : 1);
                t[odd][i] = Math.round((1L << valueBits) / Math.sqrt(x));
            }
        }
        return t;
    }

    public static long[][] rsqrtTables() {
        return rsqrtTables(RSQRT_INDEX, RSQRT_VALUE);
    }

    static int msb(long x) {
        return 63 - Long.numberOfLeadingZeros(x);
    }

    /** The I bits below the leading one of x > 0 (zero-padded below). */
    private static int index(long x, int msb, int indexBits) {
        long below = x - (1L << msb);
        return (int) (msb >= indexBits ? below >>> (msb - indexBits) : below << (indexBits - msb));
    }

    private static long shiftRight(long v, int s) {
        return s >= 0 ? v >> s : v << -s;
    }

    /** Sec. 3.5 flow scaling for a fabric window (window units): clamp(alpha / sqrt(fcwnd) + beta, 0, fs_range) ns. */
    public long flowScalingNs(long fcwnd) {
        // of 2 fcwnd / 2^(F + 1) when F is odd, so that the fraction bits are even: its leading one is one up
        int odd = CWND_FRAC & 1;
        int msb = msb(fcwnd) + odd;
        long r = RSQRT[msb & 1][index(fcwnd, msb - odd, RSQRT_INDEX)];
        // 1/sqrt(x / 2^F') = r x 2^(F'/2) / 2^(V + msb / 2), msb / 2 rounded down
        long term = shiftRight(p.fsAlpha * r, RSQRT_VALUE + msb / 2 - (CWND_FRAC + odd) / 2) + p.fsBeta;
        return Math.max(0, Math.min(term, p.fsRangeNs));
    }

    /** Sec. 3.5: base_target + hops x per_hop + flow scaling of the window given. */
    public long fabricTargetNs(int hops, long fcwnd) {
        return p.baseTargetNs + hops * p.perHopNs + flowScalingNs(fcwnd);
    }

    /** min(x / delay x 2^16, 2^17 - 1) through the reciprocal table (delay > 0). */
    private static long ratio16(long x, long delay) {
        int msb = msb(delay);
        return Math.min(shiftRight(x * RECIP[index(delay, msb, RECIP_INDEX)], RECIP_VALUE + msb - 16), RATIO_MAX);
    }

    /** 1 - beta + beta x x / delay in u1.15 (its event part). */
    private long factorOf(long x, long delay) {
        return GAIN_ONE - p.betaEff() + ((ratio16(x, delay) * p.betaEff()) >> 16);
    }

    /** beta / delay x 2^(15 + G): the loop multiplies it by fs. */
    private long betaOver(long delay) {
        int msb = msb(delay);
        return Math.min(shiftRight(p.betaEff() * RECIP[index(delay, msb, RECIP_INDEX)], RECIP_VALUE + msb - G), G_MAX);
    }

    /** The decrease: cwnd x factor >> 15. */
    private static long scaled(long cwnd, long factor) {
        return (cwnd * factor) >> GAIN_FRAC;
    }

    /** Alg. 1 lines 6-10: the additive increase, divided by the window the event reads (line 8). */
    private static long increase(Window w, long aiAcked) {
        int msb = msb(w.cwnd);
        return w.cwnd >= ONE
                ? shiftRight(aiAcked * RECIP[index(w.cwnd, msb, RECIP_INDEX)], RECIP_VALUE + msb - (2 * CWND_FRAC - AI_FRAC - ACKED_FRAC))
                : shiftRight(aiAcked, AI_FRAC + ACKED_FRAC - CWND_FRAC);
    }

    private static boolean canDecrease(Window w, long rttNs, long nowNs) {
        return !w.decreased || ((nowNs - w.tLastDecrease) & TIME_MASK) >= rttNs;      // line 3
    }

    /** Lines 26-27: clamp, record a decrease. */
    private Change finish(Window w, long next, Change change, long nowNs) {
        long prev = w.cwnd;
        long cwnd = p.clamp(next);                                                 // line 26
        boolean high = next > p.maxCwnd;
        eventHigh |= high;
        eventLow |= !high && next < p.minEff() || high && p.maxCwnd < p.minEff();
        if (p.line27AsPrinted ? cwnd <= prev : cwnd < prev) {                       // line 27
            w.tLastDecrease = nowNs & TIME_MASK;
            w.decreased = true;
        }
        w.cwnd = cwnd;
        return change;
    }

    /**
     * One event, as the block takes it: the update it emits, or null for a flow id >= N (counted in
     * OUT_OF_RANGE; the unit ignores it). Every event is counted as the unit's count registers count it.
     */
    public Update apply(Event e) {
        if (e.flow() >= flows.length) {
            counters.inc("OUT_OF_RANGE");
            return null;
        }
        Update u = applyInRange(e);
        counters.inc("EVENTS");
        counters.inc(switch (e.kind()) {
            case ACK -> "ACKS";
            case NACK -> "NACKS";
            case TIMEOUT -> "TIMEOUTS";
            case INIT -> "INITS";
        });
        if (e.kind() != Kind.INIT) {
            counters.add("FABRIC_INCREASES", u.fabric() == Change.INCREASE ? 1 : 0);
            counters.add("FABRIC_DECREASES", u.fabric() == Change.DECREASE ? 1 : 0);
            counters.add("ENDPOINT_INCREASES", u.endpoint() == Change.INCREASE ? 1 : 0);
            counters.add("ENDPOINT_DECREASES", u.endpoint() == Change.DECREASE ? 1 : 0);
            counters.add("HELD", u.fabric() == Change.NONE || u.endpoint() == Change.NONE ? 1 : 0);
            counters.add("RESETS", u.fabric() == Change.RESET ? 1 : 0);
        }
        counters.add("PACED", u.pacingNs() != 0 ? 1 : 0);
        return u;
    }

    private Update applyInRange(Event e) {
        Flow f = flows[e.flow()];
        Change fabric;
        Change endpoint;
        eventHigh = false;
        eventLow = false;
        switch (e.kind()) {
            case INIT -> {
                init(e.flow());
                return update(e.flow(), Change.NONE, Change.NONE);
            }
            case ACK -> {
                long[] ch = ack(f, e.rttNs(), e.endpointDelayNs(), e.hops(), e.acked(), e.nowNs());
                fabric = Change.values()[(int) ch[0]];
                endpoint = Change.values()[(int) ch[1]];
            }
            case TIMEOUT -> {                                                      // lines 15-21
                f.retransmitCount = Math.min(f.retransmitCount + 1, p.retxResetThreshold);
                boolean reset = f.retransmitCount >= p.retxResetThreshold;
                long fs = flowScalingNs(f.fabric.cwnd);
                fabric = loss(f.fabric, reset, f.rttNs, e.nowNs());
                endpoint = loss(f.endpoint, reset, f.rttNs, e.nowNs());
                f.fsNs = fs;
            }
            default -> {                                                           // NACK: fast recovery, lines 22-25
                f.retransmitCount = 0;
                long fs = flowScalingNs(f.fabric.cwnd);
                fabric = loss(f.fabric, false, f.rttNs, e.nowNs());
                endpoint = loss(f.endpoint, false, f.rttNs, e.nowNs());
                f.fsNs = fs;
            }
        }
        counters.add("CLAMPED_MAX", eventHigh ? 1 : 0);
        counters.add("CLAMPED_MIN", eventLow ? 1 : 0);
        return update(e.flow(), fabric, endpoint);
    }

    private Update update(int i, Change fabric, Change endpoint) {
        Flow f = flows[i];
        long pacing = pacingRaw(i);
        counters.add("PACING_SATURATED", pacing > 0xFFFF_FFFFL ? 1 : 0);
        return new Update(i, f.cwnd(), f.fabric.cwnd, f.endpoint.cwnd, fabric, endpoint, Math.min(pacing, 0xFFFF_FFFFL));
    }

    /** A timeout or fast recovery on one window: min_cwnd at the threshold, else 1 - max_mdf once an RTT. */
    private Change loss(Window w, boolean reset, long rttNs, long nowNs) {
        if (reset) {
            return finish(w, p.minEff(), Change.RESET, nowNs);
        }
        if (canDecrease(w, rttNs, nowNs)) {
            return finish(w, scaled(w.cwnd, p.floorFactor()), Change.DECREASE, nowNs);
        }
        return finish(w, w.cwnd, Change.NONE, nowNs);
    }

    /** Alg. 1 lines 4-14 on both windows; returns the two changes' ordinals. */
    private long[] ack(Flow f, long rttNs, long endpointDelayNs, int hops, long acked, long nowNs) {
        f.retransmitCount = 0;                                                     // line 4
        f.rttNs = rttNs;
        f.endpointDelay += ((endpointDelayNs << EWMA_FRAC) - f.endpointDelay) >> p.endpointEwmaShift; // Sec. 3.3
        counters.add("RTT_ZERO", rttNs == 0 ? 1 : 0);
        counters.add("ENDPOINT_ABOVE_RTT", endpointDelayNs > rttNs ? 1 : 0);
        counters.add("HOPS_CLAMPED", hops > MAX_HOPS ? 1 : 0);
        long aiAcked = p.ai * acked;
        long floor = p.floorFactor();
        // The fabric window: delay rtt - endpoint delay against base + hops x per_hop + fs (Sec. 3.3, 3.5).
        long fs = flowScalingNs(f.fabric.cwnd);
        long delay = Math.max(0, rttNs - endpointDelayNs);
        long eventTarget = p.baseTargetNs + Math.min(hops, MAX_HOPS) * p.perHopNs;
        Change fabric;
        if (delay == 0 || delay < eventTarget + f.fsNs) {                           // lines 6-10
            fabric = finish(f.fabric, f.fabric.cwnd + increase(f.fabric, aiAcked), Change.INCREASE, nowNs);
        } else if (canDecrease(f.fabric, rttNs, nowNs)) {                          // lines 11-14
            long factor = Math.max(factorOf(eventTarget, delay) + ((f.fsNs * betaOver(delay)) >> G), floor);
            fabric = finish(f.fabric, scaled(f.fabric.cwnd, factor), Change.DECREASE, nowNs);
        } else {
            fabric = finish(f.fabric, f.fabric.cwnd, Change.NONE, nowNs);
        }
        f.fsNs = fs;
        // The endpoint window: the EWMA against the endpoint target.
        long endpointDelay = f.endpointDelay >> EWMA_FRAC;
        long target = p.endpointTargetNs;
        Change endpoint;
        if (endpointDelay == 0 || endpointDelay < target) {
            endpoint = finish(f.endpoint, f.endpoint.cwnd + increase(f.endpoint, aiAcked), Change.INCREASE, nowNs);
        } else if (canDecrease(f.endpoint, rttNs, nowNs)) {
            long factor = Math.max(factorOf(target, endpointDelay), floor);
            endpoint = finish(f.endpoint, scaled(f.endpoint.cwnd, factor), Change.DECREASE, nowNs);
        } else {
            endpoint = finish(f.endpoint, f.endpoint.cwnd, Change.NONE, nowNs);
        }
        return new long[] {fabric.ordinal(), endpoint.ordinal()};
    }

    /**
     * An ACK of `acked` packets (x 2^-10): the measured RTT, the endpoint delay it carried (both ns),
     * the forward hops. Returns the effective window.
     */
    public long ack(int i, long rttNs, long endpointDelayNs, int hops, long acked, long nowNs) {
        return apply(new Event(i, Kind.ACK, rttNs, endpointDelayNs, hops, acked, nowNs)).cwnd();
    }

    /** A retransmission timeout (lines 15-21), on both windows. */
    public long timeout(int i, long nowNs) {
        return apply(new Event(i, Kind.TIMEOUT, 0, 0, 0, 0, nowNs)).cwnd();
    }

    /** Fast recovery (lines 22-25): a NACK of a trimmed packet. */
    public long fastRecovery(int i, long nowNs) {
        return apply(new Event(i, Kind.NACK, 0, 0, 0, 0, nowNs)).cwnd();
    }

    /** Lines 29-32: the inter-packet gap rtt / cwnd in ns below one packet (saturated to 32 bits), else 0. */
    public long pacingDelayNs(int i) {
        return Math.min(pacingRaw(i), 0xFFFF_FFFFL);
    }

    private long pacingRaw(int i) {
        Flow f = flows[i];
        long c = f.cwnd();
        if (c >= ONE) {
            return 0;
        }
        int msb = msb(c);
        return shiftRight(f.rttNs * RECIP[index(c, msb, RECIP_INDEX)], RECIP_VALUE + msb - CWND_FRAC);
    }
}
