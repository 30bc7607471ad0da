// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The update loop, Alg. 1 on both windows in four clocks (S1-S4, stages 16-19): S1 the state and
 * the compares, S2 the window products, S3 the decreases and increases summed and shifted, S4 each
 * candidate clamped; after W, the tables the flow's next event reads. SwiftRuleDecision picks.
 */
trait SwiftLoop extends SwiftEventStages {
  import Swift._
  private def cfg = config
  private def unit = windowUnit

  // ------------------------------------------------- the update loop: Alg. 1 in four clocks
  /** Alg. 1 line 26 on a candidate, with line 27's compare against the window read, side by side. */
  case class Candidate() extends Bundle {
    val cwnd = UInt(CW bits)
    val high = Bool()      // above MAX_CWND
    val low = Bool()       // cut to MAX_CWND, below MIN_CWND
    val decrease = Bool()  // line 27: the result is below the window read (or equal, with LINE27_AS_PRINTED)
  }

  /** MAX_CWND - cwnd and MIN_CWND - cwnd, and how MAX_CWND (or what a window above it becomes) compares with cwnd. */
  case class Headroom() extends Bundle {
    val toHigh = SInt(CW + 1 bits)
    val toLow = SInt(CW + 1 bits)
    /** Line 27 for a result of MAX_CWND (or what a window above it becomes), of MIN_CWND. */
    val highDecrease = Bool()
    val lowDecrease = Bool()
  }

  /** Line 27: `result` counts as a decrease from `prev` (below it, or not above it as printed). */
  private def decreaseOf(result: UInt, prev: UInt): Bool = {
    val w = scala.math.max(result.getWidth, prev.getWidth)
    Mux(derived.line27AsPrinted, result.resize(w) <= prev.resize(w), result.resize(w) < prev.resize(w))
  }

  /** Alg. 1 line 26 on `value`, and line 27 against the window read `prev` (h: prev's headroom, from S3). */
  private def clampOf(value: UInt, prev: UInt, h: Headroom): Candidate = {
    val min = derived.minCwnd
    val c = Candidate()
    val w = scala.math.max(value.getWidth, CW)
    val under = value.resize(w) < min.resize(w)
    c.high := value.resize(w) > derived.maxCwnd.resize(w)
    c.low := Mux(c.high, derived.highBelowLow, under)
    c.cwnd := Mux(c.high, derived.highValue, Mux(under, min, value.resize(CW)))
    c.decrease := Mux(c.high, h.highDecrease, Mux(under, h.lowDecrease, decreaseOf(value, prev)))
    c
  }

  /** What S2-S4 keep of a window's state. */
  case class CarriedWindow() extends Bundle {
    val cwnd = UInt(CW bits)
    val last = UInt(timeBits bits)
    val decreased = Bool()
  }
  case class Carried() extends Bundle {
    val fabric = CarriedWindow()
    val endpoint = CarriedWindow()
    val rtt = UInt(D bits)
  }
  private def carried(s: SwiftFlowState): Carried = {
    val c = Carried()
    for ((to, from) <- Seq((c.fabric, s.fabric), (c.endpoint, s.endpoint))) {
      to.cwnd := from.cwnd
      to.last := from.last
      to.decreased := from.decreased
    }
    c.rtt := s.rtt
    c
  }

