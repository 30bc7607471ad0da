// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The update loop's clamp arithmetic (Alg. 1 line 36, max(min(cwnd, MAX_CWND), MTU)): windows
 * clamped from their headroom to both limits, windows left for the pick to clamp, and the
 * increases' compares moved onto their DSP products.
 */
trait SmarttClampArith extends SmarttLawBase {
  private def cfg = config
  protected def high: UInt = derived.cwndHigh
  protected def low: UInt = derived.cwndLow
  protected def highBelowLow: Bool = derived.highBelowLow
  protected val cw = cfg.cwndWidth
  protected val sw = cw + 2 // signed window arithmetic: cwnd +- a change, before the clamp

  /**
   * Alg. 1 line 36, max(min(cwnd + delta, MAX_CWND), MTU), from the headroom to both limits
   * (computed a clock earlier), so the add and the two compares run side by side.
   */
  case class Clamped() extends Bundle {
    val cwnd = UInt(cw bits)
    val high = Bool() // cwnd + delta > MAX_CWND (counted CLAMPED_MAX unless CLAMPED_MIN)
    val low = Bool()  // min(cwnd + delta, MAX_CWND) < MTU (CLAMPED_MIN)
  }
  protected def clampDelta(cwnd: UInt, delta: SInt, toHigh: SInt, toLow: SInt): Clamped = {
    val r = Clamped()
    val sum = cwnd + delta.resize(cw).asUInt // modulo 2^cw: used only when within the limits
    val under = delta < toLow
    r.high := delta > toHigh
    r.low := Mux(r.high, highBelowLow, under)
    r.cwnd := Mux(r.high, Mux(highBelowLow, low, high), Mux(under, low, sum)) // one LUT6 a bit
    r
  }
  /** A window that does not start from the stored one (QuickAdapt's, in S4), before its clamp: it and its compares registered for S5. */
  protected def unclampedValue(value: UInt, above: Bool, below: Bool): UnclampedWindow =
    UnclampedWindow(RegNext(value.resize(cw)), RegNext(above), RegNext(below))
  /**
   * clampDelta for a decrease `dec` (delta = -dec), from the headroom measured the other way
   * (fromHigh = cwnd - MAX_CWND, fromLow = cwnd - MTU): compared with `dec` itself, so that no
   * negation runs before the compares.
   */
  protected def clampDecrease(cwnd: UInt, dec: UInt, fromHigh: SInt, fromLow: SInt): Clamped = {
    val r = Clamped()
    val w = scala.math.max(dec.getWidth + 1, sw) + 1
    val decS = (U(0, 1 bits) @@ dec.resize(w - 1)).asSInt
    val sum = cwnd - dec.resize(cw)                            // modulo 2^cw: used only when within the limits
    val under = decS > fromLow.resize(w)
    r.high := decS < fromHigh.resize(w)
    r.low := Mux(r.high, highBelowLow, under)
    r.cwnd := Mux(r.high, Mux(highBelowLow, low, high), Mux(under, low, sum))
    r
  }
  /**
   * An increase's compares with the clamp's limits, moved from its quotient onto its product so
   * that S5 starts from registered flags (x = p >> k, k the product's shift; x not past sw + 1 bits):
   * x > H <=> p > (H << k) | (2^k - 1), and x < L <=> p < L << k, for the headrooms H = MAX_CWND -
   * cwnd and L = MTU - cwnd (0 where negative). The thresholds are made in S3 from S2's headroom,
   * compared with the product in S4, the flags registered for S5.
   */
  class LimitsOnProduct(x: OverCwnd, toHigh: SInt, toLow: SInt) extends Area {
    private val W = incProductWidth
    // whether the registered shift is at least c: a table of constants it indexes (a LUT, not a
    // compare's carry chain)
    private val shiftValues = 1 << x.shift.getWidth
    private def atLeast(c: Int): Bool = {
      if (c <= 0) True
      else if (c >= shiftValues) False
      else {
        val mask: BigInt = (c until shiftValues).foldLeft(BigInt(0))((m, k) => m.setBit(k))
        val table = spinal.core.B(mask, shiftValues bits)
        table(x.shift)
      }
    }
    private def atShift(v: SInt): UInt = Mux(v.msb, U(0, sw bits), v.asUInt) << x.shift
    private val highFull = atShift(toHigh)
    private val lowFull = atShift(toLow)
    private val onesBelowShift = Vec((0 until W).map(i => atLeast(i + 1))).asBits.asUInt
    val highPassed = RegNext(toHigh.msb)
    val highAt = RegNext(highFull(W - 1 downto 0) | onesBelowShift)
    // (max(v, 0) << shift) reaches bit W: bit i of v lands at i + shift, so bit i counts when the
    // shift is at least W - i; one AND-OR (not an OR after the shift: 7 LUTs at N = 4096).
    private def reachesW(v: SInt): Bool =
      !v.msb && (0 until v.getWidth - 1).map(i => v(i) && atLeast(W - i)).foldLeft(False: Bool)(_ || _)
    val highOver = RegNext(reachesW(toHigh))
    val lowAt = RegNext(lowFull(W - 1 downto 0))
    val lowOver = RegNext(reachesW(toLow))
    /** S4: the flags, from the product and whether the quotient passes sw + 1 bits (`big`), registered for S5. */
    def flags(big: Bool): (Bool, Bool) =
      (RegNext(big || highPassed || !highOver && x.product > highAt), RegNext(!big && (lowOver || x.product < lowAt)))
  }

  // the table's value pre-shifted by up to 3 (below): a 26 x 17 product, one DSP48E2 (27 x 18 signed)
  protected val incProductWidth = Smartt.mantissaBits + V + 3
  /**
   * x / cwnd for an increase numerator's mantissa, in S3: one DSP (M in S4), the product's shift
   * (summed in S2), and the threshold on the product from which the quotient passes sw + 1 bits
   * (it then clamps to MAX_CWND all the same), so that S4 shifts and compares the product side by side.
   * The shift's two low bits go into the multiplier's input: recip << (3 - shift mod 4), registered
   * in S2 (the DSP's B register), so that S4's shift is 4 x (shift / 4) + 3, a 16-way select: the
   * product is the same bits moved, the quotient the same.
   */
  class OverCwnd(mantissa: (UInt, UInt), recipAtS2: UInt, msb: UInt, val label: String, withBig: Boolean = true) extends Area {
    // V + msb - (2F - gainFrac) - e, modulo 64: added in S2 from the leading one S1 found
    private val shiftAtS2 = RegNext(msb).resize(6) + mantissa._2
    private val recip = RegNext(recipAtS2.resize(V + 3) |<< (U(3, 2 bits) - shiftAtS2(1 downto 0))).setName(s"s3_${label}_recip")
    val product = RegNext(mantissa._1 * recip).setName(s"s3_${label}_product")
    val shift = RegNext(shiftAtS2(5 downto 2)) @@ U(3, 2 bits)
    private val bigAt = if (withBig) shift.resize(7) + (sw + 1) else null
    val bigThreshold = if (withBig) RegNext(Vec((0 until incProductWidth).map(i => bigAt === i)).asBits.asUInt) else null
    val bigPossible = if (withBig) RegNext(bigAt < incProductWidth) else null
  }
}
