package uehw.sim.swift;

import uehw.sim.smartt.SmarttFixedModel;

/**
 * Swift (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) in the fixed-point formats a hardware law would
 * use: integers, table reciprocals and truncating shifts only, so that it can be the specification
 * of the RTL law. {@link SwiftExactModel} is the exact reference; {@code SwiftFixedModelTest}
 * measures the error between the two.
 *
 * <p>Formats: windows in packets x 2^-{@value #CWND_FRAC} (0.001 packets is 1049 LSBs); gains
 * (beta, max_mdf) u1.{@value #GAIN_FRAC}; ai in window units; delays and times in whole ns, times
 * modulo 2^{@value #TIME_BITS}; the endpoint-delay EWMA in ns x 2^-{@value #EWMA_FRAC} with the
 * gain 2^-shift. Division by the window, the delay and the RTT: 1/x ~ recip[I bits below the
 * leading one] / 2^(V + msb), SMaRTT's table (I = 10, V = 14). Flow scaling's 1/sqrt(fcwnd): the
 * same normalisation with a table per parity of msb (I = 8, V = 14). ACKed packets in window units
 * (a product of two window values stays below 2^63 up to 64 packets an ACK). Flow scaling's alpha and beta
 * are parameters in ns (alpha in ns x packets^0.5), computed from fs_range, fs_min_cwnd and
 * fs_max_cwnd by {@link Params#of}.
 */
public final class SwiftFixedModel {
    public static final int CWND_FRAC = 20;
    public static final int GAIN_FRAC = 15;
    public static final int EWMA_FRAC = 4;
    public static final int TIME_BITS = 32;
    public static final int RECIP_INDEX = 10;
    public static final int RECIP_VALUE = 14;
    public static final int RSQRT_INDEX = 8;
    public static final int RSQRT_VALUE = 14;
    public static final long ONE = 1L << CWND_FRAC;
    /** Forward hops are 4 bits: a larger TTL difference scales the target as 15 hops (counted). */
    public static final int MAX_HOPS = 15;
    private static final long[] RECIP = SmarttFixedModel.reciprocalTable(RECIP_INDEX, RECIP_VALUE);
    private static final long[][] RSQRT = rsqrtTables(RSQRT_INDEX, RSQRT_VALUE);

