// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * Swift's rules for one of its two windows (swift-excerpt.txt Alg. 1, Sec. 3.3), one row each: the
 * change's code (two bits a window on `io_update_rule`), the citation, the counter. Exclusive
 * conditions, in code order; HELD, the default, when no other holds.
 */
class SwiftRules(window: String, counted: Boolean) {
  private def counter(name: String, doc: String, byCode: Boolean = true) = Some(RuleCounter(name, doc, byCode))
  val Held = LawRule(0, "HELD", "Alg. 1 line 3: no decrease within an RTT of the last (and INIT, which sets the window)",
    if (counted) counter("HELD", "Non-INIT events where a window waited for its once-per-RTT decrease (line 3)", byCode = false) else None)
  val Increase = LawRule(1, "INCREASE", "Alg. 1 lines 6-10: an ACK below the target adds ai / cwnd per packet acked (ai below one packet)",
    counter(s"${window}_INCREASES", s"Events that increased the ${window.toLowerCase} window" +
      (if (counted) " (Alg. 1 lines 6-10)" else "")))
  val Decrease = LawRule(2, "DECREASE", "Alg. 1 lines 11-14 (an ACK at or above the target), 19-20 (a timeout), 23-24 (fast recovery), once an RTT",
    counter(s"${window}_DECREASES", s"Events that decreased the ${window.toLowerCase} window" +
      (if (counted) " (lines 11-14, 19-20, 23-24)" else "")))
  val Reset = LawRule(3, "RESET", "Alg. 1 lines 17-18: RETX_RESET_THRESHOLD timeouts in a row reset the window to MIN_CWND",
    if (counted) counter("RESETS", "Timeouts that reset the windows to MIN_CWND (line 18)") else None)
  val table = new LawRuleTable(s"SWIFT $window", Seq(Held, Increase, Decrease, Reset), otherwise = Held)
}

/** The two windows' tables; the fabric's rows name the counters that count both windows' events (HELD, RESETS). */
object SwiftRules {
  val fabric = new SwiftRules("FABRIC", counted = true)
  val endpoint = new SwiftRules("ENDPOINT", counted = false)
}

/** Which change applies to each window (Alg. 1 lines 4-25), decided in S3 from S1's compares; S4 picks. */
trait SwiftRuleDecision extends SwiftLoop {
  import Swift._

  val rules = new Area {
    // decided in S3 from S1's compares, registered: S4 only picks
    private val kind3 = carry(event.kind, Stage.S3)
    val isAck3 = kind3 === WindowEvent.ACK
    val isInit3 = kind3 === WindowEvent.INIT
    val reset3 = carry(s1.reset, Stage.S3)
    val fabricIncrease = isAck3 && carry(s1.fabricIncrease, Stage.S3)
    val endpointIncrease = isAck3 && !carry(event.endpointAbove, Stage.S3)
    private def decrease(increase: Bool, canDecrease: Bool) = canDecrease && !isInit3 && !increase && !reset3
    val fabricDecrease = decrease(fabricIncrease, carry(s1.fabricCanDecrease, Stage.S3))
    val endpointDecrease = decrease(endpointIncrease, carry(s1.endpointCanDecrease, Stage.S3))
    val kind = RegNext(kind3)
    val isAck = kind === WindowEvent.ACK
    val isInit = kind === WindowEvent.INIT
  }

  /** A window's table at S3 / S4: the candidates follow the code (registered), a decrease's by the event's kind. */
  private def pickOf(r: SwiftRules, increase: Bool, decrease: Bool, held: Candidate, increased: Candidate,
                     decreasedOnAck: Candidate, decreasedOnLoss: Candidate, reset: Candidate): RulePick = {
    import rules._
    def window(c: Candidate) = ClampedWindow(c.cwnd, c.high, c.low, c.decrease.asBits)
    val onLoss = if (decreasedOnLoss eq decreasedOnAck) null else window(decreasedOnLoss)
    val onAck = window(decreasedOnAck)
    new RulePick(r.table, Seq(
      RuleRow(r.Held, False, True -> window(held)),
      RuleRow(r.Increase, increase, True -> window(increased)),
      RuleRow(r.Decrease, decrease, isAck3 -> onAck, (!isAck3 && !isInit3) -> (if (onLoss == null) onAck else onLoss)),
      RuleRow(r.Reset, reset3, True -> window(reset))),
      ClampLimits(derived.minCwnd, derived.highValue, derived.highBelowLow), selectByCode = true)
  }
  val fabricPick = pickOf(fabricRules, rules.fabricIncrease, rules.fabricDecrease, s4.fabricHeld, s4.fabricIncrease,
    s4.fabricDecrease, s4.fabricLoss, s4.fabricReset)
  val endpointPick = pickOf(endpointRules, rules.endpointIncrease, rules.endpointDecrease, s4.endpointHeld, s4.endpointIncrease,
    s4.endpointDecrease, s4.endpointDecrease, s4.endpointReset)
}
