// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

import static uehw.model.swift.SwiftFixedArith.RECIP;
import static uehw.model.swift.SwiftFixedArith.RSQRT;
import static uehw.model.swift.SwiftFixedArith.index;
import static uehw.model.swift.SwiftFixedArith.msb;
import static uehw.model.swift.SwiftFixedArith.ratio16;
import static uehw.model.swift.SwiftFixedArith.shiftRight;

import uehw.model.Counters;

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

    public SwiftFixedParams p;
    private final Flow[] flows;
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("EVENTS", "ACKS", "NACKS", "TIMEOUTS", "INITS", "FABRIC_INCREASES",
            "FABRIC_DECREASES", "ENDPOINT_INCREASES", "ENDPOINT_DECREASES", "HELD", "RESETS", "PACED", "OUT_OF_RANGE",
            "RTT_ZERO", "ENDPOINT_ABOVE_RTT", "HOPS_CLAMPED", "CLAMPED_MAX", "CLAMPED_MIN", "PACING_SATURATED");
    /** The rules' rows (one window at a time), and this event's clamps. */
    private final SwiftRules rules = new SwiftRules(this);

    public SwiftFixedModel(int flows, SwiftFixedParams p) {
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
        long w = p.clamp(p.initCwnd());
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

    /** The 1/sqrt tables (the block's ROM), per parity of the leading one. */
    public static long[][] rsqrtTables() {
        return SwiftFixedArith.rsqrtTables(RSQRT_INDEX, RSQRT_VALUE);
    }

    /** Sec. 3.5 flow scaling for a fabric window (window units): clamp(alpha / sqrt(fcwnd) + beta, 0, fs_range) ns. */
    public long flowScalingNs(long fcwnd) {
        // of 2 fcwnd / 2^(F + 1) when F is odd, so that the fraction bits are even: its leading one is one up
        int odd = CWND_FRAC & 1;
        int msb = msb(fcwnd) + odd;
        long r = RSQRT[msb & 1][index(fcwnd, msb - odd, RSQRT_INDEX)];
        // 1/sqrt(x / 2^F') = r x 2^(F'/2) / 2^(V + msb / 2), msb / 2 rounded down
        long term = shiftRight(p.fsAlpha() * r, RSQRT_VALUE + msb / 2 - (CWND_FRAC + odd) / 2) + p.fsBeta();
        return Math.max(0, Math.min(term, p.fsRangeNs()));
    }

    /** Sec. 3.5: base_target + hops x per_hop + flow scaling of the window given. */
    public long fabricTargetNs(int hops, long fcwnd) {
        return p.baseTargetNs() + hops * p.perHopNs() + flowScalingNs(fcwnd);
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
        rules.high = false;
        rules.low = false;
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
                f.retransmitCount = Math.min(f.retransmitCount + 1, p.retxResetThreshold());
                boolean reset = f.retransmitCount >= p.retxResetThreshold();
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
        counters.add("CLAMPED_MAX", rules.high ? 1 : 0);
        counters.add("CLAMPED_MIN", rules.low ? 1 : 0);
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
            return rules.reset(w, nowNs);
        }
        if (SwiftRules.canDecrease(w, rttNs, nowNs)) {
            return rules.decrease(w, p.floorFactor(), nowNs);
        }
        return rules.held(w, nowNs);
    }

    /** Alg. 1 lines 4-14 on both windows; returns the two changes' ordinals. */
    private long[] ack(Flow f, long rttNs, long endpointDelayNs, int hops, long acked, long nowNs) {
        f.retransmitCount = 0;                                                     // line 4
        f.rttNs = rttNs;
        f.endpointDelay += ((endpointDelayNs << EWMA_FRAC) - f.endpointDelay) >> p.endpointEwmaShift(); // Sec. 3.3
        counters.add("RTT_ZERO", rttNs == 0 ? 1 : 0);
        counters.add("ENDPOINT_ABOVE_RTT", endpointDelayNs > rttNs ? 1 : 0);
        counters.add("HOPS_CLAMPED", hops > MAX_HOPS ? 1 : 0);
        long aiAcked = p.ai() * acked;
        long floor = p.floorFactor();
        // The fabric window: delay rtt - endpoint delay against base + hops x per_hop + fs (Sec. 3.3, 3.5).
        long fs = flowScalingNs(f.fabric.cwnd);
        long delay = Math.max(0, rttNs - endpointDelayNs);
        long eventTarget = p.baseTargetNs() + Math.min(hops, MAX_HOPS) * p.perHopNs();
        Change fabric;
        if (delay == 0 || delay < eventTarget + f.fsNs) {                           // lines 6-10
            fabric = rules.increase(f.fabric, aiAcked, nowNs);
        } else if (SwiftRules.canDecrease(f.fabric, rttNs, nowNs)) {                          // lines 11-14
            long factor = Math.max(factorOf(eventTarget, delay) + ((f.fsNs * betaOver(delay)) >> G), floor);
            fabric = rules.decrease(f.fabric, factor, nowNs);
        } else {
            fabric = rules.held(f.fabric, nowNs);
        }
        f.fsNs = fs;
        // The endpoint window: the EWMA against the endpoint target.
        long endpointDelay = f.endpointDelay >> EWMA_FRAC;
        long target = p.endpointTargetNs();
        Change endpoint;
        if (endpointDelay == 0 || endpointDelay < target) {
            endpoint = rules.increase(f.endpoint, aiAcked, nowNs);
        } else if (SwiftRules.canDecrease(f.endpoint, rttNs, nowNs)) {
            long factor = Math.max(factorOf(target, endpointDelay), floor);
            endpoint = rules.decrease(f.endpoint, factor, nowNs);
        } else {
            endpoint = rules.held(f.endpoint, nowNs);
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
