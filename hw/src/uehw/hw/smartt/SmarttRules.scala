// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._

/**
 * SMaRTT's rules, one row each (smartt-reps.txt; the reference profile's from the authors' simulator,
 * docs/smartt.md): the code on `io_update_rule`, the citation, the counter, the CSRs that are the
 * rule's alone. In priority order; SMaRTT's conditions are exclusive, so the order sets only the
 * pick's tree (INIT last). The conditions and candidates are bound in SmarttRuleDecision.
 */
class SmarttRules(cfg: SmarttConfig) {
  import Smartt.gain
  private def counts(name: String, doc: String) = Some(RuleCounter(name, doc))
  val Init = LawRule(0, "INIT", "a new flow starts at INIT_CWND (clamped like any window, Alg. 1 line 36)")
  val Ignored = LawRule(1, "IGNORED", "Alg. 1 lines 8-9; the reference profile: marked ACKs, and losses, inside the ignore window",
    counts("IGNORED", "ACKs ignored after QuickAdapt (Alg. 1 line 9); in the reference profile marked ACKs, NACKs and timeouts"))
  val Held = LawRule(2, "HELD", "Sec. 3.6.1 Wait-to-Decrease, Alg. 1 line 12",
    counts("WTD_HELD", "ECN-marked ACKs whose decrease Wait-to-Decrease held back"))
  val FairDecrease = LawRule(3, "FAIR_DECREASE", "Alg. 1 line 20, Eq. 1 (Sec. 3.2.1)",
    counts("FAIR_DECREASES", "ACKs that applied Fair Decrease (Alg. 1 line 20)"),
    Seq(RuleParam("FD", 0x24, "Fair Decrease gain (Sec. 3.5: 0.8)", 16, gain(0.8), "u5.11")))
  val MultiplicativeDecrease = LawRule(4, "MULTIPLICATIVE_DECREASE", "Alg. 1 line 22, Eq. 2 (Sec. 3.2.2); md doubled without trimming (Sec. 3.3)",
    counts("MULTIPLICATIVE_DECREASES", "ACKs that applied Multiplicative Decrease (line 22)"),
    Seq(RuleParam("MD", 0x28, "Multiplicative Decrease gain (Sec. 3.2.2: 2)", 16, gain(2.0), "u5.11")))
  val FairIncrease = LawRule(5, "FAIR_INCREASE", "Alg. 1 line 24, Eq. 3 (Sec. 3.2.3)",
    counts("FAIR_INCREASES", "ACKs that applied Fair Increase (line 24)"),
    Seq(RuleParam("FI", 0x2C, "Fair Increase gain (Sec. 3.5: 0.25 x gamma)", 16, gain(0.25 * cfg.gamma), "u5.11")))
  val MultiplicativeIncrease = LawRule(6, "MULTIPLICATIVE_INCREASE", "Alg. 1 line 26, Eq. 4 (Sec. 3.2.4), then Eq. 3",
    counts("MULTIPLICATIVE_INCREASES", "ACKs that applied Multiplicative Increase (line 26)"),
    Seq(RuleParam("MI", 0x30, "Multiplicative Increase gain (Sec. 3.2.4: brtt/(trtt-brtt) x gamma)", 16, gain(2.0 * cfg.gamma), "u5.11")))
  val QuickAdapt = LawRule(7, "QUICK_ADAPT", "Alg. 2 lines 3-8 (Sec. 3.3, Fig. 4); on a loss Alg. 1 line 32",
    counts("QUICK_ADAPTS", "QuickAdapt window changes (Alg. 2 line 7)"),
    Seq(RuleParam("QA_SCALING", 0x34, "QuickAdapt scaling (Sec. 3.5: 0.8)", 16, gain(0.8), "u5.11")))
  val FastIncrease = LawRule(8, "FAST_INCREASE", "Alg. 3 lines 2-5 (Sec. 3.4)",
    Some(RuleCounter("FAST_INCREASES", "ACKs that applied FastIncrease (Alg. 3 line 5)", byCode = false)),
    Seq(RuleParam("FAST_INCREASE_K", 0x38, "MTUs added per ACK in FastIncrease (Sec. 3.4: 2; the authors' code 1.2)", 16, gain(2.0), "u5.11"),
      RuleParam("FAST_INCREASE_CLOSENESS", 0x3C, "rtt <= brtt + this counts as close to the base RTT (Alg. 3 line 2)",
        cfg.rttWidth, cfg.fastIncreaseClosenessNs, "ns")))
  val Loss = LawRule(9, "LOSS", "Alg. 1 lines 28-34: a trimmed packet's NACK, or a timeout, cuts the window by its size (line 29)")
  val AtTarget = LawRule(10, "AT_TARGET", "the reference profile: an ACK with rtt = trtt exactly applies no case",
    counts("AT_TARGET", "Reference profile: ACKs with rtt = trtt exactly, which apply no case"))
  val table = new LawRuleTable("SMARTT", Seq(Ignored, Held, FairDecrease, MultiplicativeDecrease, FairIncrease,
    MultiplicativeIncrease, QuickAdapt, FastIncrease, Loss, AtTarget, Init), otherwise = Loss)
}

/** The rows at the default sizes: the codes and names (the same at every size). */
object SmarttRules extends SmarttRules(SmarttConfig())

