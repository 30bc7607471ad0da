// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

/**
 * Swift's parameters (swift-excerpt.txt Alg. 1, Sec. 3.3-3.5). Windows are in packets, delays in ns.
 * The defaults are ours for the 100 Gb/s, 12 us incast star of the experiments (the excerpt gives
 * the rules, not the production values): a fabric target of the base RTT plus 1 us a hop plus the
 * flow-scaling term, which adds up to 4 us for windows from 100 packets down to 0.1.
 */
public final class SwiftParams implements Cloneable {
    public double ai = 1.0;                 // additive increment, packets per RTT (Alg. 1 line 1)
    public double beta = 0.8;               // multiplicative decrease constant
    public double maxMdf = 0.5;             // maximum multiplicative decrease factor
    public double minCwnd = 0.001;          // Sec. 3.4: down to 0.001 packets
    public double maxCwnd = 73;             // 2 x BDP (150 KB / 4096 B)
    public double initCwnd = 36.6;          // one BDP
    public int retxResetThreshold = 5;      // RETX_RESET_THRESHOLD (lines 17-18)
    public double baseTargetNs = 12_000;    // Sec. 3.5: the fixed part of the fabric target
    public double perHopNs = 1_000;         // Sec. 3.5: topology scaling, per forward hop
    public double fsRangeNs = 4_000;        // Sec. 3.5: flow scaling range
    public double fsMinCwnd = 0.1;
    public double fsMaxCwnd = 100;
    public double endpointTargetNs = 5_000; // Sec. 3.3: the endpoint window's target
    public double endpointEwma = 0.125;     // Sec. 3.3: EWMA of the endpoint delay (weight of a new sample)
    /**
     * Alg. 1 line 27 as printed, "if cwnd <= cwnd_prev then t_last_decrease <- now": a window held
     * (above the target, no MD allowed yet) then restarts the once-per-RTT timer on every ACK, so a
     * flow whose ACKs come more than once an RTT never decreases again (the incast experiment froze
     * windows for 700 us that way). False (the default) records only real decreases, cwnd < cwnd_prev.
     */
    public boolean line27AsPrinted = false;
    /**
     * The swift block's lag (SwiftFixedModel): the fabric target's flow-scaling term is of the window
     * the flow's previous event read, not of the one this event reads. Off: Alg. 1 as printed. (The
     * increase divides by the window the event reads either way.)
     */
    public boolean hardwareLag = false;

    /** Sec. 3.5 flow scaling: alpha / sqrt(fcwnd) + beta, clamped to [0, fs_range]. */
    public double flowScalingNs(double fcwnd) {
        double alpha = fsRangeNs / (1 / Math.sqrt(fsMinCwnd) - 1 / Math.sqrt(fsMaxCwnd));
        double b = -alpha / Math.sqrt(fsMaxCwnd);
        return Math.max(0, Math.min(alpha / Math.sqrt(fcwnd) + b, fsRangeNs));
    }

    /** Sec. 3.5: base_target + hops x per_hop + flow scaling. */
    public double fabricTargetNs(int hops, double fcwnd) {
        return baseTargetNs + hops * perHopNs + flowScalingNs(fcwnd);
    }

    @Override
    public SwiftParams clone() {
        try {
            return (SwiftParams) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }
}
