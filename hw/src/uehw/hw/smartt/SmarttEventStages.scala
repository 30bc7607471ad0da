// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * SMaRTT's event stages 1-13: everything that depends only on the event and the CSRs (the RTT
 * reciprocal, the MD/MI fractions, the gain products, the increase numerators' mantissas), while
 * the skeleton reads the flow's state; the reference profile's QuickAdapt window in a loop of its
 * own; the event as the update loop sees it.
 */
trait SmarttEventStages extends SmarttLawBase {
  import Smartt.{gainFrac, wtdFrac, wtdStateFrac}
  private def cfg = config
  private def unit = windowUnit

  /** Stage 1: the event clamped (size to MTU, rtt to at least BASE_RTT). */
  val f1 = new Area {
    val e = unit.stage1.e
    val now = unit.stage1.now
    val inRange = unit.stage1.inRange
    val sizeOver = e.size > derived.mtu
    val size = Mux(sizeOver, derived.mtu, e.size)                // a packet is at most one MTU
    val rttZero = e.rtt === 0
    val rttBelow = e.rtt < derived.baseRtt
    val rtt = Mux(rttBelow, derived.baseRtt, e.rtt)              // the rules assume rtt >= brtt (Sec. 3.2.4)
    val rttLeading = Mux(rttBelow, derived.baseRttLeading, leadingOne(e.rtt, 0)) // for stage 2's table index
  }

  /**
   * Stage 2: rtt against the target, the rtt's table index; the size products (M and P
   * registered: stage 4 has them).
   */
  val f2 = new Area {
    val rtt = RegNext(f1.rtt.resize(cfg.trttWidth))
    val size = RegNext(f1.size)
    val trtt = derived.targetRtt
    val above = rtt > trtt
    val atTarget = rtt === trtt                                   // reference profile: no case
    val diff = Mux(above, rtt - trtt, trtt - rtt)
    val close = rtt <= derived.closeLimit.resize(cfg.trttWidth) // Alg. 3 line 2
    val (rttIndex, rttMsb) = recipIndex(rtt.resize(cfg.rttWidth - 1), RegNext(f1.rttLeading), 0, I) // rtt >= BASE_RTT >= 1
    val sizeFd = productMP(size, csr.fd)
    val sizeMtu = productMP(size, derived.mtu)
    val sizeMi = productMP(size, csr.mi)
    val sizeMd = productMP(size, derived.mdEff)                  // Eq. 2's size x md, before the fraction
    val qaDeadline = (RegNext(f1.now) + trtt.resize(cfg.timeWidth)).resize(cfg.timeWidth) // Alg. 2 line 11
  }

  /** Stage 3: 1/rtt read (block RAM). */
  val f3 = new Area {
    val rttRecip = RegNext(reciprocalRom(I, V).readSync(f2.rttIndex))    // read in stage 2, registered in 4 (the RAM's output register)
    val rttShift = RegNext(U(V, 6 bits) + f2.rttMsb.resize(6))
    val diff = RegNext(f2.diff)
  }

  /** Stage 4: kFD's and the FI numerator's products, |rtt - trtt| x 1/rtt (DSPs, M and P: stage 6). */
  val f4 = new Area {
    val diffTimesRecipProducts = products(RegNext(f3.diff), f3.rttRecip, "f4_diffTimesRecip", registers = 2)
    val rttShift = at(RegNext(f3.rttShift), 4, 6)
    val kFdProducts = products(f2.sizeFd, derived.invBdp(30 downto 14), "f4_kFdHigh", 14, registers = 2) ++
      products(f2.sizeFd, derived.invBdp(13 downto 0), "f4_kFdLow", registers = 2)
    val numFiProducts = products(f2.sizeMtu, csr.fi, "f4_numFi", registers = 2)
  }

  /** Stage 6: the products summed (registered in 7); Eq. 1's kFD = size x fd / bdp saturated in 7 (u0.30, at most 1 - 2^-30). */
  val f6sum = new Area {
    private val kFdFull = RegNext(sumProducts(f4.kFdProducts, 63))
    val kFd = RegNext(satTo(kFdFull(62 downto 21), U((BigInt(1) << 30) - 1, 30 bits), 30))  // stage 8
    val numFi = RegNext(sumProducts(f4.numFiProducts, 48))                                  // stage 7: Eq. 3's numerator
  }

  /**
   * min(2^16, (x << 16) >> k) for x the sum of `products` (of `width` bits) and k the shift, both
   * in the products' stage p: a ratio in u.16, at most 1, combinational in stage p + 1 (x summed
   * and registered in p).
   */
  private def fraction16(products: Seq[(UInt, Int)], width: Int, k: UInt, name: String): UInt = {
    val x = RegNext(sumProducts(products, width)).setName(s"${name}_sum")
    val full = ((x << 16) >> RegNext(k)).setName(s"${name}_fracFull")
    // full > 2^16 <=> x >= 2^k + ceil(2^(k - 16)): compared beside the shift.
    val overFull = ((U(1, 1 bits) << k) + Mux(k >= 16, U(1, 1 bits) << (k - 16).resize(6), U(1, 64 bits))).setName(s"${name}_overFull")
    val overAt = RegNext(overFull.resize(width + 2))
    Mux(x.resize(width + 2) >= overAt, U(BigInt(1) << 16, 17 bits), full(16 downto 0))
  }

