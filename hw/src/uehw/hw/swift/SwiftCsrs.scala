// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The Swift law's base: its CSRs and the values derived from them, the reciprocal and 1/sqrt
 * tables, its stages. The law's parts build on it, each a trait in a file of its own
 * (SwiftEventStages, SwiftLoop, SwiftRuleDecision), and SwiftLaw puts them together.
 */
abstract class SwiftLawBase(cfg: SwiftConfig, unit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate])
    extends WindowLaw[SwiftFlowState, SwiftUpdate] {
  import Swift._
  protected def config: SwiftConfig = cfg
  protected def windowUnit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate] = unit
  protected val D = cfg.delayWidth
  protected val CW = cwndBits
  protected val V = recipValue
  protected val I = recipIndex
  protected val one = BigInt(1) << cwndFrac
  protected val gainOne = BigInt(1) << gainFrac
  /** Flow scaling's sum, signed: (alpha x r) >> 9 at most is below 2^25. */
  protected val fsWidth = 28
  protected object Stage { val S1: Int = unit.Stage.S1; val S2: Int = S1 + 1; val S3: Int = S1 + 2; val S4: Int = S1 + 3; val W: Int = S4 + 1 }
  /** A value made at `stage` (StageCarries), and a value read at stage `to`. */
  protected def born[T <: Data](stage: Int)(x: T): T = unit.born(stage)(x)
  protected def carry[T <: Data](x: T, to: Int): T = unit.carry(x, to)
  protected def written = windowUnit.flowState.written
  protected def read = windowUnit.flowState.read
  /** Each window's rules, one row each (SwiftRules). */
  protected val fabricRules = SwiftRules.fabric
  protected val endpointRules = SwiftRules.endpoint

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    val busif = unit.busif
    private def reg(name: String, address: Int, doc: String) = unit.csrRegister(name, address, doc)
    private def value[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, units: String): T =
      unit.csrValue(name, address, doc, t, reset, units)
    import SwiftDefaults._

    private val control = reg("CONTROL", 0x08, "Switches")
    val line27AsPrinted = control.field(Bool(), AccessType.RW, 0,
      doc = "Alg. 1 line 27 as printed: a window that did not change restarts the once-per-RTT timer (cwnd <= cwnd_prev)")(
      SymbolName("LINE27_AS_PRINTED"))
    val ai = value("AI", 0x0C, "Additive increment per RTT (Alg. 1 line 1: 1 packet)", UInt(13 bits), SwiftDefaults.ai, "packets u4.9")
    val beta = value("BETA", 0x10, "Multiplicative decrease constant (0.8); above 1 acts as 1", UInt(16 bits), SwiftDefaults.beta, "u1.15")
    val maxMdf = value("MAX_MDF", 0x14, "Maximum multiplicative decrease factor (0.5); above 1 acts as 1", UInt(16 bits),
      SwiftDefaults.maxMdf, "u1.15")
    val minCwnd = value("MIN_CWND", 0x18, "Smallest window (Sec. 3.4: 0.001 packets); below 2^7 acts as 2^7", UInt(CW bits),
      SwiftDefaults.minCwnd, "packets u9.17")
    val maxCwnd = value("MAX_CWND", 0x1C, "Largest window (73 packets, 2 BDP)", UInt(CW bits), SwiftDefaults.maxCwnd, "packets u9.17")
    val initCwnd = value("INIT_CWND", 0x20, "Window of a new flow (INIT event, reset sweep; 36.6 packets, 1 BDP)", UInt(CW bits),
      SwiftDefaults.initCwnd, "packets u9.17")
    val retxResetThreshold = value("RETX_RESET_THRESHOLD", 0x24, "Timeouts in a row that reset the window to MIN_CWND (Alg. 1 line 17)",
      UInt(3 bits), SwiftDefaults.retxResetThreshold, "timeouts")
    val baseTarget = value("BASE_TARGET", 0x28, "Fixed part of the fabric target (Sec. 3.5)", UInt(D bits), baseTargetNs, "ns")
    val perHop = value("PER_HOP", 0x2C, "Fabric target per forward hop (Sec. 3.5 topology scaling)", UInt(16 bits), perHopNs, "ns")
    val fsRange = value("FS_RANGE", 0x30, "Flow-scaling range (Sec. 3.5: the term is clamped to [0, this])", UInt(16 bits),
      fsRangeNs, "ns")
    val fsAlphaReg = value("FS_ALPHA", 0x34, "Flow scaling alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd))",
      UInt(20 bits), fsAlpha, "ns x packets^0.5")
    val fsBetaReg = value("FS_BETA", 0x38, "Flow scaling beta = -alpha / sqrt(fs_max_cwnd) (two's complement)", Bits(20 bits),
      BigInt(fsBeta) & ((BigInt(1) << 20) - 1), "ns, signed")
    val endpointTarget = value("ENDPOINT_TARGET", 0x3C, "The endpoint window's target (Sec. 3.3)", UInt(D bits), endpointTargetNs, "ns")
    val ewmaShiftReg = value("ENDPOINT_EWMA_SHIFT", 0x40, "Endpoint-delay EWMA gain 2^-shift (0.125)", UInt(4 bits), ewmaShift, "shift")

    private val status = reg("STATUS", 0x44, "Status")
    unit.initDoneField(status)

    private val counters = unit.csrCounters(0x60)
    import counters.counter
    /** A rule's counter, named and described by its row (SwiftRules). */
    private def ruleCounter(r: LawRule): UInt = { val c = r.counter.get; counters.counter(c.doc)(SymbolName(c.name)) }
    val FABRIC_INCREASES = ruleCounter(fabricRules.Increase)
    val FABRIC_DECREASES = ruleCounter(fabricRules.Decrease)
    val ENDPOINT_INCREASES = ruleCounter(endpointRules.Increase)
    val ENDPOINT_DECREASES = ruleCounter(endpointRules.Decrease)
    val HELD = ruleCounter(fabricRules.Held)
    val RESETS = ruleCounter(fabricRules.Reset)
    /** The counters of the rules the tables count by code. */
    val byRule: Map[LawRule, UInt] = Map(fabricRules.Increase -> FABRIC_INCREASES, fabricRules.Decrease -> FABRIC_DECREASES,
      endpointRules.Increase -> ENDPOINT_INCREASES, endpointRules.Decrease -> ENDPOINT_DECREASES, fabricRules.Reset -> RESETS)
    unit.addOutOfRangeCounter(counters)
    val RTT_ZERO = counter("ACKs with rtt = 0 (fabric delay 0: an increase)")
    val ENDPOINT_ABOVE_RTT = counter("ACKs whose endpoint delay exceeds the RTT (fabric delay 0: an increase)")
    val HOPS_CLAMPED = counter("ACKs with more than 15 hops (taken as 15)")
    val CLAMPED_MAX = counter("Non-INIT events where a window came out above MAX_CWND (cut to it, line 26)")
    val CLAMPED_MIN = counter("Non-INIT events where a window, cut to MAX_CWND, came out below MIN_CWND (raised to it)")
    val PACED = counter("Updates with a window below one packet (a pacing delay, lines 29-32)")
    val PACING_SATURATED = counter("Updates whose pacing delay saturated at 2^32 - 1 ns")
  }

  protected val rsqrtRom = Mem(UInt(rsqrtValue bits), (rsqrtTable(0) ++ rsqrtTable(1)).map(v => U(v, rsqrtValue bits)))
  /** The 1/sqrt table's address of a window with leading one `msb` and reciprocal index `index`: the parity of the leading one of 2 fcwnd (an even number of fraction bits) and the top 8 index bits. */
  protected def rsqrtAddress(msb: UInt, index: UInt): UInt =
    ((msb(0) ^ Bool((cwndFrac & 1) == 1)) ## index(I - 1 downto I - rsqrtIndex)).asUInt

  // ------------------------------------------- values derived from the CSRs (registered)
  val derived = new Area {
    val beta = RegNext(csr.beta.min(U(gainOne, 16 bits))) init (SwiftDefaults.beta)
    val floor = RegNext(U(gainOne, 17 bits) - csr.maxMdf.min(U(gainOne, 16 bits)).resize(17)) init (gainOne - SwiftDefaults.maxMdf)
    val oneMinusBeta = RegNext(U(gainOne, 17 bits) - beta.resize(17))
    val minCwnd = RegNext(csr.minCwnd.max(U(BigInt(1) << minWindowLog2, CW bits))) init (SwiftDefaults.minCwnd)
    val maxCwnd = RegNext(csr.maxCwnd) init (SwiftDefaults.maxCwnd)
    val highBelowLow = RegNext(maxCwnd < minCwnd)
    /** What a window above MAX_CWND becomes: MAX_CWND, or MIN_CWND when MAX_CWND < MIN_CWND. */
    val highValue = RegNext(Mux(maxCwnd < minCwnd, minCwnd, maxCwnd))
    val initWindow = RegNext(RegNext(csr.initCwnd.min(maxCwnd)).max(minCwnd)) init (SwiftDefaults.initWindow)
    // The initial window's leading one and index, for an INIT's reciprocal and flow scaling.
    private val initLeading = RegNext(leadingOne(initWindow, minWindowLog2))
    // (its index's 2 low bits are below the 1/sqrt table's 8: *Full)
    private val (initIndexFull, initMsbPicked) = WindowArith.recipIndex(initWindow.resize(CW - 1), initLeading, minWindowLog2, I)
    val initMsb = RegNext(initMsbPicked.resize(5)) init (SwiftDefaults.initMsb)
    val initRsqrt = RegNext(rsqrtRom.readSync(RegNext(rsqrtAddress(initMsbPicked, initIndexFull)))) init (SwiftDefaults.initRsqrt)
    val fsBeta = RegNext(csr.fsBetaReg.asSInt)
    /** fs = clamp(raw + beta, 0, range): raw < -beta gives 0, raw > range - beta gives range. */
    val fsZeroBelow = RegNext(-fsBeta.resize(fsWidth))
    val fsRangeAbove = RegNext(csr.fsRange.resize(fsWidth).asSInt - fsBeta.resize(fsWidth))
    // S4 (stage 19) reads these: registered, so that they reach it no later than S3's raw reads
    // (docs/swift.md, "CSR writes": k + w <= h - 18 reads the old value in every stage)
    val fsRange = RegNext(csr.fsRange) init (SwiftDefaults.fsRangeNs)
    val line27AsPrinted = RegNext(csr.line27AsPrinted) init (False)
  }

  protected val recipRom = reciprocalRom(I, V)
}
