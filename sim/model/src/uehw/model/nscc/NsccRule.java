// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

/**
 * What an NSCC event did to the window, with the uec.cpp (uet-htsim 40ccb05) function that does it
 * and the counter the block counts it in. The exact model, the fixed model and the RTL code the same
 * rules in this order (the RTL's rule code is the ordinal).
 */
public enum NsccRule {
    /** INIT: the flow's state set to its initial values (uec.cpp:161-184 initNscc). */
    INIT(null),
    /** uec.cpp:1202-1206 fair_increase: no ECN, delay >= T; the pending increase += fi x bytes. */
    FAIR_INCREASE("FAIR_INCREASES"),
    /** uec.cpp:1208-1219 proportional_increase: no ECN, delay < T; += alpha x bytes x (T - delay). */
    PROPORTIONAL_INCREASE("PROPORTIONAL_INCREASES"),
    /** uec.cpp:1221-1238 fast_increase: delay < 1 us for more than a window of bytes (latched): cwnd += bytes x fi_scale. */
    FAST_INCREASE("FAST_INCREASES"),
    /** uec.cpp:1240-1255 multiplicative_decrease, acting: avg > T, a base RTT after the last. */
    MULTIPLICATIVE_DECREASE("MULTIPLICATIVE_DECREASES"),
    /** The same case (ECN, delay >= T) while the average is at most T or within a base RTT of the last decrease. */
    DECREASE_HELD("DECREASES_HELD"),
    /** uec.cpp:1333-1335: ECN and delay < T, no window change ("just switch path"). */
    NOOP("NOOPS"),
    /** uec.cpp:1159-1190 quick_adapt fired: cwnd = max(achieved, MTU). */
    QUICK_ADAPT("QUICK_ADAPTS"),
    /** uec.cpp:1157: an ECN ACK or a NACK inside QuickAdapt's ignore window changes nothing. */
    IGNORED("IGNORED"),
    /** uec.cpp:1380-1383: cwnd -= the NACKed packet's bytes. */
    NACK_DECREASE("NACK_DECREASES"),
    /** uec.cpp:1380: RCCC on and a last-hop trim: no decrease. */
    NACK_LAST_HOP("NACKS_LAST_HOP"),
    /** uec.cpp:1297-1304 mark_packet_for_retransmission: cwnd -= packet bytes, floor MTU. */
    TIMEOUT_DECREASE(null);

    /** The count register this rule is counted in, or null (INIT and TIMEOUT count as INITS, TIMEOUTS). */
    public final String counter;

    NsccRule(String counter) {
        this.counter = counter;
    }
}
