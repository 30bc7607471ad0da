// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nscc

import uehw.hw.window._

/**
 * NSCC's rules, one row each (uet-htsim 40ccb05 uec.cpp, the function that does it): the code
 * `io_update_rule` carries (uehw.model.nscc.NsccRule's ordinal), the citation, the counter. The
 * conditions are exclusive; the law decides them in NsccLaw's `decide` and the table picks the
 * rule's window before the bounds and the fulfill.
 */
object NsccRules {
  private def counter(name: String, doc: String) = Some(RuleCounter(name, doc))
  val Init = LawRule(0, "INIT", "uec.cpp:161-184 initNscc: the flow's state set to its initial values")
  val FairIncrease = LawRule(1, "FAIR_INCREASE", "uec.cpp:1202-1206 fair_increase: no ECN, delay >= T; inc += fi x bytes",
    counter("FAIR_INCREASES", "ACKs that added the fair increase (uec.cpp:1202)"))
  val ProportionalIncrease = LawRule(2, "PROPORTIONAL_INCREASE",
    "uec.cpp:1208-1219 proportional_increase: no ECN, delay < T; inc += alpha x bytes x (T - delay)",
    counter("PROPORTIONAL_INCREASES", "ACKs that added the proportional increase (uec.cpp:1208)"))
  val FastIncrease = LawRule(3, "FAST_INCREASE", "uec.cpp:1221-1238 fast_increase: delay < 1 us for more than a window (latched); cwnd += bytes x fi_scale",
    counter("FAST_INCREASES", "ACKs that took FastIncrease's step (uec.cpp:1221)"))
  val MultiplicativeDecrease = LawRule(4, "MULTIPLICATIVE_DECREASE",
    "uec.cpp:1240-1255 multiplicative_decrease: ECN, delay >= T, avg > T, a base RTT after the last: cwnd x max(1 - gamma (avg - T) / avg, 1/2)",
    counter("MULTIPLICATIVE_DECREASES", "ACKs that decreased the window multiplicatively (uec.cpp:1240)"))
  val DecreaseHeld = LawRule(5, "DECREASE_HELD", "uec.cpp:1240-1255: the decrease's case while avg <= T or within a base RTT of the last",
    counter("DECREASES_HELD", "ACKs in the decrease's case that left the window (uec.cpp:1244)"))
  val Noop = LawRule(6, "NOOP", "uec.cpp:1333-1335: ECN and delay < T, no window change",
    counter("NOOPS", "ECN-marked ACKs below the target delay (uec.cpp:1333)"))
  val QuickAdapt = LawRule(7, "QUICK_ADAPT", "uec.cpp:1159-1190 quick_adapt fired: cwnd = max(achieved, MTU)",
    counter("QUICK_ADAPTS", "Events on which QuickAdapt set the window (uec.cpp:1174)"))
  val Ignored = LawRule(8, "IGNORED", "uec.cpp:1157: an ECN ACK or a NACK inside QuickAdapt's ignore window",
    counter("IGNORED", "ECN ACKs and NACKs inside QuickAdapt's ignore window (uec.cpp:1157)"))
  val NackDecrease = LawRule(9, "NACK_DECREASE", "uec.cpp:1380-1383: cwnd -= the NACKed packet's bytes, bounded",
    counter("NACK_DECREASES", "NACKs that decreased the window (uec.cpp:1381)"))
  val NackLastHop = LawRule(10, "NACK_LAST_HOP", "uec.cpp:1380: RECEIVER_CC on and a last-hop trim: no decrease",
    counter("NACKS_LAST_HOP", "NACKs of last-hop trims left to the receiver (uec.cpp:1380)"))
  val TimeoutDecrease = LawRule(11, "TIMEOUT_DECREASE", "uec.cpp:1297-1304 mark_packet_for_retransmission: cwnd -= packet bytes, floor MTU")
  val table = new LawRuleTable("NSCC", Seq(Init, FairIncrease, ProportionalIncrease, FastIncrease, MultiplicativeDecrease,
    DecreaseHeld, Noop, QuickAdapt, Ignored, NackDecrease, NackLastHop, TimeoutDecrease), otherwise = Noop)
}
