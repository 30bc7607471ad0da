// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

import uehw.model.Counters;

/**
 * DASR's sender side (dart.txt Sec. III-A): each flow sends at line rate / n, n the last value its
 * ACKs carried. A pacer per flow: a packet of b bytes sent at time t makes the flow's next packet
 * wait until max(t, next) + n x b x BYTE_TIME, BYTE_TIME the serialisation time of a byte at line
 * rate. A flow with n <= 1 (not under DASR, or alone) is paced at line rate, which the link
 * enforces anyway. It sits beside the congestion window: the transmit scheduler sends a flow's
 * packet when the window allows it and this pacer says the flow is eligible.
 *
 * <p>The specification of the {@code dasr-limiter} block, bit for bit: `now` in ns modulo 2^32,
 * the pacer's times in ns x 2^-8 modulo 2^40, BYTE_TIME in ns x 2^-16 (u8.16), the gap saturating
 * at 2^32 - 1 (16.7 ms). A flow's next time more than 2^32 units (16.7 ms) ahead of now reads as
 * eligible: one left from before the clock wrapped, or one that sends pushed beyond 16.7 ms (two
 * saturated gaps); the debt beyond 16.7 ms is dropped (docs/dasr-limiter.md).
 */
public final class DasrLimiterModel {
    public static final long TIME_MASK = (1L << 40) - 1;
    public static final long GAP_MAX = (1L << 32) - 1;

    /** The answer to a send or a query: may the flow send now, and its next time (ns, modulo 2^32). */
    public record Answer(int flow, boolean eligible, long nextNs) {
    }

    public final int flows;
    /** BYTE_TIME: ns per byte at line rate x 2^16 (800 Gb/s: 0.01 ns, 655). */
    public long byteTime;
    private final long[] next;
    private final int[] n;

    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("ACKS", "SENTS", "QUERIES", "ELIGIBLE_QUERIES", "OUT_OF_RANGE", "N_ZERO", "GAP_SATURATED", "BAD_KIND");

    public DasrLimiterModel(int flows, long byteTime) {
        this.flows = flows;
        this.byteTime = byteTime;
        next = new long[flows];
        n = new int[flows];
        java.util.Arrays.fill(n, 1);
    }

    private boolean bad(int flow) {
        if (flow < 0 || flow >= flows) {
            counters.inc("OUT_OF_RANGE");
            return true;
        }
        return false;
    }

    private static long fine(long nowNs) {
        return (nowNs << 8) & TIME_MASK;
    }

    /** Whether a flow whose next time is {@code next} may send at {@code now} (ns x 2^-8). */
    static boolean eligible(long next, long now) {
        long ahead = (next - now) & TIME_MASK;
        return ahead == 0 || ahead > (1L << 32);
    }

    /** An ACK carried n for this flow (0 acts as 1). */
    public void ack(int flow, int nValue) {
        counters.inc("ACKS");
        if (bad(flow)) {
            return;
        }
        if (nValue == 0) {
            counters.inc("N_ZERO");
        }
        n[flow] = Math.max(1, nValue);
    }

    /** The flow sent a packet of {@code bytes} at {@code nowNs}: its next time moves on. */
    public Answer sent(int flow, int bytes, long nowNs) {
        counters.inc("SENTS");
        if (bad(flow)) {
            return new Answer(flow, false, 0);
        }
        long now = fine(nowNs);
        long start = eligible(next[flow], now) ? now : next[flow];
        long gap = ((long) n[flow] * bytes * byteTime) >>> 8;
        if (gap > GAP_MAX) {
            gap = GAP_MAX;
            counters.inc("GAP_SATURATED");
        }
        next[flow] = (start + gap) & TIME_MASK;
        return new Answer(flow, eligible(next[flow], now), (next[flow] >>> 8) & 0xFFFF_FFFFL);
    }

    /** May the flow send now? */
    public Answer query(int flow, long nowNs) {
        counters.inc("QUERIES");
        if (bad(flow)) {
            return new Answer(flow, false, 0);
        }
        boolean ok = eligible(next[flow], fine(nowNs));
        counters.add("ELIGIBLE_QUERIES", ok ? 1 : 0);
        return new Answer(flow, ok, (next[flow] >>> 8) & 0xFFFF_FFFFL);
    }

    /** An event of kind 3 (not a kind): counted, nothing else. */
    public void badKind() {
        counters.inc("BAD_KIND");
    }
}
