// SPDX-License-Identifier: Apache-2.0
package uehw.hw.window

import spinal.core._
import uehw.hw.common._
import uehw.hw.window.WindowArith.oneHotPick

/**
 * A counter of a rule in its law's CSR block. `byCode`: it counts the updates whose code is the
 * rule's (the table counts them); otherwise the law counts what the doc says (FastIncrease's flag).
 */
case class RuleCounter(name: String, doc: String, byCode: Boolean = true)

/** A runtime parameter of a rule: a read-write CSR of one VALUE field, with its reset value and unit. */
case class RuleParam(name: String, address: Int, doc: String, width: Int, reset: BigInt, units: String)

/**
 * One rule of a window law, before any hardware: one row of its table (docs/window-unit.md, "Rule
 * tables"). `code` is what `io_update_rule` carries for it; `cite` the paper's section and
 * algorithm line (or the reference code's file:line) it implements; `counter` its CSR counter;
 * `params` the CSRs that are its alone (its gains).
 */
case class LawRule(code: Int, name: String, cite: String, counter: Option[RuleCounter] = None, params: Seq[RuleParam] = Nil) {
  def param(name: String): RuleParam = params.find(_.name == name).getOrElse(SpinalError(s"rule ${this.name} has no parameter $name"))
}

/**
 * A law's rules in priority order: the first row whose condition holds gives the update its code,
 * `otherwise` when none holds (a decoder's default row). The laws' docs print the table.
 */
class LawRuleTable(val law: String, val rules: Seq[LawRule], val otherwise: LawRule) {
  require(rules.contains(otherwise), s"$law: the default rule ${otherwise.name} is not a row of the table")
  require(rules.map(_.code).distinct.size == rules.size, s"$law: two rules share a code")
  require(rules.map(_.name).distinct.size == rules.size, s"$law: two rules share a name")
  /** Bits of the rule code. */
  val codeWidth: Int = log2Up(rules.map(_.code).max + 1)
  /** The rules whose counter the table increments, in code order. */
  def countedByCode: Seq[LawRule] = rules.filter(_.counter.exists(_.byCode)).sortBy(_.code)
}

/** A rule's candidate window for the pick, with the clamp's flags. */
sealed trait RuleWindow { def value: UInt; def high: Bool }
/** Clamped before the pick: `high` it was above the upper limit, `low` (cut to it) below the lower one. `extra` is picked with it. */
case class ClampedWindow(value: UInt, high: Bool, low: Bool, extra: Bits = null) extends RuleWindow
/** Before its clamp, with its compares (`under`: below the lower limit): the pick runs beside them and the clamp follows it. */
case class UnclampedWindow(value: UInt, high: Bool, under: Bool) extends RuleWindow

/**
 * A rule bound to hardware at the decision stage D: `when`, the condition under which the update
 * takes the rule's code, and its candidate windows (present at D + 1), each with its select.
 * A select is decided at D and registered; with `RulePick.selectByCode` it is qualified by the
 * registered code being the rule's (a law whose candidates follow the code).
 */
case class RuleRow(rule: LawRule, when: Bool, candidates: (Bool, RuleWindow)*)

/** The clamp's limits at D + 1: the lower, the upper, and whether the upper is below the lower (then every window is the lower). */
case class ClampLimits(low: UInt, high: UInt, highBelowLow: Bool)

/**
 * What a law's table generates at its decision stage D and the next (the skeleton's part of every
 * law): the rule code (registered: `code` at D + 1), the one-hot pick of the candidates (their
 * selects registered), the clamp of the unclamped candidate after the pick, and the flags the
 * CLAMPED counters count. Candidates the rows share (the same object) take one select, the OR of
 * the rows' selects. The pick is a tree of kept LUT6s (`oneHotPick`): clamped candidates first,
 * in the order the rows first name them, then the unclamped.
 */
