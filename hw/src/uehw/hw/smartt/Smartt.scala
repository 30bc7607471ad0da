// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/** One congestion event for a flow. `kind`: 0 ACK, 1 NACK of a trimmed packet, 2 timeout, 3 INIT (new flow). */
case class SmarttEvent(cfg: SmarttConfig) extends Bundle with WindowEvent {
  val flow = UInt(cfg.flowIdWidth bits)
  val kind = UInt(2 bits)
  /** Bytes of the acknowledged (or trimmed / timed-out) packet; above MTU acts as MTU. */
  val size = UInt(16 bits)
  /** Measured RTT in ns (ACKs); below BASE_RTT (or 0) acts as BASE_RTT. */
  val rtt = UInt(cfg.rttWidth bits)
  /** ECN-echo of the ACK. */
  val ecn = Bool()
  /**
   * Bytes the sender has sent and not yet seen acknowledged, NACKed or timed out, this event's
   * packet excluded: Alg. 2 line 8 `unacked`, the congestion signal QuickAdapt then ignores.
   * Unused when CONTROL.UNACKED_FROM_WINDOW is set.
   */
  val unacked = UInt(cfg.byteWidth bits)
}

/** The window after one event, for the transmit scheduler. */
case class SmarttUpdate(cfg: SmarttConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** New congestion window in bytes (integer part). */
  val cwnd = UInt(cfg.byteWidth bits)
  /** Which rule made it: `Smartt.Rule` order (INIT, IGNORED, HELD, FD, MD, FI, MI, QUICK_ADAPT, FAST_INCREASE, LOSS, AT_TARGET). */
  val rule = UInt(4 bits)
}

/** The per-flow state in block RAM (smartt-reps.txt Alg. 1-3 variables; 152 bits at the defaults). */
case class SmarttFlowState(cfg: SmarttConfig) extends Bundle {
  val cwnd = UInt(cfg.cwndWidth bits)       // bytes x 2^-8
  val acked = UInt(cfg.byteWidth bits)      // Alg. 2 acked
  val qaEnd = UInt(cfg.timeWidth bits)      // Alg. 2 end
  val qaStarted = Bool()                    // Alg. 2 "end != 0"
  val triggerQa = Bool()                    // Alg. 1 trigger_qa
  val ignoreBytes = UInt(cfg.byteWidth bits) // bytes_to_ignore - bytes_ignored, saturating at 0
  val fiCount = UInt(cfg.byteWidth bits)    // Alg. 3 count
  val fiActive = Bool()                     // Alg. 3 increase
  val wtd = UInt(Smartt.wtdStateFrac bits)  // Sec. 3.6.1 avg_wtd, u0.13 (three bits below the u0.10 threshold)
}

/**
 * Reference profile: QuickAdapt's measurement window, kept in a loop of its own ahead of the main
 * one, so that the normalisation of QuickAdapt's bytes is an event value by S1 (docs/smartt.md).
 */
case class SmarttQaWindow(cfg: SmarttConfig) extends Bundle {
  val end = UInt(cfg.timeWidth bits)
  val started = Bool()
}

object Smartt {
  /** Clock edges from an event's acceptance to its update on `io.update` (with no same-flow wait). */
  val latency = 20
  /**
   * Clocks of the update loop, S1-S5 (state read to state written): two events of one flow enter
   * the pipeline at least this many clocks apart.
   */
  val loopClocks = 5
  /**
   * L, the default spacing in clocks of two events of one flow entering the pipeline
   * (`--same-flow-spacing`, loopClocks..8): an event waits in stage 0 while its flow had an event
   * enter stage 1 in the L - 1 clocks before (ready is low while it waits).
   */
  val defaultSameFlowSpacing = 5
  val gainFrac = 11
  /** Bits of an increase numerator that meet 1/cwnd: one DSP48E2's 26 unsigned (SmarttFixedModel.MANTISSA_BITS). */
  val mantissaBits = 26
  val wtdFrac = 10
  /**
   * Fraction bits of the stored WTD average: three more than the threshold, with a rounded decay,
   * so that the average stays within 2^(shift-1) LSBs (0.5/1024 at alpha = 1/8) of the exact
   * EWMA (a truncated u0.10 decay sat up to 7/1024 above it and never fell below 7/1024).
   */
  val wtdStateFrac = 13
  /** Fractional bits of QuickAdapt's coefficient (u5.12): QA_SCALING, or in the reference profile QA_SCALING x trtt / D. */
  val qaCoefFrac = 12
  /** Bytes a NACK adds to QuickAdapt's acknowledged bytes in the reference profile (a trimmed header). */
  val nackAckedBytes = 64
  val minMtu = 64
  val minBdp = 1024
  def gain(x: Double): BigInt = BigInt(scala.math.round(x * (1 << gainFrac)))

  /** The rule codes on `io_update_rule`: the rows of `SmarttRules.table`. */
  object Rule {
    val INIT = SmarttRules.Init.code; val IGNORED = SmarttRules.Ignored.code; val HELD = SmarttRules.Held.code
    val FAIR_DECREASE = SmarttRules.FairDecrease.code; val MULTIPLICATIVE_DECREASE = SmarttRules.MultiplicativeDecrease.code
    val FAIR_INCREASE = SmarttRules.FairIncrease.code; val MULTIPLICATIVE_INCREASE = SmarttRules.MultiplicativeIncrease.code
    val QUICK_ADAPT = SmarttRules.QuickAdapt.code; val FAST_INCREASE = SmarttRules.FastIncrease.code
    val LOSS = SmarttRules.Loss.code; val AT_TARGET = SmarttRules.AtTarget.code
  }
}


/** SMaRTT as a window law: its formats and where its loop starts. */
class SmarttSpec(val cfg: SmarttConfig) extends WindowLawSpec[SmarttEvent, SmarttFlowState, SmarttUpdate] {
  def definitionName = "uehw_smartt"
  def busName = "SMARTT"
  def blockId = 0x53
  def infoFields = Seq(("BYTE_WIDTH", cfg.byteWidth, "Byte-count width"),
    ("RECIP_INDEX_BITS", cfg.recipIndexBits, "Reciprocal table index bits"))
  def flows = cfg.flows
  def flowIdWidth = cfg.flowIdWidth
  def timeWidth = cfg.timeWidth
  def eventType = SmarttEvent(cfg)
  def stateType = SmarttFlowState(cfg)
  def updateType = SmarttUpdate(cfg)
  def queryWidth = cfg.byteWidth
  def loopStart = 14
  /**
   * Five clocks: the window's reciprocal ROM is read in S1 and registered in S2 for the increases'
   * DSPs in S3 (a block RAM's clock-to-out straight into an unregistered DSP does not fit 3.6 ns),
   * their quotients are found in S4 and the rule's window in S5.
   */
  override def loopLength = Smartt.loopClocks
  override def sameFlowSpacing: Int = cfg.sameFlowSpacing
  def build(unit: WindowUnit[SmarttEvent, SmarttFlowState, SmarttUpdate]) = new SmarttLaw(cfg, unit)
}

/**
 * SMaRTT congestion-window unit (smartt-reps.txt Sec. 3.2-3.6, Alg. 1-3) for N flows, one event
 * per clock across flows: the SMaRTT law on the window-unit skeleton (docs/window-unit.md).
 */
class Smartt(val cfg: SmarttConfig) extends WindowUnit(new SmarttSpec(cfg))

