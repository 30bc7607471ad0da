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
    val sizeOver = born(1)(e.size > derived.mtu)
    val size = Mux(sizeOver, derived.mtu, e.size)                // a packet is at most one MTU
    val rttZero = born(1)(e.rtt === 0)
    val rttBelow = born(1)(e.rtt < derived.baseRtt)
    val rtt = Mux(rttBelow, derived.baseRtt, e.rtt)              // the rules assume rtt >= brtt (Sec. 3.2.4)
    val rttLeading = Mux(rttBelow, derived.baseRttLeading, leadingOne(e.rtt, 0)) // for stage 2's table index
  }

  /**
   * Stage 2: rtt against the target, the rtt's table index; the size products (M and P
   * registered: stage 4 has them).
   */
  val f2 = new Area {
    val rtt = RegNext(f1.rtt.resize(cfg.trttWidth))
    val size = born(2)(RegNext(f1.size))
    val trtt = derived.targetRtt
    val above = born(2)(rtt > trtt)
    val atTarget = born(2)(rtt === trtt)                                  // reference profile: no case
    val diff = Mux(above, rtt - trtt, trtt - rtt)
    val close = born(2)(rtt <= derived.closeLimit.resize(cfg.trttWidth)) // Alg. 3 line 2
    val (rttIndex, rttMsb) = recipIndex(rtt.resize(cfg.rttWidth - 1), RegNext(f1.rttLeading), 0, I) // rtt >= BASE_RTT >= 1
    val sizeFd = productMP(size, csr.fd)
    val sizeMtu = productMP(size, derived.mtu)
    val sizeMi = born(4)(productMP(size, csr.mi))
    val sizeMd = born(4)(productMP(size, derived.mdEff))                  // Eq. 2's size x md, before the fraction
    val qaDeadline = born(2)((RegNext(f1.now) + trtt.resize(cfg.timeWidth)).resize(cfg.timeWidth)) // Alg. 2 line 11
  }

  /** Stage 3: 1/rtt read (block RAM). */
  val f3 = new Area {
    val rttRecip = RegNext(reciprocalRom(I, V).readSync(f2.rttIndex))    // read in stage 2, registered in 4 (the RAM's output register)
    val rttShift = born(3)(RegNext(U(V, 6 bits) + f2.rttMsb.resize(6)))
    val diff = RegNext(f2.diff)
  }

  /** Stage 4: kFD's and the FI numerator's products, |rtt - trtt| x 1/rtt (DSPs, M and P: stage 6). */
  val f4 = new Area {
    val diffTimesRecipProducts = products(RegNext(f3.diff), f3.rttRecip, "f4_diffTimesRecip", registers = 2)
    val rttShift = carry(f3.rttShift, 6)
    val kFdProducts = products(f2.sizeFd, derived.invBdp(30 downto 14), "f4_kFdHigh", 14, registers = 2) ++
      products(f2.sizeFd, derived.invBdp(13 downto 0), "f4_kFdLow", registers = 2)
    val numFiProducts = products(f2.sizeMtu, csr.fi, "f4_numFi", registers = 2)
  }

  /** Stage 6: the products summed (registered in 7); Eq. 1's kFD = size x fd / bdp saturated in 7 (u0.30, at most 1 - 2^-30). */
  val f6sum = new Area {
    private val kFdFull = RegNext(sumProducts(f4.kFdProducts, 63))
    val kFd = born(8)(RegNext(satTo(kFdFull(62 downto 21), U((BigInt(1) << 30) - 1, 30 bits), 30)))  // stage 8
    val numFi = born(7)(RegNext(sumProducts(f4.numFiProducts, 48)))                                  // stage 7: Eq. 3's numerator
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
    val miProducts = products(carry(f2.sizeMi, 8), frac16, "f8_mi", registers = 2)
    // Eq. 2's (rtt - trtt)/rtt x md x size as frac x (size x md): the same product
    val mdProducts = products(carry(f2.sizeMd, 8), frac16, "f8_md", registers = 2)
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
    private val limit = RegNext(profile(paper = carry(f2.size, 10), reference = derived.mtu) << F)  // picked in 10
    val mdTerm = born(12)(RegNext(satTo(f10.mdFull(49 downto 16 + gainFrac - F), limit, 24)))
    val numMiProducts = products(f10.miFrac, derived.mtu, "f11_numMi", registers = 2)
  }

  /** Stage 13: Eq. 4's numerator summed, and the MI + FI numerator (registered in 14). */
  val f13 = new Area {
    private val numMiFull = sumProducts(f11.numMiProducts, 49)          // < 2^48
    val numMi = RegNext(numMiFull(47 downto 0))
    val numMiFi = RegNext(numMiFull + carry(f6sum.numFi, 13))            // < 2^49
  }

  /**
   * An increase numerator x (a register at stage p) cut to its top `Smartt.mantissaBits` for one
   * DSP: m = x >> e, e = max(0, bits(x) - mantissaBits); the leading one found in p, m and e picked
   * in p + 1, registered in p + 2. In p + 1 also V - (2F - gainFrac) - e modulo 64, which S2
   * adds to the window's leading one for the product's shift (at most 40, so exact).
   */
  class Mantissa(x: UInt, label: String, p: Int) extends Area {
    private val M = Smartt.mantissaBits
    private val w = x.getWidth
    require(w > M && w - M < 32, s"$label: a numerator of $w bits")
    private val lead = RegNext(leadingOne(x, M))                         // positions M .. w - 1
    private val small = RegNext(x(w - 1 downto M) === 0)
    private val xr = RegNext(x)
    val m = born(p + 2)(RegNext(oneHotPick((M until w).map(q => (lead(q - M), xr(q downto q - M + 1))) :+ (small -> xr(M - 1 downto 0)), M)))
    val e = oneHotPick((M until w).map(q => (lead(q - M), U(q - M + 1, 5 bits))), 5)
    /** V - (2F - gainFrac) - e modulo 64, in p + 1 (combinational). */
    val shiftLessMsb = born(p + 1)(U(((V - (2 * F - gainFrac)) % 64 + 64) % 64, 6 bits) - e.resize(6))
  }
  private val mantissaFi = new Mantissa(f6sum.numFi, "numFi", 7)        // 7 -> 9
  private val mantissaMi = new Mantissa(f13.numMi, "numMi", 14)          // 14 -> 16
  private val mantissaMiFi = new Mantissa(f13.numMiFi, "numMiFi", 14)    // 14 -> 16

  /**
   * Reference profile: QuickAdapt's measurement window in a loop of its own at stages 3-6 (it
   * depends only on the events' times, INIT and trtt there), and the normalisation of QuickAdapt's
   * bytes to one target RTT folded into its coefficient, QA_SCALING x trtt / D in u5.12,
   * D = (now - end mod 2^T) + trtt, ready at S1 (SmarttFixedModel.normalisedScaling).
   */
  val qaNorm = new Area {
    private val T = cfg.timeWidth
    val loop = new FlowStateLoop(unit, SmarttQaWindow(cfg), 3)
    private val window = born(3)(loop.read.state)                                   // stage 3
    private val now = carry(f1.now, 3)
    private val sinceFull = now - window.end                                // mod 2^T: its sign bit only
    val expired = born(3)(!window.started || !sinceFull.msb)                         // Alg. 2 line 3
    val started = born(3)(window.started)
    private val dw = scala.math.max(T, cfg.trttWidth) + 1
    private val trtt = derived.targetRtt
    // D = since + trtt = (now + trtt) - end, plus 2^T when now < end (since wrapped): one subtract
    // from a sum made at stage 2, the wrap's 2^T added to the bits from T up.
    private val nowPlusTrtt = RegNext(carry(f1.now, 2).resize(dw) + trtt.resize(dw))   // stage 3
    private val trttZero = carry(born(2)(trtt === 0), 4)
    private val raw = nowPlusTrtt - window.end.resize(dw)                    // mod 2^dw (D < 2^dw)
    private val wrapped = now < window.end
    private val distance = RegNext((raw(dw - 1 downto T) + wrapped.asUInt) @@ raw(T - 1 downto 0)) // 4: D, 0 only when both are
    private val distanceFixed = distance | (RegNext(now === window.end) && trttZero).asUInt.resize(dw)     // at least 1
    private val leading = RegNext(leadingOne(distanceFixed, 0))            // 5
    private val distanceAt5Full = RegNext(distanceFixed)
    private val (index, msb) = recipIndex(distanceAt5Full(dw - 2 downto 0), leading, 0, I)
    private val recip = RegNext(reciprocalRom(I, V).readSync(index))        // read in 5, registered in 7
    private val shift = born(7)(RegNext(RegNext(U(V, 6 bits) + msb.resize(6))))     // 7
    private val trttTimesRecip = products(trtt, recip, "qaNorm_trttTimesRecip", registers = 2) // M 8, P 9
    // 11: trtt / D in u.16; 1 in the paper profile, whose coefficient is QA_SCALING itself
    private val f16 = RegNext(profile(reference = fraction16(trttTimesRecip, cfg.trttWidth + V, carry(shift, 9), "qaNorm"),
      paper = U(BigInt(1) << 16, 17 bits)))
    private val coefficientFull = productMP(f16, csr.qaScaling)           // 13: one DSP
    /**
     * QuickAdapt's coefficient in u5.12 (truncated), at S1 (the P register, delayed to S1): QA_SCALING x trtt / D
     * in the reference profile, QA_SCALING in the paper's.
     */
    val coefficient = carry(born(13)(coefficientFull(31 downto 16 + gainFrac - Smartt.qaCoefFrac)), Stage.S1)
    // the window's next value (stage 6): INIT clears it, an event past its end starts a new one
    private val kind6 = carry(f1.e.kind, 6)
    private val next = SmarttQaWindow(cfg)
    next := carry(window, 6)
    when(carry(expired, 6)) {
      next.end := carry(f2.qaDeadline, 6)
      next.started := True
    }
    when(kind6 === 3) { next.end := 0; next.started := False }
    private val cleared = SmarttQaWindow(cfg)
    cleared.end := 0; cleared.started := False
    loop.write(next, cleared)
  }

  /** The event as the update loop sees it. */
  val event = new Area {
    val kind = carry(f1.e.kind, Stage.S1)
    val ecn = carry(f1.e.ecn, Stage.S1)
    val unacked = carry(f1.e.unacked, Stage.S1)
    val now = carry(f1.now, Stage.S1)
    val sizeOver = carry(f1.sizeOver, Stage.S1)
    val rttZero = carry(f1.rttZero, Stage.S1)
    val rttBelow = carry(f1.rttBelow, Stage.S1)
    val size = carry(f2.size, Stage.S1)
    val above = carry(f2.above, Stage.S1)
    val atTarget = carry(f2.atTarget, Stage.S1)
    val windowExpired = carry(qaNorm.expired, Stage.S1)    // reference profile: the early loop's window
    val windowStarted = carry(qaNorm.started, Stage.S1)
    val close = carry(f2.close, Stage.S1)
    val qaDeadline = carry(f2.qaDeadline, Stage.S1)
    val kFd = carry(f6sum.kFd, Stage.S1)
    /** The increase numerators' mantissas (at S3) and their shifts less the window's leading one (at S2). */
    val fi = (carry(mantissaFi.m, Stage.S3), carry(mantissaFi.shiftLessMsb, Stage.S2))
    val mi = (carry(mantissaMi.m, Stage.S3), carry(mantissaMi.shiftLessMsb, Stage.S2))
    val miFi = (carry(mantissaMiFi.m, Stage.S3), carry(mantissaMiFi.shiftLessMsb, Stage.S2))
    val mdTerm = carry(f11.mdTerm, Stage.S3)
    val isAck = kind === 0
  }
}
