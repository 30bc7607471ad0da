// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The update loop, Alg. 1-3 in five clocks (S1-S5, stages 14-18): S1 the state as read or
 * forwarded, S2 1/cwnd and the QuickAdapt product, S3 the increases' DSPs, S4 their quotients and
 * the decreases, S5 every rule's window clamped. SmarttRuleDecision picks one.
 */
trait SmarttLoop extends SmarttEventStages with SmarttClampArith {
  import Smartt.{gainFrac, wtdFrac, wtdStateFrac}
  private def cfg = config

  /** S1: the state as read or forwarded; everything that takes only adds and compares of it. */
  val s1 = new Area {
    val s = read.state
    val sizeBytes = event.size.resize(B)
    // 1/cwnd's table index and leading one: of the stored window and of the one in W side by side,
    // each in two halves (the upper bits' and the lower bits'), each addressing a table read of
    // its own (S2 picks the data), so that no select runs before the search and the search
    // before the RAM's address is one LUT level shorter
    private val lowest = log2Up(Smartt.minMtu) + F
    val ofStored = windowRecipIndexHalves(read.stored.cwnd, lowest, I)
    val ofWritten = if (read.fromWritten != null) windowRecipIndexHalves(written.state.cwnd, lowest, I) else null
    private def msbOf(h: WindowRecipHalves) = Mux(h.upperAny, h.upper._2, h.lower._2)
    val cwndMsb = if (ofWritten != null) Mux(fromWritten, msbOf(ofWritten), msbOf(ofStored)) else msbOf(ofStored)
    val upperAny = if (ofWritten != null) Mux(fromWritten, ofWritten.upperAny, ofStored.upperAny) else ofStored.upperAny
    val acked1 = born(Stage.S1)(satAdd(s.acked, sizeBytes, byteMax))                     // Alg. 1 line 4
    val ignoreLeft = born(Stage.S1)(s.ignoreBytes > sizeBytes)                            // line 5: ignore1 != 0 (lines 8-9, 32)
    val ignore1 = born(Stage.S1)(Mux(ignoreLeft, s.ignoreBytes - sizeBytes, U(0, B bits)))
    val sinceDeadlineFull = event.now - s.qaEnd
    val expired = born(Stage.S1)(!s.qaStarted || !sinceDeadlineFull.msb)                  // Alg. 2 line 3: now >= end
    private val ref = csr.referenceProfile
    private val adaptPaper = expired && s.qaStarted && Mux(event.isAck, s.triggerQa, !ignoreLeft) // Alg. 2 line 4; loss: line 32
    // Reference profile: not inside the ignore window, the early loop's measurement window.
    private val adaptRef = !ignoreLeft && event.windowExpired && event.windowStarted && (!event.isAck || s.triggerQa)
    val adapt = born(Stage.S1)(profile(paper = adaptPaper, reference = adaptRef))
    val clean = born(Stage.S1)(event.close && !event.ecn)                                // Alg. 3 line 2
    // Reference profile: fiCount counts down the window of the last unclean ACK; FastIncrease once
    // the clean bytes exceed it, and on until an unclean ACK.
    val fastRef = born(Stage.S1)(clean && (s.fiActive || sizeBytes > s.fiCount))
    // Alg. 3 line 3's count (or the reference profile's countdown): the sum and the difference here,
    // S2 picks (the sum saturates at 2^B - 1: its bit B)
    val fiCountPlusSize = s.fiCount.resize(B + 1) + sizeBytes
    val fiCountLessSize = s.fiCount - sizeBytes
    /** Reference profile: an ACK skipped (ECN-marked inside the ignore window, QuickAdapt's own included). */
    val skipRef = born(Stage.S1)(event.isAck && event.ecn && (ignoreLeft || adaptRef))
    // Alg. 2 line 7 from the acked bytes: this ACK's included, a loss's not (a NACK's 64 B in the reference profile).
    private val isNack = event.kind === 1
    private val lossBytes = Mux(ref && isNack, satAdd(s.acked, U(Smartt.nackAckedBytes, 7 bits), byteMax), s.acked)
    val qaBytes = born(Stage.S1)(Mux(event.isAck, acked1, lossBytes))
    // Alg. 2 line 7's acked x coefficient as acked x c + addend x c: DSPs fed here (M in S2), the sum
    // registered as P in S3, so that S3 compares a P register. Both windows' acked x c side by side
    // (the DSPs' inputs straight from registers), the one in use picked before the add. The addend
    // is the ACK's size, a NACK's 64 B (reference profile) or 0; when acked + addend saturates, S3
    // compares byteMax x c as well and S4 takes its facts.
    private val kindBefore = carry(f1.e.kind, Stage.S1 - 1)
    val qaAddend = RegNext(Mux(kindBefore === 0, carry(f2.size, Stage.S1 - 1),
      Mux(ref && kindBefore === 1, U(Smartt.nackAckedBytes, 16 bits), U(0, 16 bits))))
    val qaSaturates = s.acked.resize(B + 1) + qaAddend > byteMax
    // Alg. 2 line 8: bytes_to_ignore = unacked, from the transport, or the window before QA.
    val inFlight = born(Stage.S1)(Mux(csr.unackedFromWindow, s.cwnd(cw - 1 downto F), event.unacked))
    // Sec. 3.6.1, the decay rounded to nearest (half up): round(avg / 2^shift) = ((2 avg >> shift) + 1) >> 1.
    private val WS = wtdStateFrac
    val wtdDecayTwice = ((s.wtd @@ U(0, 1 bits)) >> csr.wtdShift).resize(WS + 2)
    val wtdDecayRoundedFull = wtdDecayTwice + 1
    val wtdDecay = wtdDecayRoundedFull(WS + 1 downto 1)
    // Eq. 1's cwnd x kFD for both windows side by side (registers -> DSPs), the one in use picked in S2.
    private def fdProducts(cwnd: UInt, name: String) =
      products(cwnd, event.kFd(29 downto 15), s"${name}High", 15) ++ products(cwnd, event.kFd(14 downto 0), s"${name}Low")
    val fdOfWritten = fdProducts(written.state.cwnd, "s1_fdWritten")
    val fdOfStored = fdProducts(read.stored.cwnd, "s1_fdStored")
    val toHigh = (high.resize(sw).asSInt - s.cwnd.resize(sw).asSInt)
    val toLow = (low.resize(sw).asSInt - s.cwnd.resize(sw).asSInt)
    val fromHigh = (s.cwnd.resize(sw).asSInt - high.resize(sw).asSInt)
    val fromLow = (s.cwnd.resize(sw).asSInt - low.resize(sw).asSInt)
  }

