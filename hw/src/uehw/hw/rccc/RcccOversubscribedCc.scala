// SPDX-License-Identifier: Apache-2.0
package uehw.hw.rccc

import spinal.core._
import spinal.lib._
import uehw.hw.common._

/** One packet arriving at the receiver (data or a trimmed header, duplicates too): what the controller counts. */
case class RcccArrival() extends Bundle {
  /** ECN-marked (counted only when not trimmed). */
  val ecn = Bool()
  val trimmed = Bool()
  /** Trimmed at the last hop (the receiver's ToR downlink); else before it. */
  val lastHop = Bool()
}

class RcccOversubscribedCcIo extends Bundle {
  import RcccOversubscribedCc._
  /** High from the edge the pacer's ports open: the first interval starts at the first edge it is high. */
  val start = in Bool()
  val arrival = slave(Flow(RcccArrival()))
  /** OCC_PERIOD_CLOCKS (sampled at each interval's end), OCC_MIN_RATE (sampled at the floor's edge). */
  val periodClocks = in UInt (periodBits bits)
  val minRate = in UInt (rateBits bits)
  /** PS_PER_QUANTUM, the time per quantum at rate 1 (sampled when a division starts). */
  val basePsPerQuantum = in UInt (RcccPacer.psPerQuantumBits bits)
  /** The time per quantum under the rate: floor(base x 2^30 / rate), at most 2^24 - 1. */
  val psPerQuantum = out UInt (RcccPacer.psPerQuantumBits bits)
  /** The rate and g (2^-30) as the last decision left them (published at its CAP edge). */
  val rate = out UInt (rateBits bits)
  val g = out UInt (rateBits bits)
  /** A decision's strobe, for the top's counter. */
  val decided = out Bool()
}

object RcccOversubscribedCc {
  /** Rate, average and fractions in units of 2^-30 (OversubscribedCcFixed.F). */
  val F = 30
  val one: BigInt = BigInt(1) << F
  val rateBits = 31
  val periodBits = 20
  /** An interval is at most 1.25 x (2^20 - 1) clocks of one arrival each: its counts fit 21 bits, never saturating. */
  val countBits = 21
  /** OCC_PERIOD_CLOCKS below this is taken as this: an interval (at least 3/4 of it) outlasts a decision. */
  val minPeriodClocks = 512
  /** 0.3 x 2^30, rounded up (OversubscribedCcFixed.TARGET). */
  val target = 322122548L
  /** 0.01 x 2^30, truncated (OversubscribedCcFixed.AI). */
  val additiveIncrease = 10737418L
  val kMax = 7
  /** The serial units' steps: 31 quotient or multiplier bits. */
  val steps = 31

  /** The micro-program: phase names and their edges (docs/rccc.md, "The oversubscription controller"). */
  object Pc {
    val IDLE = 0; val DRAW = 1; val DRAW_ADD = 2; val UNTRIMMED = 3; val DIV_FRACTION = 4; val DIV_TRIM = 5
    val APPLY_TRIM = 6; val MUL_MD = 7; val APPLY_MD = 8; val FLOOR = 9; val CAP = 10; val DIV_QUANTUM = 11; val WRITE = 12
    val names = Seq("IDLE", "DRAW", "DRAW_ADD", "UNTRIMMED", "DIV_FRACTION", "DIV_TRIM", "APPLY_TRIM", "MUL_MD", "APPLY_MD",
      "FLOOR", "CAP", "DIV_QUANTUM", "WRITE")
    val count = names.size
  }
}

/**
 * RCCC's oversubscription controller (uet-htsim 40ccb05 oversubscribed_cc.cpp:39-85), the
 * rccc-pacer's `oversubscribed-cc` option, bit-exact with uehw.model.rccc.OversubscribedCcFixed
 * (the rules) and uehw.model.rccc.OversubscribedCcClocked (the edges). It counts the receiver's
 * arrivals per interval (U[0.75, 1.25] x OCC_PERIOD_CLOCKS, oversubscribed_cc.h:24-27), decides
 * the rate once per interval and divides the pacer's time per quantum by it (uec.cpp:3132-3139).
 * The controller decides once in microseconds, so one serial unit (31 steps a division or
 * multiply) does the arithmetic: a micro-program of phases, each a fixed number of edges.
 */
class RcccOversubscribedCc(seed: Long, resetPsPerQuantum: Long) extends Component {
  import RcccOversubscribedCc._
  val io = new RcccOversubscribedCcIo

