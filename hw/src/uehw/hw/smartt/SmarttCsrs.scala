// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The SMaRTT law's base: its CSRs and the values derived from them, its stages and sizes. The law's
 * parts build on it, each a trait in a file of its own (SmarttEventStages, SmarttClampArith,
 * SmarttLoop, SmarttRules), and SmarttLaw puts them together.
 */
abstract class SmarttLawBase(cfg: SmarttConfig, unit: WindowUnit[SmarttEvent, SmarttFlowState, SmarttUpdate])
    extends WindowLaw[SmarttFlowState, SmarttUpdate] {
  import Smartt.{gain, gainFrac, wtdFrac, wtdStateFrac}
  protected def config: SmarttConfig = cfg
  protected def windowUnit: WindowUnit[SmarttEvent, SmarttFlowState, SmarttUpdate] = unit
  protected val B = cfg.byteWidth
  protected val F = cfg.cwndFrac
  protected val V = cfg.recipValueBits
  protected val I = cfg.recipIndexBits
  protected val byteMax = (BigInt(1) << B) - 1
  protected val cwndMax = (BigInt(1) << cfg.cwndWidth) - 1
  protected object Stage {
    val S1: Int = unit.Stage.S1; val S2: Int = S1 + 1; val S3: Int = S1 + 2; val S4: Int = S1 + 3; val S5: Int = S1 + 4
  }
  require(Stage.S1 == 14 && unit.Stage.S4 == Stage.S5, "the event stages below fill stages 1-13; the loop is S1-S5")
  /** A value made at `stage` (StageCarries), and a value read at stage `to`. */
  protected def born[T <: Data](stage: Int)(x: T): T = unit.born(stage)(x)
  protected def carry[T <: Data](x: T, to: Int): T = unit.carry(x, to)
  protected def written = windowUnit.flowState.written
  protected def read = windowUnit.flowState.read
  /** S1 takes the update in W: only when L is the loop's length (a flow's next event can then be in S1 as its last is in W). */
  protected def fromWritten: Bool = if (read.fromWritten != null) read.fromWritten else False
  /**
   * A value under each profile, the reference profile's delta beside the paper's (docs/smartt.md,
   * "The reference-code profile"); CONTROL.REFERENCE_PROFILE picks.
   */
  protected def profile[T <: Data](paper: T, reference: T): T = Mux(csr.referenceProfile, reference, paper)
  /** The law's rules, one row each (SmarttRules). */
  protected val ruleRows = new SmarttRules(cfg)

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    val busif = unit.busif
    private def reg(name: String, address: Int, doc: String) = unit.csrRegister(name, address, doc)
    private def value[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, units: String): T =
      unit.csrValue(name, address, doc, t, reset, units)

    private val control = reg("CONTROL", 0x08, "Switches")
    val trimming = control.field(Bool(), AccessType.RW, 1,
      doc = "The network trims: 0 doubles md, losses are timeouts (Sec. 3.3, QuickAdapt without trimming)")(SymbolName("TRIMMING"))
    val wtdEnable = control.field(Bool(), AccessType.RW, 1, doc = "Wait-to-Decrease (Sec. 3.6.1)")(SymbolName("WTD_ENABLE"))
    val unackedFromWindow = control.field(Bool(), AccessType.RW, 0,
      doc = "QuickAdapt ignores the window before it instead of the event's unacked bytes (a transport that does not count them)")(
      SymbolName("UNACKED_FROM_WINDOW"))
    val referenceProfile = control.field(Bool(), AccessType.RW, 0,
      doc = "The authors' simulator's rules where they differ from the paper (docs/smartt.md, the reference-code profile)")(
      SymbolName("REFERENCE_PROFILE"))

    val mtu = value("MTU", 0x0C, "MTU in bytes (below 64 acts as 64)", UInt(16 bits), cfg.mtu, "Bytes")
    private val bdpReg = reg("BDP", 0x10, "Bandwidth-delay product at the base RTT (below 1024 acts as 1024)")
    val bdp = bdpReg.field(UInt(B bits), AccessType.RW, cfg.bdp, doc = "Bytes")(SymbolName("VALUE"))
    val bdpWritten = RegNext(bdpReg.hitDoWrite) init (False)
    val maxCwnd = value("MAX_CWND", 0x14, "Largest window (Sec. 3.5: 1.25 BDP)", UInt(B bits), cfg.maxCwnd, "Bytes")
    val initCwnd = value("INIT_CWND", 0x18, "Window of a new flow (INIT event, reset sweep)", UInt(B bits), cfg.bdp, "Bytes")
    val baseRtt = value("BASE_RTT", 0x1C, "Base RTT brtt (0 acts as 1)", UInt(cfg.rttWidth bits), cfg.baseRttNs, "ns")
    val targetRttFactor = value("TARGET_RTT_FACTOR", 0x20, "trtt = brtt x factor (Sec. 3.5: 1.5)", UInt(16 bits), gain(1.5), "u5.11")
    /** A rule's own CSR, as its row declares it. */
    private def param(r: LawRule, name: String): UInt = {
      val p = r.param(name)
      value(p.name, p.address, p.doc, UInt(p.width bits), p.reset, p.units)
    }
    val fd = param(ruleRows.FairDecrease, "FD")
    val md = param(ruleRows.MultiplicativeDecrease, "MD")
    val fi = param(ruleRows.FairIncrease, "FI")
    val mi = param(ruleRows.MultiplicativeIncrease, "MI")
    val qaScaling = param(ruleRows.QuickAdapt, "QA_SCALING")
    val fastIncreaseK = param(ruleRows.FastIncrease, "FAST_INCREASE_K")
    val closeness = param(ruleRows.FastIncrease, "FAST_INCREASE_CLOSENESS")
    val wtdShift = value("WTD_ALPHA_SHIFT", 0x40, "Wait-to-Decrease EWMA gain alpha = 2^-shift (0.125)", UInt(4 bits), 3, "shift")
    val wtdThreshold = value("WTD_THRESHOLD", 0x44, "No decrease while avg_wtd < this (Sec. 3.6.1: 0.25)", UInt(wtdFrac bits), 256, "u0.10")

    private val status = reg("STATUS", 0x48, "Status")
    unit.initDoneField(status)
    val statusDividing = status.field(Bool(), AccessType.RO, doc = "1/BDP is being recomputed after a BDP write (events wait)")(SymbolName("DIVIDING"))
    val invBdpView = reg("INV_BDP", 0x4C, "floor(2^40 / BDP), recomputed after each BDP write")
      .field(UInt(31 bits), AccessType.RO, doc = "u0.40")(SymbolName("VALUE"))

    private val counters = unit.csrCounters(0x60)
    import counters.counter
    /** A rule's counter, named and described by its row (SmarttRules). */
    private def ruleCounter(r: LawRule): UInt = { val c = r.counter.get; counters.counter(c.doc)(SymbolName(c.name)) }
    import ruleRows._
    val FAIR_DECREASES = ruleCounter(FairDecrease)
    val MULTIPLICATIVE_DECREASES = ruleCounter(MultiplicativeDecrease)
    val FAIR_INCREASES = ruleCounter(FairIncrease)
    val MULTIPLICATIVE_INCREASES = ruleCounter(MultiplicativeIncrease)
    val QUICK_ADAPTS = ruleCounter(QuickAdapt)
    val FAST_INCREASES = ruleCounter(FastIncrease)
    val IGNORED = ruleCounter(Ignored)
    val WTD_HELD = ruleCounter(Held)
    unit.addOutOfRangeCounter(counters)
    val RTT_ZERO = counter("ACKs with rtt = 0 (taken as BASE_RTT)")
    val RTT_BELOW_BASE = counter("ACKs with 0 < rtt < BASE_RTT (taken as BASE_RTT)")
    val SIZE_ZERO = counter("ACK/NACK/timeout events of 0 bytes")
    val SIZE_OVER_MTU = counter("Events with size > MTU (taken as MTU)")
    val CLAMPED_MIN = counter("Non-INIT updates whose window, cut to MAX_CWND, is below MTU and so set to MTU (Alg. 1 line 36); every one when MAX_CWND < MTU")
    val CLAMPED_MAX = counter("Non-INIT updates whose window is above MAX_CWND (cut to it, Alg. 1 line 36), unless counted in CLAMPED_MIN")
    val AT_TARGET = ruleCounter(AtTarget)
    /** The counters of the rules the table counts by code. */
    val byRule: Map[LawRule, UInt] = Map(FairDecrease -> FAIR_DECREASES, MultiplicativeDecrease -> MULTIPLICATIVE_DECREASES,
      FairIncrease -> FAIR_INCREASES, MultiplicativeIncrease -> MULTIPLICATIVE_INCREASES, QuickAdapt -> QUICK_ADAPTS,
      Ignored -> IGNORED, Held -> WTD_HELD, AtTarget -> AT_TARGET)
  }

  // ------------------------------------------- values derived from the CSRs
  val derived = new Area {
    val mtu = RegNext(csr.mtu.max(U(Smartt.minMtu, 16 bits))) init (cfg.mtu)
    val bdp = csr.bdp.max(U(Smartt.minBdp, B bits))
    val baseRtt = RegNext(csr.baseRtt.max(U(1, cfg.rttWidth bits))) init (cfg.baseRttNs)
    val baseRttLeading = RegNext(leadingOne(baseRtt, 0))
    private val trttFull = productMP(baseRtt, csr.targetRttFactor)    // the P register's bits: new for stage 2 from h + 2
    val targetRtt = trttFull(trttFull.getWidth - 1 downto gainFrac)
    val closeLimit = RegNext(baseRtt.resize(cfg.rttWidth + 1) + csr.closeness)
    val mdEff = RegNext(Mux(csr.trimming, csr.md.resize(17), csr.md << 1))
    private val fastIncreaseFull = productMP(csr.fastIncreaseK, mtu)                  // u5.11 x bytes
    val fastIncreaseStep = RegNext(fastIncreaseFull(31 downto gainFrac - F))  // k x MTU in 2^-8 bytes
    val cwndLow = RegNext((mtu << F).resize(cfg.cwndWidth))
    val cwndHigh = RegNext((csr.maxCwnd << F).resize(cfg.cwndWidth))
    val highBelowLow = RegNext(csr.maxCwnd < mtu.resize(B))  // MAX_CWND < MTU: every window is MTU (Alg. 1 line 36)
    val wtdEcnStep = RegNext(U(1 << Smartt.wtdStateFrac, Smartt.wtdStateFrac + 1 bits) >> csr.wtdShift) // alpha in u0.13
    val mtuQa = productMP(mtu, csr.qaScaling)                  // Alg. 2 line 7's floor: mtu x scaling
    private val mtuQaShifted = mtuQa(31 downto gainFrac - F)
    val mtuQaWindow = RegNext(if (mtuQaShifted.getWidth <= cfg.cwndWidth) mtuQaShifted.resize(cfg.cwndWidth)
                              else satTo(mtuQaShifted, U(cwndMax, mtuQaShifted.getWidth bits), cfg.cwndWidth))
    val initCwnd = RegNext(RegNext((csr.initCwnd << F).resize(cfg.cwndWidth).min(cwndHigh)).max(cwndLow))
    // QuickAdapt then FastIncrease from the MTU's floor, and the product from which qaValue + step saturates:
    // (qaProduct >> 4) + step > cwndMax <=> qaProduct >= (cwndMax - step + 1) << 4 (S3 compares beside each other)
    val mtuQaPlusStep = RegNext(satAdd(mtuQaWindow, fastIncreaseStep, cwndMax))
    // (a step above the largest window, possible in narrow byte widths, saturates from 0)
    private val stepAboveMax = if (fastIncreaseStep.getWidth > cfg.cwndWidth) fastIncreaseStep > cwndMax else False
    val qaPlusStepSaturatesAt = RegNext(Mux(stepAboveMax, U(0, cfg.cwndWidth + 1 bits),
      U(cwndMax, cfg.cwndWidth + 1 bits) - fastIncreaseStep.resize(cfg.cwndWidth + 1) + 1) << (Smartt.qaCoefFrac - F))

    // 1/BDP for Fair Decrease: floor(2^40 / BDP) by restoring division, one quotient bit a clock,
    // rerun after every BDP write (events wait meanwhile). BDP >= 1024, so the quotient fits 31 bits.
    val pending = RegInit(True)
    val active = RegInit(False)
    val step = Reg(UInt(6 bits)) init (0)
    val divisor = Reg(UInt(B bits)) init (cfg.bdp)
    val remainder = Reg(UInt(B bits)) init (0)
    val quotient = Reg(UInt(30 bits)) init (0)
    val invBdp = Reg(UInt(31 bits)) init (0)
    when(csr.bdpWritten) { pending := True }
    when(pending && !active) {
      pending := False
      active := True
      step := 40
      divisor := bdp
      remainder := 0
      quotient := 0
    }
    val partial = (remainder @@ (step === 40).asUInt) // 2r + the numerator bit (only bit 40 of 2^40 is set)
    val fits = partial >= divisor
    val nextQuotient = quotient @@ fits.asUInt
    val remainderFull = Mux(fits, partial - divisor, partial)
    when(active) {
      remainder := remainderFull.resize(B) // < divisor
      quotient := nextQuotient(29 downto 0)
      step := step - 1
      when(step === 0) {
        active := False
        invBdp := nextQuotient
      }
    }
    val dividing = pending || active
    csr.statusDividing := dividing
    csr.invBdpView := invBdp
  }

}