  /** S2: 1/cwnd read; the QuickAdapt product; Fair Decrease; Wait-to-Decrease; FastIncrease's count. */
  val s2 = new Area {
    val s = RegNext(s1.s)
    private val clean1 = RegNext(s1.clean)
    private val plus = RegNext(s1.fiCountPlusSize)
    private val countPaper = Mux(clean1, Mux(plus(B), U(byteMax, B bits), plus(B - 1 downto 0)), U(0, B bits))
    private val countRef = Mux(!clean1, s.cwnd(cw - 1 downto F), Mux(RegNext(s1.fastRef), U(0, B bits), RegNext(s1.fiCountLessSize)))
    val count1 = profile(paper = countPaper, reference = countRef)
    // read in S1 (a table a window, its two ports for the halves), picked here, registered at S3
    private def recipOf(h: WindowRecipHalves): UInt = {
      val rom = reciprocalRom(I, V)
      Mux(RegNext(s1.upperAny), rom.readSync(h.upper._1), rom.readSync(h.lower._1))
    }
    val cwndRecip = if (s1.ofWritten == null) recipOf(s1.ofStored)
                    else Mux(RegNext(fromWritten), recipOf(s1.ofWritten), recipOf(s1.ofStored))
    private val c = qaNorm.coefficient
    private val qaAckedOfWritten = RegNext(written.state.acked * c)        // M registers
    private val qaAckedOfStored = RegNext(read.stored.acked * c)
    private val qaAddendProduct = RegNext(s1.qaAddend * c)
    private val qaAcked = Mux(RegNext(fromWritten), qaAckedOfWritten, qaAckedOfStored)
    val qaProduct = RegNext(qaAcked.resize(B + 18) + qaAddendProduct)       // Alg. 2 line 7 (max with MTU after)
    private val qaCoefficient = RegNext(c)
    val qaSaturatedProduct = RegNext((qaCoefficient << B) - qaCoefficient)   // byteMax x c
    val qaSaturates = RegNext(RegNext(s1.qaSaturates))
    // Alg. 3 line 4 against the MTU's floor: count1 > floor(mtuQaWindow / 2^F)
    val countAboveFloor = RegNext(count1 > derived.mtuQaWindow(cw - 1 downto F))
    private val fdWritten = RegNext(fromWritten)
    private val fdProducts = s1.fdOfWritten.zip(s1.fdOfStored).map { case ((w, lo), (st, _)) => (Mux(fdWritten, w, st), lo) }
    val fdTermFull = sumProducts(fdProducts, cw + 30)                    // Eq. 1: cwnd x kFD
    val fdTerm = fdTermFull(cw + 29 downto 30)
    private val WS = wtdStateFrac
    val ecn = carry(event.ecn, Stage.S2)
    val wtdSum = s.wtd.resize(WS + 1) - RegNext(s1.wtdDecay) + Mux(ecn, derived.wtdEcnStep, U(0, WS + 1 bits))
    val wtd1 = born(Stage.S2)(satTo(wtdSum, U((1 << WS) - 1, WS bits), WS))
    val toHigh = RegNext(s1.toHigh); val toLow = RegNext(s1.toLow)
    val fromHigh = RegNext(s1.fromHigh); val fromLow = RegNext(s1.fromLow)
    val sizeFixed = (carry(event.size, Stage.S2) << F).resize(cw)
    private val clean = carry(s1.clean, Stage.S2)
    val fastOnStored = clean && (count1 > s.cwnd(cw - 1 downto F) || s.fiActive) // Alg. 3 line 4, c1 = cwnd
    val storedPlusStep = clampDelta(s.cwnd, derived.fastIncreaseStep.resize(sw).asSInt, toHigh, toLow)  // line 5
    val held = born(Stage.S2)(clampDelta(s.cwnd, S(0, sw bits), toHigh, toLow))           // ignored, held: the window as it is
    val lossCut = born(Stage.S2)(clampDecrease(s.cwnd, sizeFixed, fromHigh, fromLow))  // Alg. 1 line 29
  }