  /** Stage 7: |rtt - trtt| / rtt in u.16 (at most 1). */
  val f7frac = new Area {
    val frac16 = fraction16(f4.diffTimesRecipProducts, cfg.trttWidth + V, f4.rttShift, "f7frac")
  }

  /** Stage 8: the MI fraction's and the MD product's products (DSPs, M and P: stage 10). */
  val f8 = new Area {
    val frac16 = RegNext(f7frac.frac16)
    val miProducts = products(at(f2.sizeMi, 4, 8), frac16, "f8_mi", registers = 2)
    // Eq. 2's (rtt - trtt)/rtt x md x size as frac x (size x md): the same product
    val mdProducts = products(at(f2.sizeMd, 4, 8), frac16, "f8_md", registers = 2)
  }

  /** Stage 10: the MI fraction / 2^16 and the MD product summed (registered in 11). */
  val f10 = new Area {
    private val miFull = sumProducts(f8.miProducts, 49)              // < 2^48
    val miFrac = RegNext(miFull(47 downto 16))
    val mdFull = RegNext(sumProducts(f8.mdProducts, 50))
  }

  /**
   * Stage 11: Eq. 2 min(size, (rtt - trtt)/rtt x md x size) in 2^-8 bytes (registered in 12);
   * Eq. 4's numerator as DSP products (M and P: stage 13, summed and registered there).
   */
  val f11 = new Area {
    // the reference profile caps MD + FD at one MTU only (the sum's cap below), not MD at the size
    private val limit = RegNext(Mux(csr.referenceProfile, derived.mtu, at(f2.size, 2, 10)) << F)  // picked in 10
    val mdTerm = RegNext(satTo(f10.mdFull(49 downto 16 + gainFrac - F), limit, 24))
    val numMiProducts = products(f10.miFrac, derived.mtu, "f11_numMi", registers = 2)
  }

  /** Stage 13: Eq. 4's numerator summed, and the MI + FI numerator (registered in 14). */
  val f13 = new Area {
    private val numMiFull = sumProducts(f11.numMiProducts, 49)          // < 2^48
    val numMi = RegNext(numMiFull(47 downto 0))
    val numMiFi = RegNext(numMiFull + at(f6sum.numFi, 7, 13))            // < 2^49
  }

  /**
   * An increase numerator x (a register at stage p) cut to its top `Smartt.mantissaBits` for one
   * DSP: m = x >> e, e = max(0, bits(x) - mantissaBits); the leading one found in p, m and e picked
   * in p + 1, registered in p + 2. In p + 1 also V - (2F - gainFrac) - e modulo 64, which S2
   * adds to the window's leading one for the product's shift (at most 40, so exact).
   */
  class Mantissa(x: UInt, label: String) extends Area {
    private val M = Smartt.mantissaBits
    private val w = x.getWidth
    require(w > M && w - M < 32, s"$label: a numerator of $w bits")
    private val lead = RegNext(leadingOne(x, M))                         // positions M .. w - 1
    private val small = RegNext(x(w - 1 downto M) === 0)
    private val xr = RegNext(x)
    val m = RegNext(oneHotPick((M until w).map(q => (lead(q - M), xr(q downto q - M + 1))) :+ (small -> xr(M - 1 downto 0)), M))
    val e = oneHotPick((M until w).map(q => (lead(q - M), U(q - M + 1, 5 bits))), 5)
    /** V - (2F - gainFrac) - e modulo 64, in p + 1 (combinational). */
    val shiftLessMsb = U(((V - (2 * F - gainFrac)) % 64 + 64) % 64, 6 bits) - e.resize(6)
  }
  private val mantissaFi = new Mantissa(f6sum.numFi, "numFi")        // 7 -> 9
  private val mantissaMi = new Mantissa(f13.numMi, "numMi")          // 14 -> 16
  private val mantissaMiFi = new Mantissa(f13.numMiFi, "numMiFi")    // 14 -> 16

