// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nscc

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._

/** One NSCC event for a flow. `kind`: 0 ACK, 1 NACK of a trimmed packet, 2 retransmission timeout, 3 INIT. */
case class NsccEvent(cfg: NsccConfig) extends Bundle with WindowEvent {
  val flow = UInt(cfg.flowIdWidth bits)
  val kind = UInt(2 bits)
  /** ACK: newly acknowledged bytes; NACK, timeout: the packet's wire bytes (above MTU: MTU, counted). */
  val bytes = UInt(Nscc.windowBits bits)
  /** The RTT sample in ns, 0 = none (an ACK without a valid sample, uec.cpp:891-902). */
  val rtt = UInt(Nscc.windowBits bits)
  val ecn = Bool()
  /** A NACK of a packet trimmed at the last hop (uec.cpp:1380, with RECEIVER_CC). */
  val lastHop = Bool()
  /** The receiver's window penalty, 255 = none (uec.cpp:933-936). */
  val rcvWndPen = UInt(8 bits)
  /** The sender's bytes in flight as the law runs: QuickAdapt's ignore count (uec.cpp:1176). */
  val inFlight = UInt(Nscc.windowBits bits)
}

/** The window after one event, for the transmit scheduler. */
case class NsccUpdate(cfg: NsccConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val cwnd = UInt(Nscc.windowBits bits)
  /** What the event did: the row of NsccRules (NsccRule's ordinal in the models). */
  val rule = UInt(NsccRules.table.codeWidth bits)
  /** The pending increase was fulfilled (uec.cpp:1257-1295). */
  val fulfilled = Bool()
}

/** A flow's state in block RAM (uehw.model.nscc.NsccFixedModel.State, field by field). */
case class NsccFlowState() extends Bundle {
  import Nscc._
  val cwnd = UInt(windowBits bits)
  val maxwnd = UInt(windowBits bits)           // 1.5 BDP of baseRtt
  val baseRtt = UInt(windowBits bits)          // ns
  val avgDelay = UInt(windowBits + avgFrac bits) // ns u24.8
  val achieved = UInt(windowBits bits)
  val received = UInt(windowBits bits)
  val inc = UInt(incBits bits)                 // bytes^2, saturating
  val bytesToIgnore = UInt(windowBits bits)
  val bytesIgnored = UInt(windowBits bits)
  val triggerQa = Bool()
  val qaStarted = Bool()
  val qaEnd = UInt(timeBits bits)
  val fiCount = UInt(windowBits bits)
  val increase = Bool()
  val lastAdjust = UInt(timeBits bits)
  val lastDec = UInt(timeBits bits)
}

object NsccFlowState {
  import Nscc._
  /** NsccFixedModel.STATE_BITS. */
  val bits: Int = 8 * windowBits + (windowBits + avgFrac) + incBits + 3 * timeBits + 3
}

object Nscc {
  val windowBits = 24
  val timeBits = 32
  val avgFrac = 8
  val incBits = 44
  val recipIndex = 10
  val recipValue = 14
  val factorFrac = 23
  val incMantissa = 26
  val alphaFrac = 20
  val fiFrac = 8
  val fiScaleFrac = 20
  val gammaFrac = 16
  val delayAlphaFrac = 20
  val bytesPerNsFrac = 16
  /** The update loop's first stage: stages 1-7 compute what depends only on the event and the CSRs. */
  val loopStart = 8
  /** The update loop's clocks (docs/nscc.md "Pipeline"): also the same-flow spacing. */
  val loopLength = 37
  /** Clock edges from an event's acceptance to its update (no same-flow wait): stage W + 1. */
  val latency: Int = loopStart + loopLength + 1
  val sameFlowSpacing: Int = loopLength
}

/** NSCC as a window law: its formats and where its loop starts. */
class NsccSpec(val cfg: NsccConfig) extends WindowLawSpec[NsccEvent, NsccFlowState, NsccUpdate] {
  def definitionName = "uehw_nscc"
  def busName = "NSCC"
  def blockId = 0x4E
  def infoFields = Seq(("WINDOW_BITS", Nscc.windowBits, "Window width (whole bytes)"),
    ("LOOP", Nscc.loopLength, "Update loop clocks (the same-flow spacing)"))
  def flows = cfg.flows
  def flowIdWidth = cfg.flowIdWidth
  def timeWidth = cfg.timeWidth
  def eventType = NsccEvent(cfg)
  def stateType = NsccFlowState()
  def updateType = NsccUpdate(cfg)
  def queryWidth = Nscc.windowBits
  def loopStart = Nscc.loopStart
  override def loopLength: Int = Nscc.loopLength
  override def sameFlowSpacing: Int = Nscc.sameFlowSpacing
  def build(unit: WindowUnit[NsccEvent, NsccFlowState, NsccUpdate]) = new NsccLaw(cfg, unit)
}

/**
 * NSCC window unit (Ultra Ethernet 1.0's sender congestion control, as uet-htsim 40ccb05's uec.cpp
 * runs it) for N flows, one event per clock across flows: the NSCC law on the window-unit
 * skeleton (docs/window-unit.md, docs/nscc.md).
 */
class Nscc(val cfg: NsccConfig) extends WindowUnit(new NsccSpec(cfg))