  /** S3: the increases' products (DSPs); QuickAdapt and FastIncrease; the decreases; the rule. */
  val s3 = new Area {
    val s = born(Stage.S3)(RegNext(s2.s))
    private val cwndRecip = s2.cwndRecip                         // registered, pre-shifted, by each product
    private val cwndMsb = s1.cwndMsb
    // Thresholds on the products for S4's compares, so that they need not wait for the shift:
    // (p >> k) >= 2^(sw + 1) <=> p >= 2^(sw + 1 + k); (p >> k) > size <=> p >= (size + 1) << k.
    val fi = new OverCwnd(event.fi, cwndRecip, cwndMsb, "incFi")          // Eq. 3
    val mi = new OverCwnd(event.mi, cwndRecip, cwndMsb, "incMi", withBig = false) // Eq. 4, for its cap at the size
    val miFi = new OverCwnd(event.miFi, cwndRecip, cwndMsb, "incMiFi")    // Eq. 4 + Eq. 3 below the cap
    private val productWidth = incProductWidth
    val sizeFixed = RegNext(s2.sizeFixed)
    // (mi >> k) > size <=> mi >= (size + 1) << k, in 2^-F bytes
    private val overFull = ((sizeFixed.resize(cw + 1) + 1) << mi.shift).setName("s3_overFull")
    val overThreshold = RegNext(overFull(productWidth - 1 downto 0))
    val overPossible = RegNext(!overFull(overFull.getWidth - 1 downto productWidth).orR)
    // Eq. 4 at its cap, then Eq. 3: cwnd + size + FI, as (cwnd + size) + FI against the limits less the size
    val cwndPlusSize = born(Stage.S3)(s.cwnd + sizeFixed)
    val toHighLessSize = RegNext(s2.toHigh - s2.sizeFixed.resize(sw).asSInt)
    val toLowLessSize = RegNext(s2.toLow - s2.sizeFixed.resize(sw).asSInt)
    val canDecrease = !csr.wtdEnable || RegNext(s2.wtd1) >= (csr.wtdThreshold @@ U(0, wtdStateFrac - wtdFrac bits)) // Alg. 1 line 12
    val toHigh = RegNext(s2.toHigh); val toLow = RegNext(s2.toLow)
    val fromHigh = RegNext(s2.fromHigh); val fromLow = RegNext(s2.fromLow)
    val fiLimits = new LimitsOnProduct(fi, toHigh, toLow)
    val miFiLimits = new LimitsOnProduct(miFi, toHigh, toLow)
    val sizeFiLimits = new LimitsOnProduct(fi, toHighLessSize, toLowLessSize)
    // Eq. 1 and Eq. 2 + FD (the sum at most one MTU).
    val fdTerm = RegNext(s2.fdTerm)
    // MD + FD and whether it passes one MTU side by side; S4 caps it and clamps both decreases
    val mdSum = event.mdTerm.resize(cw + 1) + fdTerm
    val mdOverMtu = mdSum > (derived.mtu << F).resize(cw + 1)
    // Alg. 2 line 7: max(acked, mtu) x scaling = max(acked x scaling, mtu x scaling), then >> 4 and
    // saturated (the MTU's value precomputed from the CSRs, saturated there). Every compare below
    // is on the product itself, side by side; only picks follow them.
    // Alg. 3 lines 4-5 with c1 the QuickAdapt window (when QuickAdapt runs) or the stored one.
    private val clean = carry(s1.clean, Stage.S3)
    val count1 = born(Stage.S3)(RegNext(s2.count1))
    val adapt = carry(s1.adapt, Stage.S3)
    /** What S3 finds of a QuickAdapt product, from compares on the product itself. */
    private class QaFacts(product: UInt) {
      private val shifted = product(product.getWidth - 1 downto Smartt.qaCoefFrac - F)
      val window = shifted.resize(cw)
      val belowFloor = product < (derived.mtuQa @@ U(0, 1 bits))
      val over = shifted(shifted.getWidth - 1 downto cw).orR
      // count1 > floor(qaValue / 2^F) <=> (count1 << F) > qaValue <=> (count1 << qaCoefFrac) > product
      // (multiples of 2^F and 2^4 against floors)
      val countAbove = product < (count1 @@ U(0, Smartt.qaCoefFrac bits))
      val plusStepSaturates = product >= derived.qaPlusStepSaturatesAt
      val plusStep = (window + derived.fastIncreaseStep.resize(cw))  // used only below the saturation: no carry out
      // the windows against the clamp's limits, here, so that S4 only picks
      val windowHigh = window > high; val windowLow = window < low
      val plusStepHigh = plusStep > high; val plusStepLow = plusStep < low
    }
    private val ofSum = new QaFacts(s2.qaProduct)
    private val ofSaturated = new QaFacts(s2.qaSaturatedProduct.resize(B + 18))
    // The facts of both registered; S4 picks the one in use and the values from them.
    private def pick[T <: Data](f: QaFacts => T): T = Mux(RegNext(s2.qaSaturates), RegNext(f(ofSaturated)), RegNext(f(ofSum)))
    private val belowFloor = pick(_.belowFloor)
    private val qaOver = pick(_.over)
    /** S4: QuickAdapt's window. */
    val qaValue = Mux(belowFloor, derived.mtuQaWindow, Mux(qaOver, U(cwndMax, cw bits), pick(_.window)))
    // above the largest window count1 is never above it; for each product's facts, the late
    // select (whether acked + addend saturates) last
    private val countAboveFloor = RegNext(s2.countAboveFloor)
    private def countAboveQaOf(f: QaFacts): Bool = {
      val below = RegNext(f.belowFloor)
      Mux(below, countAboveFloor, !RegNext(f.over) && RegNext(f.countAbove))
    }
    private val countAboveQa = Mux(RegNext(s2.qaSaturates), countAboveQaOf(ofSaturated), countAboveQaOf(ofSum))
    /** S4: FastIncrease after QuickAdapt (Alg. 3 line 4 with c1 the QuickAdapt window). */
    val fastAfterQa = RegNext(clean) && (countAboveQa || RegNext(s.fiActive))
    /** S4: QuickAdapt's window then FastIncrease's step (Alg. 3 line 5). */
    private val plusStepMax = qaOver || pick(_.plusStepSaturates)
    val qaPlusStep = Mux(belowFloor, derived.mtuQaPlusStep, Mux(plusStepMax, U(cwndMax, cw bits), pick(_.plusStep)))
    // the two windows against the clamp's limits, picked from S3's compares alike
    private val maxHigh = high =/= U(cwndMax, cw bits); private val maxLow = False  // the largest window: above MAX_CWND unless it is MAX_CWND, never below MTU
    val qaValueHigh = Mux(belowFloor, derived.mtuQaWindow > high, Mux(qaOver, maxHigh, pick(_.windowHigh)))
    val qaValueLow = Mux(belowFloor, derived.mtuQaWindow < low, Mux(qaOver, maxLow, pick(_.windowLow)))
    val qaPlusStepHigh = Mux(belowFloor, derived.mtuQaPlusStep > high, Mux(plusStepMax, maxHigh, pick(_.plusStepHigh)))
    val qaPlusStepLow = Mux(belowFloor, derived.mtuQaPlusStep < low, Mux(plusStepMax, maxLow, pick(_.plusStepLow)))
    val fastOnStored = RegNext(s2.fastOnStored)
    val storedPlusStep = born(Stage.S3)(RegNext(s2.storedPlusStep))
  }