  /** The interval's counts; snapshots at its end, an arrival at that edge counting in the next. */
  val counts = new Area {
    val total, ecn, trimmedLastHop, trimmedOther = Reg(UInt(countBits bits)) init (0)
    val boundary = Bool()
    private val a = io.arrival
    private def next(c: UInt, inc: Bool): UInt = Mux(boundary, U(0, countBits bits), c) + inc.asUInt.resize(countBits)
    total := next(total, a.valid)
    ecn := next(ecn, a.valid && !a.trimmed && a.ecn)
    trimmedLastHop := next(trimmedLastHop, a.valid && a.trimmed && a.lastHop)
    trimmedOther := next(trimmedOther, a.valid && a.trimmed && !a.lastHop)
  }

  /** The intervals: 3/4 of the period at the end, the draw scaled onto period/2 + 1 added when the unit has it. */
  val timer = new Area {
    val started = RegInit(False)
    val remaining = Reg(UInt(periodBits + 1 bits)) init (0)
    val boundary = Bool()
    /**
     * remaining = 1 at this edge, from a register: remaining was 2 at the edge before and no boundary
     * reloaded it (the draw is added at most about 70 edges into an interval of at least 384, never at 2).
     */
    val tick = RegNext(started && remaining === 2 && !boundary) init (False)
    val begin = io.start && !started
    boundary := tick || begin
    counts.boundary := boundary
    private val period = Mux(io.periodClocks < minPeriodClocks, U(minPeriodClocks, periodBits bits), io.periodClocks)
    val periodUsed = RegNextWhen(period, boundary) init (minPeriodClocks)
    /** 3P in 22 bits (P up to 2^20 - 1); its two low bits are the quarter's remainder, dropped. */
    val threePeriodsFull = period +^ (period << 1)
    val prng = new Xorshift32(seed)
    prng.draw := boundary
    prng.reseed := False
    prng.seedValue := 0
    val draw = RegNextWhen(prng.value, boundary) init (0)
    val addScaled = Bool()
    val scaled = UInt(periodBits bits)
    when(boundary) {
      started := True
      remaining := threePeriodsFull(periodBits + 1 downto 2).resized   // floor(3P / 4)
    } elsewhen (started) {
      remaining := remaining - 1 + Mux(addScaled, scaled, U(0, periodBits bits)).resized
    }
    /** A boundary's job waits for the unit (at most one: intervals outlast a job). */
    val drawPending = RegInit(False)
    val decidePending = RegInit(False)
    val snapTotal, snapEcn, snapTrimmedLastHop, snapTrimmedOther = Reg(UInt(countBits bits)) init (0)
    when(tick) {
      snapTotal := counts.total
      snapEcn := counts.ecn
      snapTrimmedLastHop := counts.trimmedLastHop
      snapTrimmedOther := counts.trimmedOther
    }
  }

