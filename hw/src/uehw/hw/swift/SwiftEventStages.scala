// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * Swift's event stages 1-15: what depends only on the event and the CSRs (the fabric delay and its
 * reciprocal, the decrease factor's event part and beta/delay, the endpoint delay's EWMA in a loop
 * of its own at stages 3-6, the endpoint window's factor), and the event as the loop sees it.
 */
trait SwiftEventStages extends SwiftLawBase {
  import Swift._
  private def cfg = config
  private def unit = windowUnit


  /**
   * x / d x 2^16 (saturated to 17 bits) and beta / d x 2^16 (g, saturated to 26 bits) through the
   * reciprocal table, d > 0 valid at stage `s` (a register), x at s + 3; ratio and g are there at
   * s + 6. 1/d ~ r / 2^(14 + msb): both are a product with r shifted right by msb - 2.
   */
  class RatioPipe(d: UInt, x: UInt, s: Int, withG: Boolean) extends Area {
    private val w = d.getWidth
    private val leading = RegNext(leadingOne(d, 0))                                   // s + 1
    private val dFull = RegNext(d)                                                    // its top bit is the leading one's
    private val (index, msbAt) = WindowArith.recipIndex(dFull.resize(w - 1), leading, 0, I)
    val r = RegNext(recipRom.readSync(index))                                         // s + 3
    private val msb = carry(born(s + 2)(RegNext(msbAt)), s + 4)
    private def shifted(p: UInt): UInt = RegNext((p << 2) >> msb)                   // (p >> (msb - 2)), at s + 5
    private val xr = RegNext(x * r)                                                   // s + 4
    val ratio = RegNext(satTo(shifted(xr), U((BigInt(1) << 17) - 1, 17 bits), 17))     // s + 6
    val g = withG generate {
      val br = RegNext(derived.beta * r)
      born(s + 6)(RegNext(satTo(shifted(br), U((BigInt(1) << 26) - 1, 26 bits), 26)))
    }
    /** 1 - beta + beta x ratio (u1.15 of x / d), at s + 8. */
    private val ratioBetaFull = RegNext(ratio * derived.beta)
    val factor = born(s + 8)(RegNext(derived.oneMinusBeta + ratioBetaFull(32 downto 16)))
  }

  // ------------------------------------------------------------- the event stages
  val f1 = new Area {
    val e = unit.stage1.e
    val hopsOver = born(1)(e.hops > maxHops)
    val hops = RegNext(Mux(hopsOver, U(maxHops, 4 bits), e.hops.resize(4)))          // stage 2
    val rttZero = born(1)(e.rtt === 0)
    val endpointAbove = born(1)(e.endpointDelay > e.rtt)
    val delay = born(2)(RegNext(Mux(endpointAbove, U(0, D bits), e.rtt - e.endpointDelay)))  // stage 2: max(0, rtt - endpoint delay)
    // hops x per_hop as four shifted adds in LUTs (a DSP for a 4-bit operand absorbs its register, unseen by the timing model)
    val hopsTarget = RegNext((0 until 4).map(i => Mux(hops(i), csr.perHop.resize(20) |<< i, U(0, 20 bits))).reduce(_ + _)) // stage 3
    val aiAcked = born(2)(RegNext(csr.ai * e.acked))                                           // stage 2: u10.16
  }

  /** Stages 2-10: the fabric delay's target and the decrease factor's event part. */
  val fabricEvent = new Area {
    val delay = f1.delay
    val delayZero = born(3)(RegNext(delay === 0))                                              // stage 3
    val eventTarget = born(4)(RegNext(csr.baseTarget.resize(D + 1) + f1.hopsTarget))           // stage 4: base + hops x per_hop
    // AI iff delay < eventTarget + fs <=> fs > delay - eventTarget (compared in S1 against the state's fs)
    private val diffFull = RegNext(carry(delay, 4).resize(D + 2).asSInt - eventTarget.resize(D + 2).asSInt).asBits // stage 5
    val diffNegative = born(6)(RegNext(diffFull.msb))                                          // stage 6
    val diffBig = born(6)(RegNext(!diffFull.msb && diffFull(D downto 16) =/= 0))
    val diffLow = born(6)(RegNext(diffFull(15 downto 0).asUInt))
    val pipe = new RatioPipe(delay, carry(eventTarget, 5), 2, withG = true)           // ratio, g at 8; factor at 10
    /** cE: 1 - beta + beta x eventTarget / delay (u1.15); floor - cE for the loop's compare. */
    val factor = pipe.factor
    val floorMinusFactor = born(11)(RegNext(derived.floor.resize(19).asSInt - factor.resize(19).asSInt)) // stage 11
  }

