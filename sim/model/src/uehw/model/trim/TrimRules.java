// SPDX-License-Identifier: Apache-2.0
package uehw.model.trim;

import uehw.model.Xorshift32;

/**
 * The trimming queue's decisions, written once (docs/trimming-queue.md, "Where each rule lives";
 * smartt-reps.txt Sec. 2.1 and 3.5): the frame-exact model (TrimQueueModel) and the network
 * simulator's packet-level port (uehw.netsim.Port) both decide with them; the RTL is checked
 * against the first.
 */
public final class TrimRules {
    private TrimRules() {
    }

    /** Where a classified frame goes. */
    public enum Admission { CONTROL, DATA, TRIM, DROP_CONTROL_FULL, DROP_DATA_FULL, DROP_TRIM_FULL }

    /**
     * Admission (Sec. 2.1): a control packet (ACK, NACK, a trimmed header arriving) takes the
     * strict-priority control queue when it fits; a data packet the data queue when it fits, else
     * it is trimmed to its header when it can be (its transport header can be trusted, trimming is
     * on) and the trimmed queue has room, else dropped.
     */
    public static Admission admit(boolean control, boolean controlFits, boolean dataFits, boolean trimmable, boolean trimRoom) {
        if (control) {
            return controlFits ? Admission.CONTROL : Admission.DROP_CONTROL_FULL;
        }
        if (dataFits) {
            return Admission.DATA;
        }
        if (!trimmable) {
            return Admission.DROP_DATA_FULL;
        }
        return trimRoom ? Admission.TRIM : Admission.DROP_TRIM_FULL;
    }

    /**
     * RED at dequeue (Sec. 3.5), one draw per data packet: the data occupancy then (the packet
     * still counted) at or above kMax, or above kMin with a uniform draw over kMax - kMin (none
     * when kMax <= kMin) below occupancy - kMin. Draws from {@code prng} whatever the outcome.
     */
    public static boolean congested(Xorshift32 prng, long occupancy, long kMin, long kMax) {
        long span = kMax > kMin ? kMax - kMin : 0;
        long draw = prng.nextScaled(span);
        return occupancy >= kMax || occupancy > kMin && draw < occupancy - kMin;
    }
}