  /** S4: the increases, straight from the DSPs' M registers: a shift, or a compare. */
  val s4 = new Area {
    // The increases in cw bits (an increase of 2^cw or more is above MAX_CWND by S4's compares, its
    // sum unused) and a flag for more than sw + 1 bits (the compares' thresholds assume fewer).
    private def quotient(x: OverCwnd): (UInt, Bool) = {
      val full = (x.product >> RegNext(x.shift)).setName(s"s4_${x.label}Full")
      (full(cw - 1 downto 0), x.bigPossible && x.product >= x.bigThreshold)
    }
    val (incFi, incFiBig) = quotient(s3.fi)
    val (incMiFi, incMiFiBig) = quotient(s3.miFi)
    val incMiOver = s3.overPossible && s3.mi.product >= s3.overThreshold   // Eq. 4's cap: min(size, ..)
    // Eq. 1, and Eq. 2 + FD at most one MTU, clamped here, where the clock has room
    private val cwnd = RegNext(s3.s.cwnd)
    private val fromHigh = RegNext(s3.fromHigh); private val fromLow = RegNext(s3.fromLow)
    val fairDecrease = clampDecrease(cwnd, RegNext(s3.fdTerm), fromHigh, fromLow)
    // each increase against the limits (Eq. 4 at the size, then Eq. 3: against the limits less the size)
    val (fiHigh, fiUnder) = s3.fiLimits.flags(incFiBig)
    val (miFiHigh, miFiUnder) = s3.miFiLimits.flags(incMiFiBig)
    val (sizeFiHigh, sizeFiUnder) = s3.sizeFiLimits.flags(incFiBig)
    val mdDecrease = Mux(RegNext(s3.mdOverMtu), RegNext((derived.mtu << F).resize(cw + 1)), RegNext(s3.mdSum))
    val multiplicativeDecrease = clampDecrease(cwnd, mdDecrease, fromHigh, fromLow)
  }

