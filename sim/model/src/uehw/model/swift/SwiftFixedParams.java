// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

import static uehw.model.swift.SwiftFixedModel.AI_FRAC;
import static uehw.model.swift.SwiftFixedModel.GAIN_ONE;
import static uehw.model.swift.SwiftFixedModel.MIN_WINDOW;
import static uehw.model.swift.SwiftFixedModel.cwnd;
import static uehw.model.swift.SwiftFixedModel.gain;

/** Swift's constants in the fixed formats of {@link SwiftFixedModel} (the block's CSRs). */
public record SwiftFixedParams(long ai, long beta, long maxMdf, long minCwnd, long maxCwnd, long initCwnd, int retxResetThreshold,
        long baseTargetNs, long perHopNs, long fsRangeNs, long fsAlpha, long fsBeta, long endpointTargetNs, int endpointEwmaShift,
        boolean line27AsPrinted) {
    /** The fixed form of the exact model's parameters (endpointEwma must be a power of two). */
    public static SwiftFixedParams of(SwiftParams p) {
        int shift = Long.numberOfTrailingZeros(Math.round(1 / p.endpointEwma));
        if (Math.abs(Math.pow(2, -shift) - p.endpointEwma) > 1e-12) {
            throw new IllegalArgumentException("endpointEwma " + p.endpointEwma + " is not a power of two");
        }
        double alpha = p.fsRangeNs / (1 / Math.sqrt(p.fsMinCwnd) - 1 / Math.sqrt(p.fsMaxCwnd));
        return new SwiftFixedParams(Math.round(p.ai * (1 << AI_FRAC)), gain(p.beta), gain(p.maxMdf), cwnd(p.minCwnd), cwnd(p.maxCwnd),
                cwnd(p.initCwnd), p.retxResetThreshold, Math.round(p.baseTargetNs), Math.round(p.perHopNs),
                Math.round(p.fsRangeNs), Math.round(alpha), Math.round(-alpha / Math.sqrt(p.fsMaxCwnd)),
                Math.round(p.endpointTargetNs), shift, p.line27AsPrinted);
    }

    /** The same with other window limits (MIN_CWND, MAX_CWND). */
    public SwiftFixedParams withLimits(long min, long max) {
        return new SwiftFixedParams(ai, beta, maxMdf, min, max, initCwnd, retxResetThreshold, baseTargetNs, perHopNs, fsRangeNs,
                fsAlpha, fsBeta, endpointTargetNs, endpointEwmaShift, line27AsPrinted);
    }

    public SwiftFixedParams withLine27AsPrinted(boolean asPrinted) {
        return new SwiftFixedParams(ai, beta, maxMdf, minCwnd, maxCwnd, initCwnd, retxResetThreshold, baseTargetNs, perHopNs, fsRangeNs,
                fsAlpha, fsBeta, endpointTargetNs, endpointEwmaShift, asPrinted);
    }

    /** The same with another flow-scaling range (FS_RANGE). */
    public SwiftFixedParams withFsRange(long rangeNs) {
        return new SwiftFixedParams(ai, beta, maxMdf, minCwnd, maxCwnd, initCwnd, retxResetThreshold, baseTargetNs, perHopNs, rangeNs,
                fsAlpha, fsBeta, endpointTargetNs, endpointEwmaShift, line27AsPrinted);
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