  /**
   * The reciprocals and leading ones of both windows an event writes, and the fabric window's 1/sqrt
   * table value, for the flow's next event (Alg. 1 line 8 divides by the window that event reads;
   * Sec. 3.5 scales its target by it). Found after the loop: W the leading ones and table indexes,
   * X1 = W + 1 the ROM reads, X2 = W + 2 the values, written to their own RAM at X2. An event reads them at S1 - 1
   * (data at S1); the same flow's previous event is at least `sameFlowSpacing` = 6 clocks ahead, so
   * at X2 (forwarded from the tables' outputs), at X3 (from their register) or written.
   */
  val tables = new Area {
    private val w = written.state
    // W: the leading ones and table indexes of the windows written (registered: X1 addresses the ROMs)
    private def indexOf(cwnd: UInt): (UInt, UInt) = {
      val (index, msb) = WindowArith.recipIndex(cwnd.resize(CW - 1), leadingOne(cwnd, minWindowLog2), minWindowLog2, I)
      (RegNext(index), RegNext(msb.resize(5)))
    }
    private val (fabricIndex, fabricMsb) = indexOf(w.fabric.cwnd)                              // X1
    private val (endpointIndex, endpointMsb) = indexOf(w.endpoint.cwnd)
    private val writeX1 = RegNext(written.write) init (False)
    private val addrX1 = RegNext(written.addr)
    /** X2: the tables' values for the windows written. */
    val found = SwiftWindowTables()
    found.fabricRecip := recipRom.readSync(fabricIndex)
    found.endpointRecip := recipRom.readSync(endpointIndex)
    found.fabricRsqrt := rsqrtRom.readSync(rsqrtAddress(fabricMsb, fabricIndex))
    found.fabricMsb := RegNext(fabricMsb)
    found.endpointMsb := RegNext(endpointMsb)
    private val writeX2 = RegNext(writeX1) init (False)
    private val addrX2 = RegNext(addrX1)
    private val foundX3 = RegNext(found)
    /** The post-reset sweep's values: those of the initial window at the CSRs' reset values (as INIT's). */
    val initTables = SwiftWindowTables()
    initTables.fabricRecip := SwiftDefaults.initRecip
    initTables.fabricMsb := SwiftDefaults.initMsb
    initTables.endpointRecip := SwiftDefaults.initRecip
    initTables.endpointMsb := SwiftDefaults.initMsb
    initTables.fabricRsqrt := SwiftDefaults.initRsqrt
    val ram = Mem(SwiftWindowTables(), unit.spec.ramWords)
    unit.sweep.write(ram, addrX2, found, writeX2, initTables)
    private val addrRead = carry(unit.stage1.addr, Stage.S1 - 1)
    private val ramData = ram.readSync(addrRead)
    private val fromX2 = RegNext(writeX1 && addrX1 === addrRead) init (False)          // that event is at X2 when this one is at S1
    private val fromX3 = RegNext(writeX2 && addrX2 === addrRead) init (False)
    /** S1: the values of the windows this event reads. */
    val read = born(Stage.S1)(SwiftWindowTables())
    read.assignFromBits(Mux(fromX2, found.asBits, Mux(fromX3, foundX3.asBits, ramData.asBits)))
  }

  /** S1: the state as read or forwarded; compares and the fs x (beta / delay) products. */
  val s1 = new Area {
    // same-flow events six clocks apart: the flow's previous event is past W (FlowStateLoop forwards
    // it from W + 1 when the data comes), so the state needs no select at S1
    val s = read.state
    // Alg. 1 lines 6-10 against 11-14: delay < eventTarget + fs (a delay of 0 is below any target)
    val fabricIncrease = born(Stage.S1)(event.delayZero || event.diffNegative || !event.diffBig && s.fs > event.diffLow)
    private val rttCheck = Mux(event.isAck, event.rtt, s.rtt)                          // line 3: the RTT of this ACK, or the last
    private def canDecrease(w: SwiftWindowState) = !w.decreased || (event.now - w.last) >= rttCheck.resize(timeBits)
    val fabricCanDecrease = born(Stage.S1)(canDecrease(s.fabric))
    val endpointCanDecrease = born(Stage.S1)(canDecrease(s.endpoint))
    private val retxPlus = s.retx +^ 1
    private val retxFull = Mux(event.isTimeout, Mux(retxPlus > csr.retxResetThreshold, csr.retxResetThreshold.resize(4), retxPlus), U(0, 4 bits))
    val retx1 = born(Stage.S1)(retxFull(2 downto 0))                                                  // at most the 3-bit threshold
    val reset = born(Stage.S1)(event.isTimeout && retx1 >= csr.retxResetThreshold)                     // line 17
    // fs x beta / delay (registers into a DSP)
    val fsBetaFull = RegNext(s.fs * event.g)
    // flow scaling of the fabric window this event reads, for the next event: its 1/sqrt (INIT: of the initial window)
    // of 2 fcwnd when the fraction bits are odd (an even number of them for the square root): its leading one is one up
    private val fsMsbFull = Mux(event.isInit, derived.initMsb, tables.read.fabricMsb) +^ U(cwndFrac & 1, 1 bits)
    val fsShift = born(Stage.S1)(fsMsbFull(5 downto 1))                                                // msb / 2
    // alpha x 1/sqrt: the table value found for the window after the event that wrote it (INIT: the
    // initial window's), registered here (the DSP's A register), then the DSP's M and P registers, so
    // that S4's shift, add and clamp start at P (from M they took 4.66 ns Vivado-packed).
    private val rsqrtIn = RegNext(Mux(event.isInit, derived.initRsqrt, tables.read.fabricRsqrt))        // S2
    val fsProductAlphaFull = RegNext(RegNext(csr.fsAlphaReg * rsqrtIn))                               // S4
  }