  /**
   * Reference profile: QuickAdapt's measurement window in a loop of its own at stages 3-6 (it
   * depends only on the events' times, INIT and trtt there), and the normalisation of QuickAdapt's
   * bytes to one target RTT folded into its coefficient, QA_SCALING x trtt / D in u5.12,
   * D = (now - end mod 2^T) + trtt, ready at S1 (SmarttFixedModel.normalisedScaling).
   */
  val qaNorm = new Area {
    private val T = cfg.timeWidth
    val loop = new FlowStateLoop(unit, SmarttQaWindow(cfg), 3)
    private val window = loop.read.state                                    // stage 3
    private val now = at(f1.now, 1, 3)
    private val sinceFull = now - window.end                                // mod 2^T: its sign bit only
    val expired = !window.started || !sinceFull.msb                         // Alg. 2 line 3
    val started = window.started
    private val dw = scala.math.max(T, cfg.trttWidth) + 1
    private val trtt = derived.targetRtt
    // D = since + trtt = (now + trtt) - end, plus 2^T when now < end (since wrapped): one subtract
    // from a sum made at stage 2, the wrap's 2^T added to the bits from T up.
    private val nowPlusTrtt = RegNext(at(f1.now, 1, 2).resize(dw) + trtt.resize(dw))   // stage 3
    private val trttZero = at(trtt === 0, 2, 4)
    private val raw = nowPlusTrtt - window.end.resize(dw)                    // mod 2^dw (D < 2^dw)
    private val wrapped = now < window.end
    private val distance = RegNext((raw(dw - 1 downto T) + wrapped.asUInt) @@ raw(T - 1 downto 0)) // 4: D, 0 only when both are
    private val distanceFixed = distance | (RegNext(now === window.end) && trttZero).asUInt.resize(dw)     // at least 1
    private val leading = RegNext(leadingOne(distanceFixed, 0))            // 5
    private val distanceAt5Full = RegNext(distanceFixed)
    private val (index, msb) = recipIndex(distanceAt5Full(dw - 2 downto 0), leading, 0, I)
    private val recip = RegNext(reciprocalRom(I, V).readSync(index))        // read in 5, registered in 7
    private val shift = RegNext(RegNext(U(V, 6 bits) + msb.resize(6)))     // 7
    private val trttTimesRecip = products(trtt, recip, "qaNorm_trttTimesRecip", registers = 2) // M 8, P 9
    // 11: trtt / D in u.16; 1 in the paper profile, whose coefficient is QA_SCALING itself
    private val f16 = RegNext(Mux(csr.referenceProfile, fraction16(trttTimesRecip, cfg.trttWidth + V, at(shift, 7, 9), "qaNorm"),
      U(BigInt(1) << 16, 17 bits)))
    private val coefficientFull = productMP(f16, csr.qaScaling)           // 13: one DSP
    /**
     * QuickAdapt's coefficient in u5.12 (truncated), at S1 (the P register, delayed to S1): QA_SCALING x trtt / D
     * in the reference profile, QA_SCALING in the paper's.
     */
    val coefficient = at(coefficientFull(31 downto 16 + gainFrac - Smartt.qaCoefFrac), 13, Stage.S1)
    // the window's next value (stage 6): INIT clears it, an event past its end starts a new one
    private val kind6 = at(f1.e.kind, 1, 6)
    private val next = SmarttQaWindow(cfg)
    next := at(window, 3, 6)
    when(at(expired, 3, 6)) {
      next.end := at(f2.qaDeadline, 2, 6)
      next.started := True
    }
    when(kind6 === 3) { next.end := 0; next.started := False }
    private val cleared = SmarttQaWindow(cfg)
    cleared.end := 0; cleared.started := False
    loop.write(next, cleared)
  }

  /** The event as the update loop sees it. */
  val event = new Area {
    private def from1[T <: Data](x: T, to: Int): T = at(RegNext(x), 2, to)
    val kind = at(f1.e.kind, 1, Stage.S1)
    val ecn = at(f1.e.ecn, 1, Stage.S1)
    val unacked = at(f1.e.unacked, 1, Stage.S1)
    val now = at(f1.now, 1, Stage.S1)
    val sizeOver = from1(f1.sizeOver, Stage.S1)
    val rttZero = from1(f1.rttZero, Stage.S1)
    val rttBelow = from1(f1.rttBelow, Stage.S1)
    val size = at(f2.size, 2, Stage.S1)
    val above = at(f2.above, 2, Stage.S1)
    val atTarget = at(f2.atTarget, 2, Stage.S1)
    val windowExpired = at(qaNorm.expired, 3, Stage.S1)    // reference profile: the early loop's window
    val windowStarted = at(qaNorm.started, 3, Stage.S1)
    val close = at(f2.close, 2, Stage.S1)
    val qaDeadline = at(f2.qaDeadline, 2, Stage.S1)
    val kFd = at(f6sum.kFd, 8, Stage.S1)
    /** The increase numerators' mantissas (at S3) and their shifts less the window's leading one (at S2). */
    val fi = (at(mantissaFi.m, 9, Stage.S3), at(RegNext(mantissaFi.shiftLessMsb), 9, Stage.S2))
    val mi = (at(mantissaMi.m, 16, Stage.S3), mantissaMi.shiftLessMsb)
    val miFi = (at(mantissaMiFi.m, 16, Stage.S3), mantissaMiFi.shiftLessMsb)
    val mdTerm = at(f11.mdTerm, 12, Stage.S3)
    val isAck = kind === 0
  }
}