  /** The micro-program and its serial unit. */
  val unit = new Area {
    /** The phase, one-hot (one flip-flop a phase: the sequencer's decisions stay a LUT or two deep). */
    val at = Vec.tabulate(Pc.count)(i => RegInit(Bool(i == Pc.IDLE)).setName(s"phase_${Pc.names(i)}"))
    val n = Reg(UInt(5 bits)) init (0)
    val deciding = Reg(Bool()) init (False)
    // the decision's state (oversubscribed_cc.h): the rate (signed: a trim may take it below 0 before the floor), g, k
    val rate = Reg(SInt(rateBits + 3 bits)) init (S(one, rateBits + 3 bits))
    val g = Reg(UInt(rateBits bits)) init (0)
    val k = Reg(UInt(3 bits)) init (0)
    // at rate 1 the time per quantum is PS_PER_QUANTUM's reset value
    val psPerQuantum = Reg(UInt(RcccPacer.psPerQuantumBits bits)) init (resetPsPerQuantum)
    val baseUsed = Reg(UInt(RcccPacer.psPerQuantumBits bits)) init (resetPsPerQuantum)
    /** The rate and g as the last decision left them (the status registers). */
    val ratePublished = Reg(UInt(rateBits bits)) init (U(one, rateBits bits))
    val gPublished = Reg(UInt(rateBits bits)) init (0)
    val saturate = Reg(Bool()) init (False)
    // the interval's counts being decided on
    val total, ecn, trimmedLastHop, trimmedOther, untrimmed = Reg(UInt(countBits bits)) init (0)
    val fraction = Reg(UInt(rateBits bits)) init (0)
    val decrease = Reg(Bool()) init (False)
    /** Some trims before the last hop (registered: the counts stand still from DRAW_ADD on). */
    val trims = RegNext(trimmedOther =/= 0) init (False)

    // the serial multiplier (LSB first, the product shifted out into lo) and restoring divider (the quotient into lo)
    val acc = Reg(SInt(rateBits + 5 bits)) init (0)
    val b = Reg(SInt(rateBits + 3 bits)) init (0)
    val rem = Reg(UInt(rateBits bits)) init (0)
    val divisor = Reg(UInt(rateBits bits)) init (0)
    val lo = Reg(UInt(steps bits)) init (0)
    private def loadMul(multiplicand: SInt, multiplier: UInt): Unit = {
      acc := 0; b := multiplicand.resized; lo := multiplier.resized
    }
    private def loadDiv(high: UInt, low: UInt, d: UInt): Unit = {
      rem := high.resized; lo := low.resized; divisor := d.resized
    }
    // one adder and one subtractor, shared by the phases that multiply and those that divide
    val mulSum = acc + Mux(lo(0), b, S(0, b.getWidth bits)).resized
    val divShifted = rem @@ lo(steps - 1)
    val divFits = divShifted >= divisor
    val divRemFull = Mux(divFits, divShifted - divisor, divShifted)   // below the divisor: its top bit is 0
    private def mulStep(): Unit = {
      acc := mulSum |>> 1
      lo := mulSum(0).asUInt @@ lo(steps - 1 downto 1)
    }
    private def divStep(): Unit = {
      rem := divRemFull(rateBits - 1 downto 0)
      lo := lo(steps - 2 downto 0) @@ divFits.asUInt
    }
    /** floor(product / 2^30) of the last multiply (the product is acc x 2^31 + lo). */
    private val productFull = ((acc |<< 1).asBits | lo(steps - 1).asBits.resized).asSInt   // within 34 bits by range
    private val targetU = U(target, rateBits bits)
    val gSumFull = g +^ fraction   // its low bit is halved away
    private val factor = U(one, rateBits bits) - ((g - targetU) |>> 1)
    /** Registered: g and the counts stand still from APPLY_TRIM (and DRAW_ADD) to APPLY_MD, 33 edges later. */
    private val gAbove = RegNext(g >= targetU) init (False)
    private val base = io.basePsPerQuantum
    /** PS_PER_QUANTUM differed from the last division's at the edge before (registered: off the micro-program's path). */
    private val baseChanged = RegNext(base =/= baseUsed) init (False)
    private val rateU = rate(rateBits - 1 downto 0).asUInt   // the clamped rate, 1..2^30
    /** base x 2^30 / rate needs more than 24 bits: base x 64 >= rate. */
    private val quotientOver = (base @@ U(0, 6 bits)).resize(rateBits) >= rateU
    private val increase = RegNext((ecn === 0) ? (U(additiveIncrease, 32 bits) |<< k) | U(additiveIncrease, 32 bits)) init (0)
    private val minRateNonZero = Mux(io.minRate === 0, U(1, rateBits bits), io.minRate)

    io.decided := False
    timer.addScaled := False
    timer.scaled := acc(periodBits downto 1).asUInt   // draw x size >> 32 (< size < 2^19)

    /**
     * One edge a phase, or a load and 31 steps for the serial unit's: one edge counter for all of
     * them; n = 31 from a register (n was 30 an edge before: only an arithmetic phase counts past 0).
     */
    private val arithmeticPhases = Set(Pc.DRAW, Pc.DIV_FRACTION, Pc.DIV_TRIM, Pc.MUL_MD, Pc.DIV_QUANTUM)
    /** In an arithmetic phase: set and cleared with the phase (a register, not a decode of the phases). */
    private val inArithmetic = RegInit(False)
    private val lastStep = RegNext(n === steps - 1) init (False)
    private val phaseEnds = !inArithmetic || lastStep
    n := Mux(phaseEnds, U(0, 5 bits), n + 1)
    private def goTo(from: Int, to: Int): Unit = { at(from) := False; at(to) := True; inArithmetic := Bool(arithmeticPhases(to)) }
    /** A phase: `body` at each of its edges, then the next phase. */
    private def phase(here: Int, next: Int)(body: => Unit): Unit = when(at(here)) {
      body
      when(phaseEnds) { goTo(here, next) }
    }
    private def arithmetic(here: Int, next: Int)(load: => Unit)(step: => Unit): Unit =
      phase(here, next) { when(n === 0) { load } otherwise { step } }

    when(at(Pc.IDLE)) {
      // a boundary's job first: a base changed since the last division waits for it
      when(timer.drawPending) {
        goTo(Pc.IDLE, Pc.DRAW)
        deciding := timer.decidePending
        timer.drawPending := False
        timer.decidePending := False
      } elsewhen (baseChanged) {
        goTo(Pc.IDLE, Pc.DIV_QUANTUM)
      }
    }
    when(timer.boundary) {
      timer.drawPending := True
      timer.decidePending := timer.tick
    }
    arithmetic(Pc.DRAW, Pc.DRAW_ADD)(loadMul(timer.draw.resize(rateBits + 3).asSInt, (timer.periodUsed |>> 1) + 1))(mulStep())
    when(at(Pc.DRAW_ADD)) {   // one edge; then the decision, or idle after the first boundary's draw
      at(Pc.DRAW_ADD) := False
      when(deciding) { at(Pc.UNTRIMMED) := True } otherwise { at(Pc.IDLE) := True }
      timer.addScaled := True
      total := timer.snapTotal
      ecn := timer.snapEcn
      trimmedLastHop := timer.snapTrimmedLastHop
      trimmedOther := timer.snapTrimmedOther
    }
    // the counts never saturate, so marks and trims never exceed the packets (oversubscribed_cc.cpp:49 asserts it)
    phase(Pc.UNTRIMMED, Pc.DIV_FRACTION) { untrimmed := total - trimmedOther - trimmedLastHop }
    // oversubscribed_cc.cpp:54-55: the marked fraction of the untrimmed packets, ecn x 2^30 / untrimmed
    arithmetic(Pc.DIV_FRACTION, Pc.DIV_TRIM)(loadDiv(ecn |>> 1, ecn(0).asUInt @@ U(0, 30 bits), untrimmed))(divStep())
    // :58-61: the trims before the last hop over all packets, rounded up: (trimmedOther x 2^30 + total - 1) / total
    arithmetic(Pc.DIV_TRIM, Pc.APPLY_TRIM) {
      fraction := Mux(untrimmed === 0, U(0, rateBits bits), lo)
      loadDiv(trimmedOther |>> 1, trimmedOther(0).asUInt @@ (total - 1).resize(30), total)
    }(divStep())
    phase(Pc.APPLY_TRIM, Pc.MUL_MD) {
      when(trims) { rate := rate - lo.resize(rateBits + 3).asSInt }
      decrease := trims
      g := gSumFull(rateBits downto 1)   // :63, alpha = 1/2
    }
    // :65-68: rate x (1 - (g - 0.3) / 2), the factor and the product truncated
    arithmetic(Pc.MUL_MD, Pc.APPLY_MD)(loadMul(rate, factor))(mulStep())
    phase(Pc.APPLY_MD, Pc.FLOOR) {
      val afterMd = Mux(gAbove, productFull(rateBits + 2 downto 0), rate)
      when(decrease || gAbove) {   // :70-80: an increase only without a decrease, doubling while unmarked
        rate := afterMd
        k := 0
      } otherwise {
        rate := afterMd + increase.resize(rateBits + 3).asSInt
        k := Mux(k === kMax, U(kMax, 3 bits), k + 1)
      }
    }
    // :82-85: [OCC_MIN_RATE (0 taken as 1), 1]
    phase(Pc.FLOOR, Pc.CAP) {
      when(rate < minRateNonZero.resize(rateBits + 3).asSInt) { rate := minRateNonZero.resize(rateBits + 3).asSInt }
    }
    phase(Pc.CAP, Pc.DIV_QUANTUM) {
      val capped = Mux(rate > S(one, rateBits + 3 bits), S(one, rateBits + 3 bits), rate)
      rate := capped
      ratePublished := capped(rateBits - 1 downto 0).asUInt
      gPublished := g
      io.decided := True
    }
    // uec.cpp:3132-3139: base x 2^30 / rate, saturated at 2^24 - 1
    arithmetic(Pc.DIV_QUANTUM, Pc.WRITE) {
      baseUsed := base
      saturate := quotientOver
      loadDiv(base |>> 1, base(0).asUInt @@ U(0, 30 bits), rateU)
    }(divStep())
    phase(Pc.WRITE, Pc.IDLE) {
      psPerQuantum := Mux(saturate, U((1 << RcccPacer.psPerQuantumBits) - 1, RcccPacer.psPerQuantumBits bits),
        lo.resize(RcccPacer.psPerQuantumBits))
    }
  }

  io.psPerQuantum := unit.psPerQuantum
  io.rate := unit.ratePublished
  io.g := unit.gPublished
}
