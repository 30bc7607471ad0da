// SPDX-License-Identifier: Apache-2.0
package uehw.model.rccc;

import uehw.model.Counters;
import uehw.model.Xorshift32;

/**
 * The rccc-pacer's oversubscription controller (its `oversubscribed-cc` option) clock by clock:
 * the interval counts, the interval boundaries and the micro-program's phases with their edges
 * (docs/rccc.md, "The oversubscription controller"), each decision by {@link OversubscribedCcFixed}.
 * {@link RcccPacerModel} calls {@link #edge} once a clock, before it uses {@link #psPerQuantum()}.
 */
public final class OversubscribedCcClocked {
    /** A packet arriving at the receiver: ECN-marked, trimmed, trimmed at the last hop. */
    public record Arrival(boolean ecn, boolean trimmed, boolean lastHop) {
    }

    public static final int MIN_PERIOD_CLOCKS = 512;
    /** The serial unit's phases of 32 edges (a load and 31 steps). */
    static final int ARITHMETIC_EDGES = 32;

    // the micro-program's phases (RcccOversubscribedCc.Pc) and their edges
    private static final int IDLE = 0, DRAW = 1, DRAW_ADD = 2, UNTRIMMED = 3, DIV_FRACTION = 4, DIV_TRIM = 5,
            APPLY_TRIM = 6, MUL_MD = 7, APPLY_MD = 8, FLOOR = 9, CAP = 10, DIV_QUANTUM = 11, WRITE = 12;
    private static final int[] EDGES = {1, ARITHMETIC_EDGES, 1, 1, ARITHMETIC_EDGES, ARITHMETIC_EDGES, 1,
            ARITHMETIC_EDGES, 1, 1, 1, ARITHMETIC_EDGES, 1};

    public final OversubscribedCcFixed rules;
    public final Counters counters = new Counters("OCC_ARRIVALS", "OCC_MARKED", "OCC_TRIMMED_LAST_HOP", "OCC_TRIMMED_OTHER",
            "OCC_DECISIONS");
    /** The registers OCC_PERIOD_CLOCKS and OCC_MIN_RATE as the block holds them. */
    public long periodClocks;
    public long minRate;

    private final Xorshift32 prng;
    private boolean started;
    private long remaining;
    private final long[] counts = new long[4];   // total, marked, trimmed at the last hop, trimmed before it
    private final long[] snapshot = new long[4];
    private boolean drawPending, decidePending, deciding;
    private long periodUsed = MIN_PERIOD_CLOCKS;
    private long draw;
    private long scaled;
    private int pc, n;
    private long minRateSampled;
    private long baseUsed;
    /** PS_PER_QUANTUM differed from baseUsed at the edge before (the block's register). */
    private boolean baseChanged;
    private long quotient;
    private long psPerQuantum;
    private long rate = OversubscribedCcFixed.ONE;
    private long g;

    /** @param resetPsPerQuantum PS_PER_QUANTUM's reset value (the time per quantum until the first division) */
    public OversubscribedCcClocked(long periodClocks, long minRate, long seed, long resetPsPerQuantum) {
        this.periodClocks = periodClocks;
        this.minRate = minRate;
        this.rules = new OversubscribedCcFixed(Math.max(1, Math.min(minRate, OversubscribedCcFixed.ONE)));
        this.prng = new Xorshift32(seed);
        this.baseUsed = resetPsPerQuantum;
        this.psPerQuantum = resetPsPerQuantum;
    }

    /** The time per quantum in use (OCC_PS_PER_QUANTUM). */
    public long psPerQuantum() {
        return psPerQuantum;
    }

    /** OCC_RATE and OCC_G: as the last decision left them. */
    public long rate() {
        return rate;
    }

    public long g() {
        return g;
    }

    /** Whether the next edge ends an interval (or starts the first): an arrival presented there counts in the next. */
    public boolean boundaryAtNextEdge() {
        return !started || remaining == 1;
    }

