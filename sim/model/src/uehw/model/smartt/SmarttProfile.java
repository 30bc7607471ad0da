// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import uehw.model.smartt.SmarttFixedModel.Rule;
import uehw.model.smartt.SmarttFixedModel.State;

/**
 * One of SMaRTT's two profiles (docs/smartt.md, "The reference-code profile"): how an ACK and a
 * loss choose among the rules, which are {@link SmarttFixedModel}'s methods of the RTL rules'
 * names. The RTL keeps both in one table, the reference profile's deltas beside each rule's
 * condition (CONTROL.REFERENCE_PROFILE picks); the model implements this interface twice.
 */
interface SmarttProfile {
    /** An event as the rules see it: the size cut to the MTU, the rtt at least BASE_RTT, QuickAdapt's windows. */
    record Event(SmarttFixedModel.Event event, State s, long size, long rtt, long unacked, long trtt, long now,
                 boolean expired, boolean windowExpired, boolean windowStarted, long windowEnd) {
    }

    /** The rule that applied and its window, before the clamp. */
    record Outcome(long cwnd, Rule rule) {
    }

    Outcome ack(Event x);

    /** A trimmed packet's NACK, or a timeout (Alg. 1 lines 28-34). */
    Outcome loss(Event x);

    /** The window kept after the clamp. */
    default long window(long clamped) {
        return clamped;
    }
}
