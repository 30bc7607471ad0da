// SPDX-License-Identifier: Apache-2.0
package uehw.model.rccc;

import uehw.model.Xorshift32;

/**
 * RCCC's oversubscription controller in fixed point: the specification of the rccc-pacer block's
 * controller option (docs/rccc.md, "The oversubscription controller"), each rule of
 * oversubscribed_cc.cpp:39-85 in integers. Rate, average and fraction are fractions of 2^30
 * (F = 30; the rate signed: trims may take it below 0 before the floor). Against
 * OversubscribedCcExact it differs by the fraction's and the decreases' truncation (below 2^-30 a
 * decision) and by 0.01 taken as 10,737,418 / 2^30 (0.24 units low an increase); a decision whose
 * average lies within 2^-29 of the 0.3 threshold may go the other way (OversubscribedCcTest
 * measures both). The controller decides once in microseconds, so the hardware computes it
 * serially and the width costs no timing.
 */
public final class OversubscribedCcFixed {
    public static final int F = 30;
    public static final long ONE = 1L << F;
    /** 0.3 x 2^30 = 322,122,547.2: an average above 0.3 is one at or above 322,122,548. */
    public static final long TARGET = 322_122_548;
    /** 0.01 x 2^30 = 10,737,418.24, truncated. */
    public static final long AI = 10_737_418;
    /** Increases in a row saturate here: 0.01 x 2^7 > 1, so from k = 7 on every increase reaches the cap. */
    public static final int K_MAX = 7;
    /** Counts of an interval saturate at 2^24 - 1. */
    public static final long COUNT_MAX = (1L << 24) - 1;

    private long minRate;
    private long rate = ONE;
    private long g;
    private int k;
    public long badIntervals;

    /** @param minRate the rate's floor in 2^-30 (0.01: 10,737,418), 1..2^30 */
    public OversubscribedCcFixed(long minRate) {
        if (minRate < 1 || minRate > ONE) {
            throw new IllegalArgumentException("minRate must be in 1..2^30, not " + minRate);
        }
        this.minRate = minRate;
    }

    /** The reference's floor (OversubscribedCcExact.minRate) in 2^-30, truncated. */
    public static long minRate(double oversubscriptionRatio) {
        return (long) Math.floor(OversubscribedCcExact.minRate(oversubscriptionRatio) * ONE);
    }

    /**
     * The floor as the block's OCC_MIN_RATE register sets it: 0 is taken as 1, and above 2^30 the
     * cap at 1 wins (the floor first, then the cap, oversubscribed_cc.cpp:82-85).
     */
    public void minRateRegister(long value) {
        if (value < 0 || value >= 1L << 31) {
            throw new IllegalArgumentException("OCC_MIN_RATE is 31 bits, not " + value);
        }
        minRate = Math.max(1, value);
    }

    public long rate() {
        return rate;
    }

    public long g() {
        return g;
    }

    /**
     * One decision (oversubscribed_cc.cpp:39-85) on an interval's counts, each saturated at 2^24 - 1;
     * marks and trims above the packets (bad input, the reference asserts it) are taken as the
     * packets less the others and counted in {@link #badIntervals}. Returns the rate in 2^-30.
     */
    public long control(long total, long ecn, long trimmedLastHop, long trimmedOther) {
        total = Math.min(total, COUNT_MAX);
        trimmedOther = Math.min(trimmedOther, total);
        trimmedLastHop = Math.min(trimmedLastHop, total - trimmedOther);
        long untrimmed = total - trimmedOther - trimmedLastHop;
        if (ecn > untrimmed) {
            badIntervals++;
            ecn = untrimmed;
        }
        // :54-55: the marked fraction of the untrimmed packets, truncated
        long fraction = untrimmed == 0 ? 0 : (ecn << F) / untrimmed;
        boolean decrease = false;
        if (trimmedOther > 0) { // :58-61
            rate -= ((trimmedOther << F) + total - 1) / total; // rounded up: the decrease is never smaller than the exact one
            decrease = true;
        }
        g = (g + fraction) >> 1; // :63, alpha = 1/2
        if (g >= TARGET) { // :65-68: rate x (1 - (g - 0.3) / 2), the factor truncated
            long factor = ONE - ((g - TARGET) >> 1); // (g - 0.3 x 2^30) / 2, 0.3 x 2^30 taken as TARGET (0.8 above it)
            rate = Math.floorDiv(rate * factor, ONE);
            decrease = true;
        }
        if (!decrease) { // :70-80
            rate += ecn == 0 ? AI << k : AI;
            k = Math.min(k + 1, K_MAX);
        } else {
            k = 0;
        }
        rate = Math.min(ONE, Math.max(minRate, rate)); // :82-85
        return rate;
    }

    /** uec.cpp:3132-3139: the time per quantum under the rate, floor(base x 2^30 / rate), saturated at 2^24 - 1 (the CSR's width). */
    public long psPerQuantum(long basePsPerQuantum) {
        return Math.min((basePsPerQuantum << F) / rate, (1L << 24) - 1);
    }

    /**
     * oversubscribed_cc.h:24-27 in clocks: U[0.75, 1.25] x {@code periodClocks} (1.5 network RTTs),
     * as 3/4 of the period plus a draw scaled onto half of it.
     */
    public static long interval(long periodClocks, Xorshift32 random) {
        return periodClocks * 3 / 4 + random.nextScaled(periodClocks / 2 + 1);
    }
}