  /** The endpoint delay's EWMA (Sec. 3.3): a per-flow loop of its own at stages 3-6, written at 7. */
  val ewma = new Area {
    val loop = new FlowStateLoop(unit, UInt(cfg.ewmaWidth bits), 3)
    private val state = born(3)(loop.read.state)
    private val sample = carry(unit.stage1.e.endpointDelay, 3)
    private val kind = carry(unit.stage1.e.kind, 3)
    private val diff = RegNext((sample @@ U(0, ewmaFrac bits)).resize(cfg.ewmaWidth + 1).asSInt - state.resize(cfg.ewmaWidth + 1).asSInt) // 4
    private val step = RegNext(diff >> csr.ewmaShiftReg)                              // 5: arithmetic shift
    private val stateAt5 = RegNext(RegNext(state))
    private val updatedFull = stateAt5.asSInt.resize(cfg.ewmaWidth + 1) + step         // in [0, 2^ewmaWidth)
    private val updated = RegNext(updatedFull(cfg.ewmaWidth - 1 downto 0).asUInt)         // 6
    private val kindAt6 = carry(kind, 6)
    val next = Mux(kindAt6 === WindowEvent.ACK, updated, Mux(kindAt6 === WindowEvent.INIT, U(0, cfg.ewmaWidth bits), carry(state, 6)))
    loop.write(next, U(0, cfg.ewmaWidth bits))
    /** The endpoint delay in ns after this ACK, at stage 7. */
    val delay = loop.written.state(cfg.ewmaWidth - 1 downto ewmaFrac)
  }

  /** Stages 7-15: the endpoint window's decision and factor (its target is a CSR). */
  val endpointEvent = new Area {
    val delay = ewma.delay
    val above = born(8)(RegNext(delay =/= 0 && delay >= csr.endpointTarget))                   // stage 8
    val pipe = new RatioPipe(delay, csr.endpointTarget, 7, withG = false)            // factor at 15
    private val kind = carry(unit.stage1.e.kind, 15)
    // the factor its decrease multiplies by: max(cE, 1 - max_mdf) on an ACK, 1 - max_mdf on a loss
    val factor = born(16)(RegNext(Mux(kind === WindowEvent.ACK && pipe.factor > derived.floor, pipe.factor, derived.floor))) // 16
  }

  /** The event as the update loop sees it. */
  val event = new Area {
    val kind = carry(unit.stage1.e.kind, Stage.S1)
    val isAck = kind === WindowEvent.ACK
    val isInit = kind === WindowEvent.INIT
    val isTimeout = kind === WindowEvent.TIMEOUT
    val now = carry(unit.stage1.now, Stage.S1)
    val rtt = carry(unit.stage1.e.rtt, Stage.S1)
    val aiAcked = carry(f1.aiAcked, Stage.S2)
    val delayZero = carry(fabricEvent.delayZero, Stage.S1)
    val diffNegative = carry(fabricEvent.diffNegative, Stage.S1)
    val diffBig = carry(fabricEvent.diffBig, Stage.S1)
    val diffLow = carry(fabricEvent.diffLow, Stage.S1)
    val g = carry(fabricEvent.pipe.g, Stage.S1)
    val fabricFactor = carry(fabricEvent.factor, Stage.S2)
    val floorMinusFactor = carry(fabricEvent.floorMinusFactor, Stage.S2)
    val endpointAbove = carry(endpointEvent.above, Stage.S1)
    val endpointFactor = carry(endpointEvent.factor, Stage.S2)
    val rttZero = carry(f1.rttZero, Stage.S4)
    val endpointAboveRtt = carry(f1.endpointAbove, Stage.S4)
    val hopsOver = carry(f1.hopsOver, Stage.S4)
  }
}