  /** S2: the window products; the fabric factor's compare. */
  val s2 = new Area {
    val s = RegNext(carried(s1.s))
    val floor = derived.floor
    val fabricFactorProductFull = RegNext(s.fabric.cwnd * event.fabricFactor)           // cwnd x cE
    val fabricFloorProductFull = RegNext(s.fabric.cwnd * floor)                         // cwnd x (1 - max_mdf)
    private def m(p: UInt) = p(32 downto 16)                                             // (fs x g) >> 16 (< 2^17 when it is used)
    val fabricFsFull = RegNext(s.fabric.cwnd * m(s1.fsBetaFull))
    // max(cE + m, floor) = cE + m iff m > floor - cE
    private def above(p: UInt) = m(p).resize(19).asSInt > event.floorMinusFactor
    val fabricAboveFloor = RegNext(above(s1.fsBetaFull))
    // ai x acked x 1/w of the window this event reads (Alg. 1 line 8)
    val fabricIncreaseProduct = RegNext(event.aiAcked * RegNext(tables.read.fabricRecip))
    val endpointIncreaseProduct = RegNext(event.aiAcked * RegNext(tables.read.endpointRecip))
    val endpointProductFull = RegNext(s.endpoint.cwnd * event.endpointFactor)
    // from one packet up the increase divides by the window (Alg. 1 line 8), below it does not (line 10)
    val fabricAtLeastOne = RegNext(s.fabric.cwnd >= one)
    val endpointAtLeastOne = RegNext(s.endpoint.cwnd >= one)
  }

  /** S3: the decreases and increases summed and shifted. */
  val s3 = new Area {
    val s = RegNext(s2.s)
    private val fsProduct = s2.fabricFsFull
    private val sumFull = s2.fabricFactorProductFull.resize(CW + 18) + fsProduct.resize(CW + 18)
    private def dropGain(p: UInt): UInt = p(p.getWidth - 1 downto gainFrac)
    val fabricLoss = RegNext(dropGain(s2.fabricFloorProductFull))                      // cwnd x (1 - max_mdf) >> 15
    val fabricDecrease = RegNext(Mux(s2.fabricAboveFloor, dropGain(sumFull), dropGain(s2.fabricFloorProductFull).resize(CW + 3)))
    val endpointDecrease = RegNext(dropGain(s2.endpointProductFull))
    // (aiAcked x recip) >> (msb - 4) from one packet up (msb >= 7: below 2^38); aiAcked x 2 below
    private val fabricShiftedFull = (s2.fabricIncreaseProduct << increaseOffset) >> carry(tables.read.fabricMsb, Stage.S3)
    private val endpointShiftedFull = (s2.endpointIncreaseProduct << increaseOffset) >> carry(tables.read.endpointMsb, Stage.S3)
    private val aiAckedTwice = (carry(event.aiAcked, Stage.S3) << 1).resize(38)
    val fabricIncrease = RegNext(Mux(s2.fabricAtLeastOne, fabricShiftedFull(37 downto 0), aiAckedTwice))
    val endpointIncrease = RegNext(Mux(s2.endpointAtLeastOne, endpointShiftedFull(37 downto 0), aiAckedTwice))
    // headroom to the limits, for S4's increases
    private def headroom(cwnd: UInt): Headroom = {
      val h = Headroom()
      h.toHigh := derived.maxCwnd.resize(CW + 1).asSInt - cwnd.resize(CW + 1).asSInt
      h.toLow := derived.minCwnd.resize(CW + 1).asSInt - cwnd.resize(CW + 1).asSInt
      h.highDecrease := decreaseOf(derived.highValue, cwnd)
      h.lowDecrease := decreaseOf(derived.minCwnd, cwnd)
      h
    }
    private val fabricHeadroomNow = headroom(s.fabric.cwnd)
    private val endpointHeadroomNow = headroom(s.endpoint.cwnd)
    // the candidates that need no product, clamped a clock early
    val fabricHeld = RegNext(clampOf(s.fabric.cwnd, s.fabric.cwnd, fabricHeadroomNow))
    val endpointHeld = RegNext(clampOf(s.endpoint.cwnd, s.endpoint.cwnd, endpointHeadroomNow))
    val fabricReset = RegNext(clampOf(derived.minCwnd, s.fabric.cwnd, fabricHeadroomNow))
    val endpointReset = RegNext(clampOf(derived.minCwnd, s.endpoint.cwnd, endpointHeadroomNow))
    val fabricHeadroom = RegNext(fabricHeadroomNow)
    val endpointHeadroom = RegNext(endpointHeadroomNow)
  }