/**
 * Which rule applies (Alg. 1), decided in S4 from S1-S4's flags, and the rows bound to their
 * conditions and S5's candidate windows: the table's pick, code and counters (RulePick).
 */
trait SmarttRuleDecision extends SmarttLoop {
  val rules = new Area {
    val kind = carry(event.kind, Stage.S4)
    val isAck = kind === 0; val isInit = kind === 3; val isLoss = !isAck && !isInit
    private val ref = csr.referenceProfile
    private val ecn = carry(event.ecn, Stage.S4)
    private val above = carry(event.above, Stage.S4)
    private val ignoreLeft = carry(s1.ignoreLeft, Stage.S4)
    private val adapt = RegNext(s3.adapt)
    // The paper profile (Alg. 1-3).
    private val ignoringPaper = isAck && ignoreLeft                 // Alg. 1 lines 8-9
    private val actedPaper = isAck && !ignoringPaper
    // The reference profile: only marked ACKs skipped, losses inside the ignore window change nothing,
    // FastIncrease decided in S1, no case at rtt = trtt, none after QuickAdapt.
    private val skipRef = carry(s1.skipRef, Stage.S4)
    private val fastRef = carry(s1.fastRef, Stage.S4)
    private val actedRef = isAck && !skipRef
    private val ignoringRef = skipRef && !adapt || isLoss && ignoreLeft
    val atTarget = ref && actedRef && !adapt && !fastRef && carry(event.atTarget, Stage.S4)
    val ignoring = profile(paper = ignoringPaper, reference = ignoringRef)
    private val acted = profile(paper = actedPaper, reference = actedRef)
    private val fastOnStored = profile(paper = RegNext(s3.fastOnStored), reference = fastRef)
    // s3.fastAfterQa is the latest of S4's facts: the rules that follow from it are found for
    // both of its values, and it picks last
    private def ifFastAfterQa[T <: Data](f: Bool => T): T = Mux(s3.fastAfterQa, f(profile(paper = True, reference = fastRef)), f(profile(paper = False, reference = fastRef)))
    private val ackCases = acted && !adapt && !fastOnStored && !atTarget // Alg. 1 lines 15-16: no QuickAdapt, no FastIncrease
    private val canDecrease = RegNext(s3.canDecrease)
    val held = ackCases && ecn && !canDecrease
    val fairDecrease = ackCases && ecn && canDecrease && !above
    val multiplicativeDecrease = ackCases && ecn && canDecrease && above
    val fairIncrease = ackCases && !ecn && above
    val multiplicativeIncrease = ackCases && !ecn && !above
    val quickAdaptOnAck = isAck && adapt && (ref || !ignoreLeft) // the paper profile's ignored ACK does not adapt
    val quickAdaptThenFast = ifFastAfterQa(fastAfterQa => quickAdaptOnAck && acted && fastAfterQa)
    val quickAdaptAlone = ifFastAfterQa(fastAfterQa => quickAdaptOnAck && !(quickAdaptOnAck && acted && fastAfterQa) || isLoss && adapt)
    val fastIncreaseOnly = acted && !adapt && fastOnStored
    val quickAdaptOnLoss = isLoss && adapt
    val lossCut = isLoss && !adapt && !(ref && ignoreLeft)
    val fast = ifFastAfterQa(fastAfterQa => acted && Mux(adapt, fastAfterQa, fastOnStored)) // Alg. 3 line 4 (counted even with QuickAdapt)
  }

  /** The table at S4 / S5: one row a rule, its condition, its candidates with their selects. */
  val pick = {
    import rules._
    val r = ruleRows
    val held = ClampedWindow(s5.held.cwnd, s5.held.high, s5.held.low)
    def clamped(c: Clamped) = ClampedWindow(c.cwnd, c.high, c.low)
    new RulePick(r.table, Seq(
      RuleRow(r.Ignored, ignoring, ignoring -> held),
      RuleRow(r.Held, rules.held, rules.held -> held),
      RuleRow(r.FairDecrease, fairDecrease, fairDecrease -> clamped(s5.fairDecrease)),
      RuleRow(r.MultiplicativeDecrease, multiplicativeDecrease, multiplicativeDecrease -> clamped(s5.multiplicativeDecrease)),
      RuleRow(r.FairIncrease, fairIncrease, fairIncrease -> s5.fairIncrease),
      RuleRow(r.MultiplicativeIncrease, multiplicativeIncrease,
        (multiplicativeIncrease && !s4.incMiOver) -> s5.multiplicativeIncrease,
        (multiplicativeIncrease && s4.incMiOver) -> s5.sizePlusFairIncrease),          // Eq. 4 at its cap, then Eq. 3
      RuleRow(r.QuickAdapt, quickAdaptOnAck || quickAdaptOnLoss,
        quickAdaptAlone -> s5.quickAdapt, quickAdaptThenFast -> s5.quickAdaptPlusStep),
      RuleRow(r.FastIncrease, fastIncreaseOnly, fastIncreaseOnly -> clamped(s5.storedPlusStep)),
      RuleRow(r.Loss, lossCut, lossCut -> clamped(s5.lossCut)),
      RuleRow(r.AtTarget, atTarget, atTarget -> held),
      RuleRow(r.Init, isInit, isInit -> clamped(s5.init))),
      ClampLimits(derived.cwndLow, derived.cwndHigh, derived.highBelowLow))
  }
}