class RulePick(table: LawRuleTable, rows: Seq[RuleRow], limits: ClampLimits, selectByCode: Boolean = false) extends Area {
  require(rows.map(_.rule).toSet == table.rules.toSet && rows.size == table.rules.size,
    s"${table.law}: the rows bind ${rows.map(_.rule.name).mkString(", ")}, the table has ${table.rules.map(_.name).mkString(", ")}")
  private val width = rows.flatMap(_.candidates).head._2.value.getWidth

  /** The code at D: the first row whose condition holds, the default row's when none. */
  val codeAtDecision = UInt(table.codeWidth bits)
  codeAtDecision := table.otherwise.code
  for (r <- rows.reverse if r.rule != table.otherwise) when(r.when) { codeAtDecision := r.rule.code }
  val code = RegNext(codeAtDecision)

  // one select a candidate, its rows' selects ORed in row order
  private val candidates: Seq[(RuleWindow, Bool)] = {
    val all = rows.flatMap(r => r.candidates.map { case (sel, c) => (r.rule, sel, c) })
    val distinct = all.map(_._3).foldLeft(Seq.empty[RuleWindow])((seen, c) => if (seen.exists(_ eq c)) seen else seen :+ c)
    val ordered = distinct.filter(_.isInstanceOf[ClampedWindow]) ++ distinct.filter(_.isInstanceOf[UnclampedWindow])
    ordered.map { c =>
      val uses = all.filter(_._3 eq c)
      val sel = if (selectByCode) RegNext(uses.map { case (rule, q, _) => codeAtDecision === rule.code && q }.reduce(_ || _))
                else RegNext(uses.map(_._2).reduce(_ || _))
      (c, sel)
    }
  }
  private val clamped = candidates.collect { case (c: ClampedWindow, sel) => (sel, c) }
  private val unclamped = candidates.collect { case (c: UnclampedWindow, sel) => (sel, c) }
  private val extraWidth = clamped.headOption.flatMap(c => Option(c._2.extra)).map(_.getWidth).getOrElse(0)
  require(clamped.forall(c => Option(c._2.extra).map(_.getWidth).getOrElse(0) == extraWidth) && (extraWidth == 0 || unclamped.isEmpty),
    s"${table.law}: candidates carry different extra bits")

  private val picked = oneHotPick(clamped.map { case (sel, c) => (sel, if (extraWidth == 0) c.value else (c.extra ## c.value).asUInt) } ++
    unclamped.map { case (sel, c) => (sel, c.value) }, width + extraWidth)
  private val value = picked(width - 1 downto 0)
  /** The picked candidate's extra bits (clamped candidates only). */
  val extra: Bits = if (extraWidth > 0) picked(width + extraWidth - 1 downto width).asBits else null

  /** The rule's window, clamped (D + 1, combinational): and whether it was above the upper limit, or cut to it below the lower one. */
  val window = new Area {
    val cwnd = UInt(width bits)
    val high = Kept.orTree(candidates.map { case (c, sel) => sel && c.high })
    val low = Kept.orTree(clamped.map { case (sel, c) => sel && c.low } ++
      unclamped.map { case (sel, c) => sel && Mux(c.high, limits.highBelowLow, c.under) })
    if (unclamped.isEmpty) cwnd := value
    else {
      val toHigh = Kept.orTree(unclamped.map { case (sel, c) => sel && c.high })
      val toLow = Kept.orTree(unclamped.map { case (sel, c) => sel && !c.high && c.under })
      cwnd := Mux(toHigh, RegNext(Mux(limits.highBelowLow, limits.low, limits.high)), Mux(toLow, limits.low, value))
    }
  }

  /** After W: counts each counted rule's updates (`ok`: an update went out; `rule`: its code, registered from `code`). */
  def countRules(counterOf: LawRule => UInt, ok: Bool, rule: UInt): Unit =
    for (r <- table.countedByCode) CsrCounters.count(counterOf(r), ok && rule === r.code)
}