  /** S5: the window each rule gives, clamped; the rule that applies picks it. */
  val s5 = new Area {
    val s = carry(s3.s, Stage.S5)
    private val incFi = RegNext(s4.incFi)
    // modulo 2^cw: a sum is used only when within the limits
    val fairIncrease = UnclampedWindow(s.cwnd + incFi.resize(cw), s4.fiHigh, s4.fiUnder)        // Eq. 3
    val multiplicativeIncrease = UnclampedWindow(s.cwnd + RegNext(s4.incMiFi).resize(cw), s4.miFiHigh, s4.miFiUnder) // Eq. 4 + Eq. 3
    val sizePlusFairIncrease = UnclampedWindow(carry(s3.cwndPlusSize, Stage.S5) + incFi.resize(cw), s4.sizeFiHigh, s4.sizeFiUnder) // Eq. 4 at the size, then Eq. 3
    val multiplicativeDecrease = RegNext(s4.multiplicativeDecrease)
    val quickAdapt = unclampedValue(s3.qaValue, s3.qaValueHigh, s3.qaValueLow)  // Alg. 1 lines 15-16 (and a loss's, line 26)
    val quickAdaptPlusStep = unclampedValue(s3.qaPlusStep, s3.qaPlusStepHigh, s3.qaPlusStepLow) // then FastIncrease (Alg. 3 line 5)
    val storedPlusStep = carry(s3.storedPlusStep, Stage.S5)
    val fairDecrease = RegNext(s4.fairDecrease)
    val held = carry(s2.held, Stage.S5)
    val init = Clamped()                                          // INIT: INIT_CWND (clamped when the CSR was written)
    init.cwnd := derived.initCwnd; init.high := False; init.low := False
    val lossCut = carry(s2.lossCut, Stage.S5)
  }
}
