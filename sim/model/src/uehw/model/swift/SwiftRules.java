// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

import uehw.model.swift.SwiftFixedModel.Change;
import uehw.model.swift.SwiftFixedModel.Window;

/**
 * Swift's rules on one window (swift-excerpt.txt Alg. 1), a method a row of the block's rule table
 * (hw/src/uehw/hw/swift/SwiftRules.scala: HELD, INCREASE, DECREASE, RESET; docs/swift.md, "Where
 * each rule lives"), each ending in lines 26-27's clamp and decrease record as the RTL's candidates
 * do. The conditions that choose a row are the model's ({@link SwiftFixedModel}'s ack and loss).
 */
final class SwiftRules {
    private static final long TIME_MASK = (1L << SwiftFixedModel.TIME_BITS) - 1;
    private final SwiftFixedModel model;
    /** This event's clamps, over both windows (CLAMPED_MAX, CLAMPED_MIN). */
    boolean high;
    boolean low;

    SwiftRules(SwiftFixedModel model) {
        this.model = model;
    }

    /** Line 3: a window may decrease once an RTT after its last decrease (any time before its first). */
    static boolean canDecrease(Window w, long rttNs, long nowNs) {
        return !w.decreased || ((nowNs - w.tLastDecrease) & TIME_MASK) >= rttNs;
    }

    /** HELD: no change (line 3's wait, or INIT's window). */
    Change held(Window w, long nowNs) {
        return finish(w, w.cwnd, Change.NONE, nowNs);
    }

    /** INCREASE, lines 6-10: ai x acked / cwnd of the window read (line 8). */
    Change increase(Window w, long aiAcked, long nowNs) {
        return finish(w, w.cwnd + SwiftFixedArith.increment(w.cwnd, aiAcked), Change.INCREASE, nowNs);
    }

    /** DECREASE, lines 11-14 (an ACK, its factor) and 19-20, 23-24 (a loss, 1 - max_mdf): cwnd x factor. */
    Change decrease(Window w, long factor, long nowNs) {
        return finish(w, SwiftFixedArith.scaled(w.cwnd, factor), Change.DECREASE, nowNs);
    }

    /** RESET, lines 17-18: MIN_CWND. */
    Change reset(Window w, long nowNs) {
        return finish(w, model.p.minEff(), Change.RESET, nowNs);
    }

    /** Lines 26-27: clamp, record a decrease. */
    private Change finish(Window w, long next, Change change, long nowNs) {
        SwiftFixedParams p = model.p;
        long prev = w.cwnd;
        long cwnd = p.clamp(next);                                                 // line 26
        boolean above = next > p.maxCwnd();
        high |= above;
        low |= !above && next < p.minEff() || above && p.maxCwnd() < p.minEff();
        if (p.line27AsPrinted() ? cwnd <= prev : cwnd < prev) {                     // line 27
            w.tLastDecrease = nowNs & TIME_MASK;
            w.decreased = true;
        }
        w.cwnd = cwnd;
        return change;
    }
}