    /** The law's constants in their fixed formats. */
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
            return new Params(cwnd(p.ai), gain(p.beta), gain(p.maxMdf), cwnd(p.minCwnd), cwnd(p.maxCwnd), cwnd(p.initCwnd),
                    p.retxResetThreshold, Math.round(p.baseTargetNs), Math.round(p.perHopNs), Math.round(p.fsRangeNs),
                    Math.round(alpha), Math.round(-alpha / Math.sqrt(p.fsMaxCwnd)), Math.round(p.endpointTargetNs), shift,
                    p.line27AsPrinted);
        }
    }

    public static long cwnd(double packets) {
        return Math.round(packets * ONE);
    }

    public static long gain(double g) {
        return Math.round(g * (1 << GAIN_FRAC));
    }

    /** One window of Alg. 1 with its last-decrease time (none yet: any time may decrease). */
    public static final class Window {
        public long cwnd;
        public long tLastDecrease;
        public boolean decreased;
    }

    /** A flow's state. */
    public static final class Flow {
        public final Window fabric = new Window();
        public final Window endpoint = new Window();
        public int retransmitCount;
        public long endpointDelay;     // ns x 2^-EWMA_FRAC
        public long rttNs;

        public long cwnd() {
            return Math.min(fabric.cwnd, endpoint.cwnd);
        }
    }

    public final Params p;
    private final Flow[] flows;
    /** Bad input, defined and counted: ACKs with rtt 0 (their fabric delay is 0: below any target). */
    public long rttZero;
    /** ACKs whose endpoint delay exceeds the RTT (their fabric delay is 0). */
    public long endpointAboveRtt;
    /** ACKs with more than MAX_HOPS forward hops (taken as MAX_HOPS). */
    public long hopsClamped;

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

    public void init(int i) {
        Flow f = new Flow();
        f.fabric.cwnd = p.initCwnd;
        f.endpoint.cwnd = p.initCwnd;
        flows[i] = f;
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

    /** The I bits below the leading one of x > 0 (zero-padded below). */
    private static int index(long x, int msb, int indexBits) {
        long below = x - (1L << msb);
        return (int) (msb >= indexBits ? below >>> (msb - indexBits) : below << (indexBits - msb));
    }

    /** floor(a x b / x) for a, b >= 0 and x > 0, through the reciprocal table: a x b x recip >> (V + msb). */
    static long mulDiv(long a, long b, long x) {
        int msb = 63 - Long.numberOfLeadingZeros(x);
        return shiftRight(a * b * RECIP[index(x, msb, RECIP_INDEX)], RECIP_VALUE + msb);
    }

    private static long shiftRight(long v, int s) {
        return s >= 0 ? v >> s : v << -s;
    }

    /** Sec. 3.5 flow scaling for a fabric window (window units): clamp(alpha / sqrt(fcwnd) + beta, 0, fs_range) ns. */
    public long flowScalingNs(long fcwnd) {
        int msb = 63 - Long.numberOfLeadingZeros(fcwnd);
        long r = RSQRT[msb & 1][index(fcwnd, msb, RSQRT_INDEX)];
        // 1/sqrt(fcwnd / 2^F) = r x 2^(F/2) / 2^(V + msb / 2), msb / 2 rounded down
        long term = shiftRight(p.fsAlpha * r, RSQRT_VALUE + msb / 2 - CWND_FRAC / 2) + p.fsBeta;
        return Math.max(0, Math.min(term, p.fsRangeNs));
    }

    /** Sec. 3.5: base_target + hops x per_hop + flow scaling. */
    public long fabricTargetNs(int hops, long fcwnd) {
        return p.baseTargetNs + hops * p.perHopNs + flowScalingNs(fcwnd);
    }

    private enum Event { ACK, TIMEOUT, FAST_RECOVERY }

    private long decreased(long cwnd, long factor) {
        return (cwnd * factor) >> GAIN_FRAC;
    }

    /** Alg. 1 on one window (the exact model's step, in these formats). */
    private void step(Window w, Event e, boolean resetToMin, long delayNs, long targetNs, long rttNs, long acked, long nowNs) {
        long prev = w.cwnd;                                                        // line 2
        long elapsed = (nowNs - w.tLastDecrease) & ((1L << TIME_BITS) - 1);
        boolean canDecrease = !w.decreased || elapsed >= rttNs;                    // line 3
        long cwnd = prev;
        long floor = (1L << GAIN_FRAC) - p.maxMdf;                                // 1 - max_mdf
        switch (e) {
            case ACK -> {
                if (delayNs < targetNs) {                                          // lines 6-10: AI
                    cwnd += cwnd >= ONE ? mulDiv(p.ai, acked, cwnd) : (p.ai * acked) >> CWND_FRAC;
                } else if (canDecrease) {                                          // lines 11-14: MD
                    long frac = delayNs == 0 ? 0 : Math.min(mulDiv(delayNs - targetNs, 1L << GAIN_FRAC, delayNs), 1L << GAIN_FRAC);
                    long factor = Math.max((1L << GAIN_FRAC) - ((p.beta * frac) >> GAIN_FRAC), floor);
                    cwnd = decreased(cwnd, factor);
                }
            }
            case TIMEOUT -> {                                                      // lines 15-21
                if (resetToMin) {
                    cwnd = p.minCwnd;
                } else if (canDecrease) {
                    cwnd = decreased(cwnd, floor);
                }
            }
            case FAST_RECOVERY -> {                                                // lines 22-25
                if (canDecrease) {
                    cwnd = decreased(cwnd, floor);
                }
            }
        }
        cwnd = Math.max(p.minCwnd, Math.min(cwnd, p.maxCwnd));                    // line 26
        if (p.line27AsPrinted ? cwnd <= prev : cwnd < prev) {                       // line 27
            w.tLastDecrease = nowNs & ((1L << TIME_BITS) - 1);
            w.decreased = true;
        }
        w.cwnd = cwnd;
    }

    /**
     * An ACK of `acked` packets (window units, so a part of a packet counts its part): the measured
     * RTT, the endpoint delay it carried (both ns), the forward hops.
     */
    public long ack(int i, long rttNs, long endpointDelayNs, int hops, long acked, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount = 0;                                                     // line 4
        f.rttNs = rttNs;
        f.endpointDelay += ((endpointDelayNs << EWMA_FRAC) - f.endpointDelay) >> p.endpointEwmaShift; // Sec. 3.3
        rttZero += rttNs == 0 ? 1 : 0;
        endpointAboveRtt += endpointDelayNs > rttNs ? 1 : 0;
        hopsClamped += hops > MAX_HOPS ? 1 : 0;
        long fabricDelay = Math.max(0, rttNs - endpointDelayNs);
        long target = fabricTargetNs(Math.min(hops, MAX_HOPS), f.fabric.cwnd);
        step(f.fabric, Event.ACK, false, fabricDelay, target, rttNs, acked, nowNs);
        step(f.endpoint, Event.ACK, false, f.endpointDelay >> EWMA_FRAC, p.endpointTargetNs, rttNs, acked, nowNs);
        return f.cwnd();
    }

    /** A retransmission timeout (lines 15-21), on both windows. */
    public long timeout(int i, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount = Math.min(f.retransmitCount + 1, p.retxResetThreshold);
        boolean reset = f.retransmitCount >= p.retxResetThreshold;
        step(f.fabric, Event.TIMEOUT, reset, 0, 0, f.rttNs, 0, nowNs);
        step(f.endpoint, Event.TIMEOUT, reset, 0, 0, f.rttNs, 0, nowNs);
        return f.cwnd();
    }

    /** Fast recovery (lines 22-25): a NACK of a trimmed packet. */
    public long fastRecovery(int i, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount = 0;
        step(f.fabric, Event.FAST_RECOVERY, false, 0, 0, f.rttNs, 0, nowNs);
        step(f.endpoint, Event.FAST_RECOVERY, false, 0, 0, f.rttNs, 0, nowNs);
        return f.cwnd();
    }

    /** Lines 29-32: the inter-packet gap rtt / cwnd in ns below one packet (saturated to 32 bits), else 0. */
    public long pacingDelayNs(int i) {
        Flow f = flows[i];
        long c = f.cwnd();
        return c < ONE ? Math.min(mulDiv(f.rttNs, ONE, c), 0xFFFF_FFFFL) : 0;
    }
}