    /** No decision or division running or waiting. */
    public boolean quiet(long basePsPerQuantum) {
        return pc == IDLE && !drawPending && baseUsed == basePsPerQuantum && !baseChanged;
    }

    /**
     * One clock edge. {@code started} is whether the pacer's ports are open (the first interval
     * starts at the first edge they are); {@code arrival} what the arrival port presents (null:
     * valid low); {@code basePsPerQuantum} the PS_PER_QUANTUM register before this edge.
     */
    public void edge(boolean portsOpen, Arrival arrival, long basePsPerQuantum) {
        boolean tick = started && remaining == 1;
        boolean boundary = tick || portsOpen && !started;
        boolean addScaled = pc == DRAW_ADD;

        // the counts: a boundary starts the next interval with this edge's arrival
        if (tick) {
            System.arraycopy(counts, 0, snapshot, 0, 4);
        }
        if (boundary) {
            java.util.Arrays.fill(counts, 0);
        }
        if (arrival != null) {
            counters.inc("OCC_ARRIVALS");
            count(0);
            if (arrival.trimmed()) {
                counters.inc(arrival.lastHop() ? "OCC_TRIMMED_LAST_HOP" : "OCC_TRIMMED_OTHER");
                count(arrival.lastHop() ? 2 : 3);
            } else if (arrival.ecn()) {
                counters.inc("OCC_MARKED");
                count(1);
            }
        }

        // the micro-program, on the values before this edge
        boolean changed = baseChanged;
        baseChanged = basePsPerQuantum != baseUsed;
        switch (pc) {
            case IDLE -> {
                if (drawPending) {
                    next(DRAW);
                    deciding = decidePending;
                    drawPending = false;
                    decidePending = false;
                } else if (changed) {
                    next(DIV_QUANTUM);
                }
            }
            case DRAW -> {
                if (n == 0) { // oversubscribed_cc.h:24-27: the draw scaled onto half the period + 1
                    scaled = draw * ((periodUsed >> 1) + 1) >>> 32;
                }
                advance(DRAW_ADD);
            }
            case DRAW_ADD -> advance(deciding ? UNTRIMMED : IDLE);
            case FLOOR -> {
                minRateSampled = minRate;
                advance(CAP);
            }
            case CAP -> {
                rules.minRateRegister(minRateSampled);
                rules.control(snapshot[0], snapshot[1], snapshot[2], snapshot[3]);
                rate = rules.rate();
                g = rules.g();
                counters.inc("OCC_DECISIONS");
                advance(DIV_QUANTUM);
            }
            case DIV_QUANTUM -> {
                if (n == 0) { // uec.cpp:3132-3139
                    baseUsed = basePsPerQuantum;
                    quotient = rules.psPerQuantum(basePsPerQuantum);
                }
                advance(WRITE);
            }
            case WRITE -> {
                psPerQuantum = quotient;
                advance(IDLE);
            }
            default -> advance(pc + 1);   // the divisions and the multiply: their results are the decision's
        }

        // the interval timer
        if (boundary) {
            started = true;
            long p = Math.max(periodClocks, MIN_PERIOD_CLOCKS);
            periodUsed = p;
            remaining = 3 * p / 4;
            draw = prng.next();
            drawPending = true;
            decidePending = tick;
        } else if (started) {
            remaining = remaining - 1 + (addScaled ? scaled : 0);
        }
    }

    /** An interval of at most 1.25 x (2^20 - 1) clocks counts at most one arrival a clock: below 2^21, never saturated. */
    private void count(int i) {
        counts[i]++;
    }

    private void next(int phase) {
        pc = phase;
        n = 0;
    }

    /** The phase's edge done: the next edge of it, or the next phase. */
    private void advance(int nextPhase) {
        if (n == EDGES[pc] - 1) {
            next(nextPhase);
        } else {
            n++;
        }
    }
}
