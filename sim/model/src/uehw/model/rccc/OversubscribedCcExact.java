// SPDX-License-Identifier: Apache-2.0
package uehw.model.rccc;

/**
 * RCCC's receiver oversubscription controller in the UEC reference simulator's arithmetic (uet-htsim
 * 40ccb05 oversubscribed_cc.cpp, doubles as there), one per receiving node: every interval it
 * takes the packets the node's sinks received, of them ECN-marked and trimmed (at the last hop or
 * before), and sets the pull pacer's rate modifier, which divides the time per quantum
 * (uec.cpp:3132-3139). Its trace replays to the bit (`OversubscribedCcTest`).
 */
public final class OversubscribedCcExact {
    /** oversubscribed_cc.cpp:5-10: target congestion, additive increase, multiplicative decrease, EWMA gain, minimum rate. */
    public static final double TARGET_CONGESTION = 0.3, AI = 0.01, MD = 0.5, ALPHA = 0.5, MIN_RATE = 0.01;

    /**
     * oversubscribed_cc.h:34-39: 0.9 / the oversubscription ratio, at least 0.01; 0.01 when not
     * oversubscribed (main_uec.cpp:688-692 sets it only for a ratio above 1).
     */
    public static double minRate(double oversubscriptionRatio) {
        return oversubscriptionRatio > 1 ? Math.max(MIN_RATE, 0.9 / oversubscriptionRatio) : MIN_RATE;
    }

    private final double minRate;
    private double rate = 1;
    private double g;
    /** oversubscribed_cc.h: a uint32_t; 2^k overflows no double before the rate is clamped to 1. */
    private long increaseCount;

    public OversubscribedCcExact(double minRate) {
        this.minRate = minRate;
    }

    public double rate() {
        return rate;
    }

    public double g() {
        return g;
    }

    /**
     * oversubscribed_cc.cpp:39-85 doCongestionControl: one interval's packets received (data,
     * trimmed headers and RTS), of them ECN-marked data, trimmed at the last hop and trimmed before
     * it; returns the new rate.
     */
    public double control(int total, int ecn, int trimmedLastHop, int trimmedOther) {
        if (ecn < 0 || trimmedLastHop < 0 || trimmedOther < 0 || (long) ecn + trimmedLastHop + trimmedOther > total) {
            throw new IllegalArgumentException("an interval of " + total + " packets with " + ecn + " marked, "
                    + trimmedLastHop + " + " + trimmedOther + " trimmed"); // :49 asserts it
        }
        double fraction = 0;
        boolean decrease = false;
        if (total - trimmedLastHop - trimmedOther != 0) { // :54-55: marked out of the full data packets
            fraction = (double) ecn / (total - trimmedLastHop - trimmedOther);
        }
        if (trimmedOther > 0) { // :58-61: trims before the last hop
            rate -= (double) trimmedOther / total;
            decrease = true;
        }
        g = g * (1 - ALPHA) + ALPHA * fraction; // :63
        if (g > TARGET_CONGESTION && MD > 0) { // :65-68
            rate = rate * (1 - (g - TARGET_CONGESTION) * MD);
            decrease = true;
        }
        if (!decrease) { // :70-80
            rate += ecn == 0 ? AI * Math.pow(2, increaseCount) : AI;
            increaseCount = increaseCount + 1 & 0xFFFF_FFFFL;
        } else {
            increaseCount = 0;
        }
        rate = Math.min(1, Math.max(minRate, rate)); // :82-85
        return rate;
    }

    /** uec.cpp:3132-3139: the pacer's time per quantum under this rate, truncated to the ps as its simtime_picosec holds it. */
    public long psPerQuantum(long basePsPerQuantum) {
        return (long) (basePsPerQuantum / rate);
    }
}
