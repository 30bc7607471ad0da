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

  object Rule {
    val INIT = 0; val IGNORED = 1; val HELD = 2; val FAIR_DECREASE = 3; val MULTIPLICATIVE_DECREASE = 4
    val FAIR_INCREASE = 5; val MULTIPLICATIVE_INCREASE = 6; val QUICK_ADAPT = 7; val FAST_INCREASE = 8; val LOSS = 9
    val AT_TARGET = 10 // reference profile: rtt = trtt, no case
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

/**
 * The SMaRTT law. Stages 1-13 compute everything that depends only on the event and the CSRs (the
 * RTT reciprocal, the MD/MI fractions, the gain products, the increase numerators' mantissas)
 * while the skeleton reads the flow's state; the update loop S1-S5 (stages 14-18) applies Alg. 1-3
 * to it in five clocks and the skeleton writes it back in W. The arithmetic is uehw.model.smartt.SmarttFixedModel's, bit for bit.
 */
class SmarttLaw(cfg: SmarttConfig, unit: WindowUnit[SmarttEvent, SmarttFlowState, SmarttUpdate])
    extends WindowLaw[SmarttFlowState, SmarttUpdate] {
  import Smartt.{gain, gainFrac, wtdFrac, wtdStateFrac}
  private val B = cfg.byteWidth
  private val F = cfg.cwndFrac
  private val V = cfg.recipValueBits
  private val I = cfg.recipIndexBits
  private val byteMax = (BigInt(1) << B) - 1
  private val cwndMax = (BigInt(1) << cfg.cwndWidth) - 1
  private object Stage {
    val S1: Int = unit.Stage.S1; val S2: Int = S1 + 1; val S3: Int = S1 + 2; val S4: Int = S1 + 3; val S5: Int = S1 + 4
  }
  require(Stage.S1 == 14 && unit.Stage.S4 == Stage.S5, "the event stages below fill stages 1-13; the loop is S1-S5")
  private def at[T <: Data](x: T, from: Int, to: Int): T = unit.at(x, from, to)
  private def written = unit.flowState.written
  private def read = unit.flowState.read
  /** S1 takes the update in W: only when L is the loop's length (a flow's next event can then be in S1 as its last is in W). */
  private def fromWritten: Bool = if (read.fromWritten != null) read.fromWritten else False

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
    val fd = value("FD", 0x24, "Fair Decrease gain (Sec. 3.5: 0.8)", UInt(16 bits), gain(0.8), "u5.11")
    val md = value("MD", 0x28, "Multiplicative Decrease gain (Sec. 3.2.2: 2)", UInt(16 bits), gain(2.0), "u5.11")
    val fi = value("FI", 0x2C, "Fair Increase gain (Sec. 3.5: 0.25 x gamma)", UInt(16 bits), gain(0.25 * cfg.gamma), "u5.11")
    val mi = value("MI", 0x30, "Multiplicative Increase gain (Sec. 3.2.4: brtt/(trtt-brtt) x gamma)", UInt(16 bits), gain(2.0 * cfg.gamma), "u5.11")
    val qaScaling = value("QA_SCALING", 0x34, "QuickAdapt scaling (Sec. 3.5: 0.8)", UInt(16 bits), gain(0.8), "u5.11")
    val fastIncreaseK = value("FAST_INCREASE_K", 0x38, "MTUs added per ACK in FastIncrease (Sec. 3.4: 2; the authors' code 1.2)",
      UInt(16 bits), gain(2.0), "u5.11")
    val closeness = value("FAST_INCREASE_CLOSENESS", 0x3C, "rtt <= brtt + this counts as close to the base RTT (Alg. 3 line 2)",
      UInt(cfg.rttWidth bits), cfg.fastIncreaseClosenessNs, "ns")
    val wtdShift = value("WTD_ALPHA_SHIFT", 0x40, "Wait-to-Decrease EWMA gain alpha = 2^-shift (0.125)", UInt(4 bits), 3, "shift")
    val wtdThreshold = value("WTD_THRESHOLD", 0x44, "No decrease while avg_wtd < this (Sec. 3.6.1: 0.25)", UInt(wtdFrac bits), 256, "u0.10")

    private val status = reg("STATUS", 0x48, "Status")
    unit.initDoneField(status)
    val statusDividing = status.field(Bool(), AccessType.RO, doc = "1/BDP is being recomputed after a BDP write (events wait)")(SymbolName("DIVIDING"))
    val invBdpView = reg("INV_BDP", 0x4C, "floor(2^40 / BDP), recomputed after each BDP write")
      .field(UInt(31 bits), AccessType.RO, doc = "u0.40")(SymbolName("VALUE"))

    private val counters = unit.csrCounters(0x60)
    import counters.counter
    val FAIR_DECREASES = counter("ACKs that applied Fair Decrease (Alg. 1 line 20)")
    val MULTIPLICATIVE_DECREASES = counter("ACKs that applied Multiplicative Decrease (line 22)")
    val FAIR_INCREASES = counter("ACKs that applied Fair Increase (line 24)")
    val MULTIPLICATIVE_INCREASES = counter("ACKs that applied Multiplicative Increase (line 26)")
    val QUICK_ADAPTS = counter("QuickAdapt window changes (Alg. 2 line 7)")
    val FAST_INCREASES = counter("ACKs that applied FastIncrease (Alg. 3 line 5)")
    val IGNORED = counter("ACKs ignored after QuickAdapt (Alg. 1 line 9); in the reference profile marked ACKs, NACKs and timeouts")
    val WTD_HELD = counter("ECN-marked ACKs whose decrease Wait-to-Decrease held back")
    unit.addOutOfRangeCounter(counters)
    val RTT_ZERO = counter("ACKs with rtt = 0 (taken as BASE_RTT)")
    val RTT_BELOW_BASE = counter("ACKs with 0 < rtt < BASE_RTT (taken as BASE_RTT)")
    val SIZE_ZERO = counter("ACK/NACK/timeout events of 0 bytes")
    val SIZE_OVER_MTU = counter("Events with size > MTU (taken as MTU)")
    val CLAMPED_MIN = counter("Non-INIT updates whose window, cut to MAX_CWND, is below MTU and so set to MTU (Alg. 1 line 36); every one when MAX_CWND < MTU")
    val CLAMPED_MAX = counter("Non-INIT updates whose window is above MAX_CWND (cut to it, Alg. 1 line 36), unless counted in CLAMPED_MIN")
    val AT_TARGET = counter("Reference profile: ACKs with rtt = trtt exactly, which apply no case")
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


  // ------------------------------------------------------------- the event stages
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


  // ------------------------------------------------- the update loop: Alg. 1-3 in five clocks
  private val high = derived.cwndHigh
  private val low = derived.cwndLow
  private val highBelowLow = derived.highBelowLow
  private val cw = cfg.cwndWidth
  private val sw = cw + 2 // signed window arithmetic: cwnd +- a change, before the clamp

  /**
   * Alg. 1 line 36, max(min(cwnd + delta, MAX_CWND), MTU), from the headroom to both limits
   * (computed a clock earlier), so the add and the two compares run side by side.
   */
  case class Clamped() extends Bundle {
    val cwnd = UInt(cw bits)
    val high = Bool() // cwnd + delta > MAX_CWND (counted CLAMPED_MAX unless CLAMPED_MIN)
    val low = Bool()  // min(cwnd + delta, MAX_CWND) < MTU (CLAMPED_MIN)
  }
  private def clampDelta(cwnd: UInt, delta: SInt, toHigh: SInt, toLow: SInt): Clamped = {
    val r = Clamped()
    val sum = cwnd + delta.resize(cw).asUInt // modulo 2^cw: used only when within the limits
    val under = delta < toLow
    r.high := delta > toHigh
    r.low := Mux(r.high, highBelowLow, under)
    r.cwnd := Mux(r.high, Mux(highBelowLow, low, high), Mux(under, low, sum)) // one LUT6 a bit
    r
  }
  /**
   * A window before its clamp, for S5's pick: the unclamped value and its two compares, so that the
   * pick runs beside the compares and one LUT a bit applies the clamp after it.
   */
  class Unclamped(val value: UInt, val high: Bool, val under: Bool) {
    def low: Bool = Mux(high, highBelowLow, under)
  }
  /** A window that does not start from the stored one (QuickAdapt's, in S4), before its clamp: it and its compares registered for S5. */
  private def unclampedValue(value: UInt, above: Bool, below: Bool): Unclamped =
    new Unclamped(RegNext(value.resize(cw)), RegNext(above), RegNext(below))
  /**
   * clampDelta for a decrease `dec` (delta = -dec), from the headroom measured the other way
   * (fromHigh = cwnd - MAX_CWND, fromLow = cwnd - MTU): compared with `dec` itself, so that no
   * negation runs before the compares.
   */
  private def clampDecrease(cwnd: UInt, dec: UInt, fromHigh: SInt, fromLow: SInt): Clamped = {
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
    private def atShift(v: SInt): UInt = Mux(v.msb, U(0, sw bits), v.asUInt) << x.shift
    private val highFull = atShift(toHigh)
    private val lowFull = atShift(toLow)
    private val onesBelowShift = Vec((0 until W).map(i => x.shift > i)).asBits.asUInt
    val highPassed = RegNext(toHigh.msb)
    val highAt = RegNext(highFull(W - 1 downto 0) | onesBelowShift)
    val highOver = RegNext(highFull(highFull.getWidth - 1 downto W).orR)
    val lowAt = RegNext(lowFull(W - 1 downto 0))
    val lowOver = RegNext(lowFull(lowFull.getWidth - 1 downto W).orR)
    /** S4: the flags, from the product and whether the quotient passes sw + 1 bits (`big`), registered for S5. */
    def flags(big: Bool): (Bool, Bool) =
      (RegNext(big || highPassed || !highOver && x.product > highAt), RegNext(!big && (lowOver || x.product < lowAt)))
  }

  // the table's value pre-shifted by up to 3 (below): a 26 x 17 product, one DSP48E2 (27 x 18 signed)
  private val incProductWidth = Smartt.mantissaBits + V + 3
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
    val acked1 = satAdd(s.acked, sizeBytes, byteMax)                     // Alg. 1 line 4
    val ignoreLeft = s.ignoreBytes > sizeBytes                            // line 5: ignore1 != 0 (lines 8-9, 32)
    val ignore1 = Mux(ignoreLeft, s.ignoreBytes - sizeBytes, U(0, B bits))
    val sinceDeadlineFull = event.now - s.qaEnd
    val expired = !s.qaStarted || !sinceDeadlineFull.msb                  // Alg. 2 line 3: now >= end
    private val ref = csr.referenceProfile
    private val adaptPaper = expired && s.qaStarted && Mux(event.isAck, s.triggerQa, !ignoreLeft) // Alg. 2 line 4; loss: line 32
    // Reference profile: not inside the ignore window, the early loop's measurement window.
    private val adaptRef = !ignoreLeft && event.windowExpired && event.windowStarted && (!event.isAck || s.triggerQa)
    val adapt = Mux(ref, adaptRef, adaptPaper)
    val clean = event.close && !event.ecn                                 // Alg. 3 line 2
    // Reference profile: fiCount counts down the window of the last unclean ACK; FastIncrease once
    // the clean bytes exceed it, and on until an unclean ACK.
    val fastRef = clean && (s.fiActive || sizeBytes > s.fiCount)
    // Alg. 3 line 3's count (or the reference profile's countdown): the sum and the difference here,
    // S2 picks (the sum saturates at 2^B - 1: its bit B)
    val fiCountPlusSize = s.fiCount.resize(B + 1) + sizeBytes
    val fiCountLessSize = s.fiCount - sizeBytes
    /** Reference profile: an ACK skipped (ECN-marked inside the ignore window, QuickAdapt's own included). */
    val skipRef = event.isAck && event.ecn && (ignoreLeft || adaptRef)
    // Alg. 2 line 7 from the acked bytes: this ACK's included, a loss's not (a NACK's 64 B in the reference profile).
    private val isNack = event.kind === 1
    private val lossBytes = Mux(ref && isNack, satAdd(s.acked, U(Smartt.nackAckedBytes, 7 bits), byteMax), s.acked)
    val qaBytes = Mux(event.isAck, acked1, lossBytes)
    // Alg. 2 line 7's acked x coefficient as acked x c + addend x c: DSPs fed here (M in S2), the sum
    // registered as P in S3, so that S3 compares a P register. Both windows' acked x c side by side
    // (the DSPs' inputs straight from registers), the one in use picked before the add. The addend
    // is the ACK's size, a NACK's 64 B (reference profile) or 0; when acked + addend saturates, S3
    // compares byteMax x c as well and S4 takes its facts.
    private val kindBefore = at(f1.e.kind, 1, Stage.S1 - 1)
    val qaAddend = RegNext(Mux(kindBefore === 0, at(f2.size, 2, Stage.S1 - 1),
      Mux(ref && kindBefore === 1, U(Smartt.nackAckedBytes, 16 bits), U(0, 16 bits))))
    val qaSaturates = s.acked.resize(B + 1) + qaAddend > byteMax
    // Alg. 2 line 8: bytes_to_ignore = unacked, from the transport, or the window before QA.
    val inFlight = Mux(csr.unackedFromWindow, s.cwnd(cw - 1 downto F), event.unacked)
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
    val count1 = Mux(csr.referenceProfile, countRef, countPaper)
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
    val ecn = at(event.ecn, Stage.S1, Stage.S2)
    val wtdSum = s.wtd.resize(WS + 1) - RegNext(s1.wtdDecay) + Mux(ecn, derived.wtdEcnStep, U(0, WS + 1 bits))
    val wtd1 = satTo(wtdSum, U((1 << WS) - 1, WS bits), WS)
    val toHigh = RegNext(s1.toHigh); val toLow = RegNext(s1.toLow)
    val fromHigh = RegNext(s1.fromHigh); val fromLow = RegNext(s1.fromLow)
    val sizeFixed = (at(event.size, Stage.S1, Stage.S2) << F).resize(cw)
    private val clean = at(s1.clean, Stage.S1, Stage.S2)
    val fastOnStored = clean && (count1 > s.cwnd(cw - 1 downto F) || s.fiActive) // Alg. 3 line 4, c1 = cwnd
    val storedPlusStep = clampDelta(s.cwnd, derived.fastIncreaseStep.resize(sw).asSInt, toHigh, toLow)  // line 5
    val held = clampDelta(s.cwnd, S(0, sw bits), toHigh, toLow)           // ignored, held: the window as it is
    val lossCut = clampDecrease(s.cwnd, sizeFixed, fromHigh, fromLow)  // Alg. 1 line 29
  }

  /** S3: the increases' products (DSPs); QuickAdapt and FastIncrease; the decreases; the rule. */
  val s3 = new Area {
    val s = RegNext(s2.s)
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
    val cwndPlusSize = s.cwnd + sizeFixed
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
    private val clean = at(s1.clean, Stage.S1, Stage.S3)
    val count1 = RegNext(s2.count1)
    val adapt = at(s1.adapt, Stage.S1, Stage.S3)
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
    val storedPlusStep = RegNext(s2.storedPlusStep)
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
    private def from3[T <: Data](x: T): T = at(x, Stage.S3, Stage.S5)
    val s = from3(s3.s)
    private val incFi = RegNext(s4.incFi)
    // modulo 2^cw: a sum is used only when within the limits
    val fairIncrease = new Unclamped(s.cwnd + incFi.resize(cw), s4.fiHigh, s4.fiUnder)        // Eq. 3
    val multiplicativeIncrease = new Unclamped(s.cwnd + RegNext(s4.incMiFi).resize(cw), s4.miFiHigh, s4.miFiUnder) // Eq. 4 + Eq. 3
    val sizePlusFairIncrease = new Unclamped(from3(s3.cwndPlusSize) + incFi.resize(cw), s4.sizeFiHigh, s4.sizeFiUnder) // Eq. 4 at the size, then Eq. 3
    val multiplicativeDecrease = RegNext(s4.multiplicativeDecrease)
    val quickAdapt = unclampedValue(s3.qaValue, s3.qaValueHigh, s3.qaValueLow)  // Alg. 1 lines 15-16 (and a loss's, line 26)
    val quickAdaptPlusStep = unclampedValue(s3.qaPlusStep, s3.qaPlusStepHigh, s3.qaPlusStepLow) // then FastIncrease (Alg. 3 line 5)
    val storedPlusStep = from3(s3.storedPlusStep)
    val fairDecrease = RegNext(s4.fairDecrease)
    val held = at(s2.held, Stage.S2, Stage.S5)
    val init = Clamped()                                          // INIT: INIT_CWND (clamped when the CSR was written)
    init.cwnd := derived.initCwnd; init.high := False; init.low := False
    val lossCut = at(s2.lossCut, Stage.S2, Stage.S5)
  }

  /** Which rule applies (Alg. 1), decided in S4 from S1-S4's flags: one select a candidate window. */
  val rules = new Area {
    private def from[T <: Data](x: T, stage: Int): T = at(x, stage, Stage.S4)
    val kind = from(event.kind, Stage.S1)
    val isAck = kind === 0; val isInit = kind === 3; val isLoss = !isAck && !isInit
    private val ref = csr.referenceProfile
    private val ecn = from(event.ecn, Stage.S1)
    private val above = from(event.above, Stage.S1)
    private val ignoreLeft = from(s1.ignoreLeft, Stage.S1)
    private val adapt = RegNext(s3.adapt)
    // The paper profile (Alg. 1-3).
    private val ignoringPaper = isAck && ignoreLeft                 // Alg. 1 lines 8-9
    private val actedPaper = isAck && !ignoringPaper
    // The reference profile: only marked ACKs skipped, losses inside the ignore window change nothing,
    // FastIncrease decided in S1, no case at rtt = trtt, none after QuickAdapt.
    private val skipRef = from(s1.skipRef, Stage.S1)
    private val fastRef = from(s1.fastRef, Stage.S1)
    private val actedRef = isAck && !skipRef
    private val ignoringRef = skipRef && !adapt || isLoss && ignoreLeft
    val atTarget = ref && actedRef && !adapt && !fastRef && from(event.atTarget, Stage.S1)
    val ignoring = Mux(ref, ignoringRef, ignoringPaper)
    private val acted = Mux(ref, actedRef, actedPaper)
    private val fastOnStored = Mux(ref, fastRef, RegNext(s3.fastOnStored))
    // s3.fastAfterQa is the latest of S4's facts: the rules that follow from it are found for
    // both of its values, and it picks last
    private def ifFastAfterQa[T <: Data](f: Bool => T): T = Mux(s3.fastAfterQa, f(Mux(ref, fastRef, True)), f(Mux(ref, fastRef, False)))
    private val ackCases = acted && !adapt && !fastOnStored && !atTarget // Alg. 1 lines 15-16: no QuickAdapt, no FastIncrease
    private val canDecrease = RegNext(s3.canDecrease)
    val held = ackCases && ecn && !canDecrease
    val fairDecrease = ackCases && ecn && canDecrease && !above
    val multiplicativeDecrease = ackCases && ecn && canDecrease && above
    val fairIncrease = ackCases && !ecn && above
    val multiplicativeIncrease = ackCases && !ecn && !above
    private val quickAdaptOnAck = isAck && adapt && (ref || !ignoreLeft) // the paper profile's ignored ACK does not adapt
    val quickAdaptThenFast = ifFastAfterQa(fastAfterQa => quickAdaptOnAck && acted && fastAfterQa)
    val quickAdaptAlone = ifFastAfterQa(fastAfterQa => quickAdaptOnAck && !(quickAdaptOnAck && acted && fastAfterQa) || isLoss && adapt)
    val fastIncreaseOnly = acted && !adapt && fastOnStored
    val quickAdaptOnLoss = isLoss && adapt
    val lossCut = isLoss && !adapt && !(ref && ignoreLeft)
    val fast = ifFastAfterQa(fastAfterQa => acted && Mux(adapt, fastAfterQa, fastOnStored)) // Alg. 3 line 4 (counted even with QuickAdapt)

    val rule = UInt(4 bits)
    rule := Smartt.Rule.LOSS
    when(isInit) { rule := Smartt.Rule.INIT }
    when(ignoring) { rule := Smartt.Rule.IGNORED }
    when(quickAdaptOnAck || quickAdaptOnLoss) { rule := Smartt.Rule.QUICK_ADAPT }
    when(fastIncreaseOnly) { rule := Smartt.Rule.FAST_INCREASE }
    when(atTarget) { rule := Smartt.Rule.AT_TARGET }
    when(held) { rule := Smartt.Rule.HELD }
    when(fairDecrease) { rule := Smartt.Rule.FAIR_DECREASE }
    when(multiplicativeDecrease) { rule := Smartt.Rule.MULTIPLICATIVE_DECREASE }
    when(fairIncrease) { rule := Smartt.Rule.FAIR_INCREASE }
    when(multiplicativeIncrease) { rule := Smartt.Rule.MULTIPLICATIVE_INCREASE }
  }

  /** S5: the rule's window and the new state. */
  val decide = new Area {
    private def s1At[T <: Data](x: T): T = at(x, Stage.S1, Stage.S5)
    val kind = RegNext(rules.kind)
    val isAck = kind === 0; val isInit = kind === 3; val isLoss = !isAck && !isInit
    val rule = RegNext(rules.rule)
    val ignoring = RegNext(rules.ignoring)
    val fastIncrease = RegNext(rules.fast)
    val quickAdapt = rule === Smartt.Rule.QUICK_ADAPT
    val expired = s1At(s1.expired)

    // The window: every candidate was clamped on its own; the rule picks one (Alg. 1 line 36). The
    // selects are S4's (the rules, MI's cap), registered.
    // Windows clamped before S5, and windows S5 finds with their compares: the rule's value is
    // picked beside the compares, and the clamp follows the pick (one LUT a bit).
    private val mi = rules.multiplicativeIncrease
    private val clamped = Seq(
      (rules.ignoring || rules.held || rules.atTarget) -> s5.held, rules.fairDecrease -> s5.fairDecrease,
      rules.multiplicativeDecrease -> s5.multiplicativeDecrease, rules.fastIncreaseOnly -> s5.storedPlusStep,
      rules.lossCut -> s5.lossCut, rules.isInit -> s5.init).map { case (sel, c) => (RegNext(sel), c) }
    private val unclamped = Seq(
      rules.fairIncrease -> s5.fairIncrease, (mi && !s4.incMiOver) -> s5.multiplicativeIncrease,
      (mi && s4.incMiOver) -> s5.sizePlusFairIncrease, rules.quickAdaptAlone -> s5.quickAdapt,
      rules.quickAdaptThenFast -> s5.quickAdaptPlusStep).map { case (sel, c) => (RegNext(sel), c) }
    private val value = oneHotPick(clamped.map { case (sel, c) => (sel, c.cwnd) } ++ unclamped.map { case (sel, c) => (sel, c.value) }, cw)
    private val toHigh = Kept.orTree(unclamped.map { case (sel, c) => sel && c.high })
    private val toLow = Kept.orTree(unclamped.map { case (sel, c) => sel && !c.high && c.under })
    val window = Clamped()
    window.cwnd := Mux(toHigh, RegNext(Mux(highBelowLow, low, high)), Mux(toLow, low, value))
    window.high := Kept.orTree(clamped.map { case (sel, c) => sel && c.high } ++ unclamped.map { case (sel, c) => sel && c.high })
    window.low := Kept.orTree(clamped.map { case (sel, c) => sel && c.low } ++ unclamped.map { case (sel, c) => sel && c.low })

    // The other fields (Alg. 1 lines 4-5, 30-34; Alg. 2 lines 8, 11-12; Alg. 3 lines 3-11).
    private val s = s5.s
    private val acked1 = s1At(s1.acked1)
    private val ignore1 = s1At(s1.ignore1)
    private val inFlight = s1At(s1.inFlight)
    private val ref = csr.referenceProfile
    private val ignoreLeft = s1At(s1.ignoreLeft)
    private val skipRef = s1At(s1.skipRef)
    val next = SmarttFlowState(cfg)
    next := s
    next.cwnd.allowOverride()
    next.cwnd := window.cwnd
    when(ref) { next.cwnd(F - 1 downto 0) := 0 }                    // reference profile: whole bytes
    when(isAck) {
      next.acked := acked1
      next.ignoreBytes := ignore1
      // the paper profile: an ignored ACK skips WTD and FastIncrease; the reference profile counts
      // FastIncrease's bytes on every ACK and skips WTD on a skipped one
      when(Mux(ref, !skipRef, !ignoring)) {
        next.wtd := at(s2.wtd1, Stage.S2, Stage.S5)
      }
      when(ref || !ignoring) {
        next.fiCount := at(s3.count1, Stage.S3, Stage.S5)
        next.fiActive := fastIncrease
      }
    }
    when(isLoss) {
      next.ignoreBytes := ignore1
      when(!(ref && ignoreLeft)) {
        next.triggerQa := True                                      // Alg. 1 line 30
      }
      when(ref) {
        next.acked := s1At(s1.qaBytes)                              // a NACK's 64 B count
      }
    }
    when(quickAdapt) {
      next.triggerQa := False
      next.ignoreBytes := inFlight                                  // Alg. 2 line 8
    }
    private val rollPaper = !ignoring && expired && (isAck || !ignoreLeft) // Alg. 2 lines 11-12 (loss: line 32)
    private val rollRef = s1At(event.windowExpired)                  // the early loop's window rolls
    when(!isInit && Mux(ref, rollRef, rollPaper)) {
      next.qaEnd := at(event.qaDeadline, Stage.S1, Stage.S5)
      next.qaStarted := True
      next.acked := 0
    }
    val initState = SmarttFlowState(cfg)
    initState.assignFromBits(spinal.core.B(0, initState.getBitsWidth bits))
    initState.cwnd.allowOverride()
    initState.cwnd := derived.initCwnd
    initState.fiCount.allowOverride()
    // reference profile: FastIncrease's clean bytes must first exceed the initial window
    initState.fiCount := Mux(csr.referenceProfile, derived.initCwnd(cw - 1 downto F), U(0, B bits))
    when(isInit) {
      next := initState
      next.cwnd := window.cwnd
    }
  }


  /** What stage W reports besides the skeleton's: the rule, the counted conditions. */
  val report = new Area {
    private def w[T <: Data](x: T): T = RegNext(x)
    val rule = w(decide.rule)
    val clampedHigh = w(decide.window.high); val clampedLow = w(decide.window.low)
    val rttZero = w(at(event.rttZero, Stage.S1, Stage.S5)); val rttBelow = w(at(event.rttBelow, Stage.S1, Stage.S5))
    val sizeZero = w(at(event.size, Stage.S1, Stage.S5) === 0); val sizeOver = w(at(event.sizeOver, Stage.S1, Stage.S5))
    val fastIncrease = w(decide.fastIncrease)
  }

  def busy: Bool = derived.dividing
  def next: SmarttFlowState = decide.next
  def initState: SmarttFlowState = decide.initState
  def queryValue(state: SmarttFlowState): UInt = state.cwnd(cfg.cwndWidth - 1 downto F)

  def finish(r: WindowReport): Unit = {
    import CsrCounters.count
    import report._
    unit.io.update.valid := r.ok
    val update = unit.io.update.payload
    update.flow := r.flow
    update.cwnd := written.state.cwnd(cfg.cwndWidth - 1 downto F)
    update.rule := rule
    val ok = r.ok
    val measured = ok && !r.isInit
    def is(x: Int) = ok && rule === x
    count(csr.FAIR_DECREASES, is(Smartt.Rule.FAIR_DECREASE))
    count(csr.MULTIPLICATIVE_DECREASES, is(Smartt.Rule.MULTIPLICATIVE_DECREASE))
    count(csr.FAIR_INCREASES, is(Smartt.Rule.FAIR_INCREASE))
    count(csr.MULTIPLICATIVE_INCREASES, is(Smartt.Rule.MULTIPLICATIVE_INCREASE))
    count(csr.QUICK_ADAPTS, is(Smartt.Rule.QUICK_ADAPT))
    count(csr.FAST_INCREASES, ok && fastIncrease)
    count(csr.IGNORED, is(Smartt.Rule.IGNORED))
    count(csr.WTD_HELD, is(Smartt.Rule.HELD))
    count(csr.RTT_ZERO, ok && r.isAck && rttZero)
    count(csr.RTT_BELOW_BASE, ok && r.isAck && !rttZero && rttBelow)
    count(csr.SIZE_ZERO, measured && sizeZero)
    count(csr.SIZE_OVER_MTU, measured && sizeOver)
    count(csr.CLAMPED_MIN, measured && clampedLow)
    count(csr.CLAMPED_MAX, measured && clampedHigh && !clampedLow)
    count(csr.AT_TARGET, is(Smartt.Rule.AT_TARGET))
  }
}