  /** S4: each candidate clamped, the rule's pick, the new state. */
  val s4 = new Area {
    val s = RegNext(s3.s)
    private val min = derived.minCwnd
    /**
     * The same for cwnd + inc (inc >= 0), from the headroom to both limits (S3), so that the add
     * and the compares run side by side: never below the window read; equal iff inc = 0.
     */
    private def clampIncrease(cwnd: UInt, inc: UInt, h: Headroom): Candidate = {
      val c = Candidate()
      val w = inc.getWidth + 1
      val sum = cwnd + inc.resize(CW)                                // modulo 2^26: used only within the limits
      val under = !h.toLow.msb && inc.resize(w) < h.toLow.asUInt.resize(w)
      c.high := h.toHigh.msb || inc.resize(w) > h.toHigh.asUInt.resize(w)
      c.low := Mux(c.high, derived.highBelowLow, under)
      c.cwnd := Mux(c.high, derived.highValue, Mux(under, min, sum))
      c.decrease := Mux(c.high, h.highDecrease, !under && derived.line27AsPrinted && inc === 0)
      c
    }
    val fabricHeld = s3.fabricHeld
    val fabricIncrease = clampIncrease(s.fabric.cwnd, s3.fabricIncrease, s3.fabricHeadroom)
    val fabricDecrease = clampOf(s3.fabricDecrease, s.fabric.cwnd, s3.fabricHeadroom)
    val fabricLoss = clampOf(s3.fabricLoss, s.fabric.cwnd, s3.fabricHeadroom)
    val endpointHeld = s3.endpointHeld
    val endpointIncrease = clampIncrease(s.endpoint.cwnd, s3.endpointIncrease, s3.endpointHeadroom)
    val endpointDecrease = clampOf(s3.endpointDecrease, s.endpoint.cwnd, s3.endpointHeadroom)
    val fabricReset = s3.fabricReset
    val endpointReset = s3.endpointReset
    // flow scaling: clamp((alpha x r) >> (5 + msb / 2) + beta, 0, range)
    // the shift by msb / 2 as a one-hot pick (the selects registered in S3): a barrel shifter before the clamp's compares does not fit
    private val fsShifts = 0 until 14                                                 // msb / 2 of a 26-bit window (+ 1)
    private val fsShiftSelect = RegNext(Vec(fsShifts.map(k => carry(s1.fsShift, Stage.S3) === k)))
    private val fsProduct = s1.fsProductAlphaFull
    private def fsShifted(k: Int) = fsProduct(fsProduct.getWidth - 1 downto k + rsqrtValue - (cwndFrac + (cwndFrac & 1)) / 2)
    private val fsRawFull = oneHotPick(fsShifts.map(k => (fsShiftSelect(k), fsShifted(k).resize(fsWidth))), fsWidth) // below 2^25
    private val fsRaw = (False ## fsRawFull(fsWidth - 2 downto 0)).asSInt
    private val fsSumFull = fsRaw + derived.fsBeta.resize(fsWidth)
    val fs = Mux(fsRaw < derived.fsZeroBelow, U(0, 16 bits),
      Mux(fsRaw > derived.fsRangeAbove, derived.fsRange, fsSumFull(15 downto 0).asUInt))
  }
}
