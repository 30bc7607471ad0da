// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The SMaRTT law (smartt-reps.txt Alg. 1-3) on the window-unit skeleton: the event stages 1-13
 * (SmarttEventStages), the update loop S1-S5 (SmarttLoop), the rule table's pick
 * (SmarttRules, SmarttRuleDecision), and here the new state and what W reports and counts. The
 * arithmetic is uehw.model.smartt.SmarttFixedModel's, bit for bit.
 */
class SmarttLaw(cfg: SmarttConfig, unit: WindowUnit[SmarttEvent, SmarttFlowState, SmarttUpdate])
    extends SmarttLawBase(cfg, unit) with SmarttRuleDecision {
  import Smartt.wtdStateFrac

  /** S5: the rule's window and the new state. */
  val decide = new Area {
    val kind = RegNext(rules.kind)
    val isAck = kind === 0; val isInit = kind === 3; val isLoss = !isAck && !isInit
    val rule = pick.code
    val ignoring = RegNext(rules.ignoring)
    val fastIncrease = RegNext(rules.fast)
    val quickAdapt = rule === Smartt.Rule.QUICK_ADAPT
    val expired = carry(s1.expired, Stage.S5)

    // The window: every candidate was clamped on its own, or is clamped after the pick (Alg. 1 line 36)
    val window = pick.window

    // The other fields (Alg. 1 lines 4-5, 30-34; Alg. 2 lines 8, 11-12; Alg. 3 lines 3-11).
    private val s = s5.s
    private val acked1 = carry(s1.acked1, Stage.S5)
    private val ignore1 = carry(s1.ignore1, Stage.S5)
    private val inFlight = carry(s1.inFlight, Stage.S5)
    private val ref = csr.referenceProfile
    private val ignoreLeft = carry(s1.ignoreLeft, Stage.S5)
    private val skipRef = carry(s1.skipRef, Stage.S5)
    val next = SmarttFlowState(cfg)
    next := s
    next.cwnd.allowOverride()
    next.cwnd := window.cwnd
    when(ref) { next.cwnd(F - 1 downto 0) := 0 }                    // reference profile: whole bytes
    when(isAck) {
      next.acked := acked1
      next.ignoreBytes := ignore1
      // the paper profile: an ignored ACK skips WTD and FastIncrease; the reference profile counts
      // FastIncrease's bytes on every ACK and skips WTD on a skipped one
      when(profile(paper = !ignoring, reference = !skipRef)) {
        next.wtd := carry(s2.wtd1, Stage.S5)
      }
      when(ref || !ignoring) {
        next.fiCount := carry(s3.count1, Stage.S5)
        next.fiActive := fastIncrease
      }
    }
    when(isLoss) {
      next.ignoreBytes := ignore1
      when(!(ref && ignoreLeft)) {
        next.triggerQa := True                                      // Alg. 1 line 30
      }
      when(ref) {
        next.acked := carry(s1.qaBytes, Stage.S5)                              // a NACK's 64 B count
      }
    }
    when(quickAdapt) {
      next.triggerQa := False
      next.ignoreBytes := inFlight                                  // Alg. 2 line 8
    }
    private val rollPaper = !ignoring && expired && (isAck || !ignoreLeft) // Alg. 2 lines 11-12 (loss: line 32)
    private val rollRef = carry(event.windowExpired, Stage.S5)                  // the early loop's window rolls
    when(!isInit && profile(paper = rollPaper, reference = rollRef)) {
      next.qaEnd := carry(event.qaDeadline, Stage.S5)
      next.qaStarted := True
      next.acked := 0
    }
    val initState = SmarttFlowState(cfg)
    initState.assignFromBits(spinal.core.B(0, initState.getBitsWidth bits))
    initState.cwnd.allowOverride()
    initState.cwnd := derived.initCwnd
    initState.fiCount.allowOverride()
    // reference profile: FastIncrease's clean bytes must first exceed the initial window
    initState.fiCount := profile(paper = U(0, B bits), reference = derived.initCwnd(cw - 1 downto F))
    when(isInit) {
      next := initState
      next.cwnd := window.cwnd
    }
  }

  /** What stage W reports besides the skeleton's: the rule, the counted conditions. */
  val report = new Area {
    private def w[T <: Data](x: T): T = RegNext(x)
    val rule = w(decide.rule)
    val clampedHigh = w(decide.window.high); val clampedLow = w(decide.window.low)
    val rttZero = w(carry(event.rttZero, Stage.S5)); val rttBelow = w(carry(event.rttBelow, Stage.S5))
    val sizeZero = w(carry(event.size, Stage.S5) === 0); val sizeOver = w(carry(event.sizeOver, Stage.S5))
    val fastIncrease = w(decide.fastIncrease)
  }

  def busy: Bool = derived.dividing
  def next: SmarttFlowState = decide.next
  def initState: SmarttFlowState = decide.initState
  def queryValue(state: SmarttFlowState): UInt = state.cwnd(cfg.cwndWidth - 1 downto F)

  def finish(r: WindowReport): Unit = {
    import CsrCounters.count
    import report._
    unit.io.update.valid := r.ok
    val update = unit.io.update.payload
    update.flow := r.flow
    update.cwnd := written.state.cwnd(cfg.cwndWidth - 1 downto F)
    update.rule := rule
    val ok = r.ok
    val measured = ok && !r.isInit
    pick.countRules(csr.byRule, ok, rule)                           // the table's counters, by code
    count(csr.FAST_INCREASES, ok && fastIncrease)                    // Alg. 3's flag, also under QuickAdapt
    count(csr.RTT_ZERO, ok && r.isAck && rttZero)
    count(csr.RTT_BELOW_BASE, ok && r.isAck && !rttZero && rttBelow)
    count(csr.SIZE_ZERO, measured && sizeZero)
    count(csr.SIZE_OVER_MTU, measured && sizeOver)
    count(csr.CLAMPED_MIN, measured && clampedLow)
    count(csr.CLAMPED_MAX, measured && clampedHigh && !clampedLow)
  }
}
