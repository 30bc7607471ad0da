// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/** One congestion event for a flow. `kind`: 0 ACK, 1 NACK of a trimmed packet (fast recovery), 2 retransmission timeout, 3 INIT. */
case class SwiftEvent(cfg: SwiftConfig) extends Bundle with WindowEvent {
  val flow = UInt(cfg.flowIdWidth bits)
  val kind = UInt(2 bits)
  /** Measured RTT in ns (ACKs). */
  val rtt = UInt(cfg.delayWidth bits)
  /** The endpoint (NIC-to-host) delay the ACK carried, ns (Sec. 3.3). */
  val endpointDelay = UInt(cfg.delayWidth bits)
  /** Forward hops (a TTL difference); above 15 acts as 15 (counted). */
  val hops = UInt(8 bits)
  /** Packets this ACK acknowledges, u6.7 (num_acked, Alg. 1 line 8; ai x acked is then a 26-bit DSP operand). */
  val acked = UInt(13 bits)
}

/** The windows after one event, for the transmit scheduler. */
case class SwiftUpdate(cfg: SwiftConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** min(fabric, endpoint) window, packets u9.17 (Sec. 3.3). */
  val cwnd = UInt(Swift.cwndBits bits)
  val fabricCwnd = UInt(Swift.cwndBits bits)
  val endpointCwnd = UInt(Swift.cwndBits bits)
  /** What the event did to each window: bits 1:0 fabric, 3:2 endpoint; 0 none, 1 increase, 2 decrease, 3 reset to MIN_CWND. */
  val rule = UInt(4 bits)
  /** Below one packet, the gap between packets rtt / cwnd in ns (Alg. 1 lines 29-32), else 0; saturates at 2^32 - 1. */
  val pacing = UInt(32 bits)
}

/** One of the two windows' state (Alg. 1 per window, Sec. 3.3). */
case class SwiftWindowState() extends Bundle {
  val cwnd = UInt(Swift.cwndBits bits)     // packets u9.17
  val last = UInt(Swift.timeBits bits)     // t_last_decrease, ns modulo 2^32
  val decreased = Bool()                   // a decrease happened (else any time may decrease)
}

/**
 * What the flow's next event needs of the windows an event wrote, found after the update loop
 * (SwiftLaw.tables) and kept in a RAM of its own: 1/w ~ recip / 2^(14 + msb) of both windows, and
 * flow scaling's table value t_p[i] of the fabric window (i its 8 bits below the leading one, p the parity).
 */
case class SwiftWindowTables() extends Bundle {
  val fabricRecip = UInt(Swift.recipValue bits)
  val fabricMsb = UInt(5 bits)
  val endpointRecip = UInt(Swift.recipValue bits)
  val endpointMsb = UInt(5 bits)
  val fabricRsqrt = UInt(Swift.rsqrtValue bits)
}

/** The per-flow state in block RAM. */
case class SwiftFlowState(cfg: SwiftConfig) extends Bundle {
  val fabric = SwiftWindowState()
  val endpoint = SwiftWindowState()
  val fs = UInt(16 bits)                        // Sec. 3.5 flow scaling (ns) of the fabric window the last event read
  val retx = UInt(3 bits)                       // retransmit_cnt
  val rtt = UInt(cfg.delayWidth bits)           // the last ACK's RTT (timeouts' once-per-RTT, the pacing delay)
}

object Swift {
  val cwndFrac = 17
  val cwndBits = 26
  val gainFrac = 15
  val aiFrac = 9
  val ackedFrac = 7
  val ewmaFrac = 4
  val timeBits = 32
  val recipIndex = 10
  val recipValue = 14
  val rsqrtIndex = 8
  val rsqrtValue = 14
  val g = 16
  val minWindowLog2 = 7
  /** (ai x acked x recip) >> (msb - this) is the increase in window units. */
  val increaseOffset: Int = 2 * cwndFrac - aiFrac - ackedFrac - recipValue
  /** (rtt x recip) >> (msb - this) is rtt / cwnd in ns. */
  val pacingOffset: Int = cwndFrac - recipValue
  val maxHops = 15
  /** The update loop's first stage: stages 1-15 compute what depends only on the event and the CSRs. */
  val loopStart = 16
  /** Clocks from the update loop's write stage W to the update on io.update (the pacing delay). */
  val pacingStages = 8
  /** Clock edges from an event's acceptance to its update (no same-flow wait): W + the pacing stages. */
  val latency: Int = loopStart + 4 + pacingStages + 1
  /**
   * Minimum same-flow spacing in clocks: the four-clock update loop, then two clocks that find the
   * reciprocals and 1/sqrt of the windows written (SwiftLaw.tables), for the next event.
   */
  val sameFlowSpacing = 6

  /** 1/sqrt(2^(p & 1) (1 + (i + 1/2) / 2^8)) in u0.14 per parity of the leading one (SwiftFixedModel.rsqrtTables). */
  val rsqrtTable: Seq[Seq[BigInt]] = (0 until 2).map { odd =>
    (0 until (1 << rsqrtIndex)).map { i =>
      val x = (1 + (i + 0.5) / (1 << rsqrtIndex)) * (if (odd == 1) 2 else 1)
      BigInt(scala.math.round((1L << rsqrtValue) / scala.math.sqrt(x)))
    }
  }

  object Change { val NONE = 0; val INCREASE = 1; val DECREASE = 2; val RESET = 3 }
}

/** Swift as a window law: its formats and where its loop starts. */
class SwiftSpec(val cfg: SwiftConfig) extends WindowLawSpec[SwiftEvent, SwiftFlowState, SwiftUpdate] {
  def definitionName = "uehw_swift"
  def busName = "SWIFT"
  def blockId = 0x57
  def infoFields = Seq(("CWND_FRAC", Swift.cwndFrac, "Window fraction bits (packets u9.17)"),
    ("DELAY_WIDTH", cfg.delayWidth, "Delay and RTT width"))
  def flows = cfg.flows
  def flowIdWidth = cfg.flowIdWidth
  def timeWidth = cfg.timeWidth
  def eventType = SwiftEvent(cfg)
  def stateType = SwiftFlowState(cfg)
  def updateType = SwiftUpdate(cfg)
  def queryWidth = Swift.cwndBits
  def loopStart = Swift.loopStart
  override def sameFlowSpacing: Int = Swift.sameFlowSpacing
  def build(unit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate]) = new SwiftLaw(cfg, unit)
}

/**
 * Swift window unit (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) for N flows, one event per clock
 * across flows: the Swift law on the window-unit skeleton (docs/window-unit.md, docs/swift.md).
 */
class Swift(val cfg: SwiftConfig) extends WindowUnit(new SwiftSpec(cfg))

/**
 * The Swift law. Stages 1-15 compute what depends only on the event and the CSRs: the fabric delay
 * and its reciprocal, the decrease factor's event part and beta/delay, the endpoint delay's EWMA
 * (a per-flow loop of its own at stages 3-6) and the endpoint window's factor. The update loop S1-S4
 * (stages 16-19) applies Alg. 1 to both windows; after W, the pacing delay of the new window.
 * The arithmetic is uehw.model.swift.SwiftFixedModel's, bit for bit.
 */
class SwiftLaw(cfg: SwiftConfig, unit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate])
    extends WindowLaw[SwiftFlowState, SwiftUpdate] {
  import Swift._
  private val D = cfg.delayWidth
  private val CW = cwndBits
  private val V = recipValue
  private val I = recipIndex
  private val one = BigInt(1) << cwndFrac
  private val gainOne = BigInt(1) << gainFrac
  /** Flow scaling's sum, signed: (alpha x r) >> 9 at most is below 2^25. */
  private val fsWidth = 28
  private object Stage { val S1: Int = unit.Stage.S1; val S2: Int = S1 + 1; val S3: Int = S1 + 2; val S4: Int = S1 + 3 }
  private def at[T <: Data](x: T, from: Int, to: Int): T = unit.at(x, from, to)
  private def written = unit.flowState.written
  private def read = unit.flowState.read

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
    val FABRIC_INCREASES = counter("Events that increased the fabric window (Alg. 1 lines 6-10)")
    val FABRIC_DECREASES = counter("Events that decreased the fabric window (lines 11-14, 19-20, 23-24)")
    val ENDPOINT_INCREASES = counter("Events that increased the endpoint window")
    val ENDPOINT_DECREASES = counter("Events that decreased the endpoint window")
    val HELD = counter("Non-INIT events where a window waited for its once-per-RTT decrease (line 3)")
    val RESETS = counter("Timeouts that reset the windows to MIN_CWND (line 18)")
    unit.addOutOfRangeCounter(counters)
    val RTT_ZERO = counter("ACKs with rtt = 0 (fabric delay 0: an increase)")
    val ENDPOINT_ABOVE_RTT = counter("ACKs whose endpoint delay exceeds the RTT (fabric delay 0: an increase)")
    val HOPS_CLAMPED = counter("ACKs with more than 15 hops (taken as 15)")
    val CLAMPED_MAX = counter("Non-INIT events where a window came out above MAX_CWND (cut to it, line 26)")
    val CLAMPED_MIN = counter("Non-INIT events where a window, cut to MAX_CWND, came out below MIN_CWND (raised to it)")
    val PACED = counter("Updates with a window below one packet (a pacing delay, lines 29-32)")
    val PACING_SATURATED = counter("Updates whose pacing delay saturated at 2^32 - 1 ns")
  }

  private val rsqrtRom = Mem(UInt(rsqrtValue bits), (rsqrtTable(0) ++ rsqrtTable(1)).map(v => U(v, rsqrtValue bits)))
  /** The 1/sqrt table's address of a window with leading one `msb` and reciprocal index `index`: the parity of the leading one of 2 fcwnd (an even number of fraction bits) and the top 8 index bits. */
  private def rsqrtAddress(msb: UInt, index: UInt): UInt =
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
  }

  private val recipRom = reciprocalRom(I, V)

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
    private val msb = at(RegNext(msbAt), s + 2, s + 4)
    private def shifted(p: UInt): UInt = RegNext((p << 2) >> msb)                   // (p >> (msb - 2)), at s + 5
    private val xr = RegNext(x * r)                                                   // s + 4
    val ratio = RegNext(satTo(shifted(xr), U((BigInt(1) << 17) - 1, 17 bits), 17))     // s + 6
    val g = withG generate {
      val br = RegNext(derived.beta * r)
      RegNext(satTo(shifted(br), U((BigInt(1) << 26) - 1, 26 bits), 26))
    }
    /** 1 - beta + beta x ratio (u1.15 of x / d), at s + 8. */
    private val ratioBetaFull = RegNext(ratio * derived.beta)
    val factor = RegNext(derived.oneMinusBeta + ratioBetaFull(32 downto 16))
  }

  // ------------------------------------------------------------- the event stages
  val f1 = new Area {
    val e = unit.stage1.e
    val hopsOver = e.hops > maxHops
    val hops = RegNext(Mux(hopsOver, U(maxHops, 4 bits), e.hops.resize(4)))          // stage 2
    val rttZero = e.rtt === 0
    val endpointAbove = e.endpointDelay > e.rtt
    val delay = RegNext(Mux(endpointAbove, U(0, D bits), e.rtt - e.endpointDelay))  // stage 2: max(0, rtt - endpoint delay)
    // hops x per_hop as four shifted adds in LUTs (a DSP for a 4-bit operand absorbs its register, unseen by the timing model)
    val hopsTarget = RegNext((0 until 4).map(i => Mux(hops(i), csr.perHop.resize(20) |<< i, U(0, 20 bits))).reduce(_ + _)) // stage 3
    val aiAcked = RegNext(csr.ai * e.acked)                                           // stage 2: u10.16
  }

  /** Stages 2-10: the fabric delay's target and the decrease factor's event part. */
  val fabricEvent = new Area {
    val delay = f1.delay
    val delayZero = RegNext(delay === 0)                                              // stage 3
    val eventTarget = RegNext(csr.baseTarget.resize(D + 1) + f1.hopsTarget)           // stage 4: base + hops x per_hop
    // AI iff delay < eventTarget + fs <=> fs > delay - eventTarget (compared in S1 against the state's fs)
    private val diffFull = RegNext(at(delay, 2, 4).resize(D + 2).asSInt - eventTarget.resize(D + 2).asSInt).asBits // stage 5
    val diffNegative = RegNext(diffFull.msb)                                          // stage 6
    val diffBig = RegNext(!diffFull.msb && diffFull(D downto 16) =/= 0)
    val diffLow = RegNext(diffFull(15 downto 0).asUInt)
    val pipe = new RatioPipe(delay, at(eventTarget, 4, 5), 2, withG = true)           // ratio, g at 8; factor at 10
    /** cE: 1 - beta + beta x eventTarget / delay (u1.15); floor - cE for the loop's compare. */
    val factor = pipe.factor
    val floorMinusFactor = RegNext(derived.floor.resize(19).asSInt - factor.resize(19).asSInt) // stage 11
  }

  /** The endpoint delay's EWMA (Sec. 3.3): a per-flow loop of its own at stages 3-6, written at 7. */
  val ewma = new Area {
    val loop = new FlowStateLoop(unit, UInt(cfg.ewmaWidth bits), 3)
    private val state = loop.read.state
    private val sample = at(unit.stage1.e.endpointDelay, 1, 3)
    private val kind = at(unit.stage1.e.kind, 1, 3)
    private val diff = RegNext((sample @@ U(0, ewmaFrac bits)).resize(cfg.ewmaWidth + 1).asSInt - state.resize(cfg.ewmaWidth + 1).asSInt) // 4
    private val step = RegNext(diff >> csr.ewmaShiftReg)                              // 5: arithmetic shift
    private val stateAt5 = RegNext(RegNext(state))
    private val updatedFull = stateAt5.asSInt.resize(cfg.ewmaWidth + 1) + step         // in [0, 2^ewmaWidth)
    private val updated = RegNext(updatedFull(cfg.ewmaWidth - 1 downto 0).asUInt)         // 6
    private val kindAt6 = at(kind, 3, 6)
    val next = Mux(kindAt6 === WindowEvent.ACK, updated, Mux(kindAt6 === WindowEvent.INIT, U(0, cfg.ewmaWidth bits), at(state, 3, 6)))
    loop.write(next, U(0, cfg.ewmaWidth bits))
    /** The endpoint delay in ns after this ACK, at stage 7. */
    val delay = loop.written.state(cfg.ewmaWidth - 1 downto ewmaFrac)
  }

  /** Stages 7-15: the endpoint window's decision and factor (its target is a CSR). */
  val endpointEvent = new Area {
    val delay = ewma.delay
    val above = RegNext(delay =/= 0 && delay >= csr.endpointTarget)                   // stage 8
    val pipe = new RatioPipe(delay, csr.endpointTarget, 7, withG = false)            // factor at 15
    private val kind = at(unit.stage1.e.kind, 1, 15)
    // the factor its decrease multiplies by: max(cE, 1 - max_mdf) on an ACK, 1 - max_mdf on a loss
    val factor = RegNext(Mux(kind === WindowEvent.ACK && pipe.factor > derived.floor, pipe.factor, derived.floor)) // 16
  }

  /** The event as the update loop sees it. */
  val event = new Area {
    val kind = at(unit.stage1.e.kind, 1, Stage.S1)
    val isAck = kind === WindowEvent.ACK
    val isInit = kind === WindowEvent.INIT
    val isTimeout = kind === WindowEvent.TIMEOUT
    val now = at(unit.stage1.now, 1, Stage.S1)
    val rtt = at(unit.stage1.e.rtt, 1, Stage.S1)
    val aiAcked = at(f1.aiAcked, 2, Stage.S2)
    val delayZero = at(fabricEvent.delayZero, 3, Stage.S1)
    val diffNegative = at(fabricEvent.diffNegative, 6, Stage.S1)
    val diffBig = at(fabricEvent.diffBig, 6, Stage.S1)
    val diffLow = at(fabricEvent.diffLow, 6, Stage.S1)
    val g = at(fabricEvent.pipe.g, 8, Stage.S1)
    val fabricFactor = at(fabricEvent.factor, 10, Stage.S2)
    val floorMinusFactor = at(fabricEvent.floorMinusFactor, 11, Stage.S2)
    val endpointAbove = at(endpointEvent.above, 8, Stage.S1)
    val endpointFactor = at(endpointEvent.factor, 16, Stage.S2)
    val rttZero = at(RegNext(f1.rttZero), 2, Stage.S4)
    val endpointAboveRtt = at(RegNext(f1.endpointAbove), 2, Stage.S4)
    val hopsOver = at(RegNext(f1.hopsOver), 2, Stage.S4)
  }

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
    Mux(csr.line27AsPrinted, result.resize(w) <= prev.resize(w), result.resize(w) < prev.resize(w))
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
    private val addrRead = at(unit.stage1.addr, 1, Stage.S1 - 1)
    private val ramData = ram.readSync(addrRead)
    private val fromX2 = RegNext(writeX1 && addrX1 === addrRead) init (False)          // that event is at X2 when this one is at S1
    private val fromX3 = RegNext(writeX2 && addrX2 === addrRead) init (False)
    /** S1: the values of the windows this event reads. */
    val read = SwiftWindowTables()
    read.assignFromBits(Mux(fromX2, found.asBits, Mux(fromX3, foundX3.asBits, ramData.asBits)))
  }

  /** S1: the state as read or forwarded; compares and the fs x (beta / delay) products. */
  val s1 = new Area {
    // same-flow events six clocks apart: the flow's previous event is past W (FlowStateLoop forwards
    // it from W + 1 when the data comes), so the state needs no select at S1
    val s = read.state
    // Alg. 1 lines 6-10 against 11-14: delay < eventTarget + fs (a delay of 0 is below any target)
    val fabricIncrease = event.delayZero || event.diffNegative || !event.diffBig && s.fs > event.diffLow
    private val rttCheck = Mux(event.isAck, event.rtt, s.rtt)                          // line 3: the RTT of this ACK, or the last
    private def canDecrease(w: SwiftWindowState) = !w.decreased || (event.now - w.last) >= rttCheck.resize(timeBits)
    val fabricCanDecrease = canDecrease(s.fabric)
    val endpointCanDecrease = canDecrease(s.endpoint)
    private val retxPlus = s.retx +^ 1
    private val retxFull = Mux(event.isTimeout, Mux(retxPlus > csr.retxResetThreshold, csr.retxResetThreshold.resize(4), retxPlus), U(0, 4 bits))
    val retx1 = retxFull(2 downto 0)                                                   // at most the 3-bit threshold
    val reset = event.isTimeout && retx1 >= csr.retxResetThreshold                     // line 17
    // fs x beta / delay (registers into a DSP)
    val fsBetaFull = RegNext(s.fs * event.g)
    // flow scaling of the fabric window this event reads, for the next event: its 1/sqrt (INIT: of the initial window)
    // of 2 fcwnd when the fraction bits are odd (an even number of them for the square root): its leading one is one up
    private val fsMsbFull = Mux(event.isInit, derived.initMsb, tables.read.fabricMsb) +^ U(cwndFrac & 1, 1 bits)
    val fsShift = fsMsbFull(5 downto 1)                                                // msb / 2
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
    private val fabricShiftedFull = (s2.fabricIncreaseProduct << increaseOffset) >> at(tables.read.fabricMsb, Stage.S1, Stage.S3)
    private val endpointShiftedFull = (s2.endpointIncreaseProduct << increaseOffset) >> at(tables.read.endpointMsb, Stage.S1, Stage.S3)
    private val aiAckedTwice = (at(event.aiAcked, Stage.S2, Stage.S3) << 1).resize(38)
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
      c.decrease := Mux(c.high, h.highDecrease, !under && csr.line27AsPrinted && inc === 0)
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
    private val fsShiftSelect = RegNext(Vec(fsShifts.map(k => at(s1.fsShift, Stage.S1, Stage.S3) === k)))
    private val fsProduct = s1.fsProductAlphaFull
    private def fsShifted(k: Int) = fsProduct(fsProduct.getWidth - 1 downto k + rsqrtValue - (cwndFrac + (cwndFrac & 1)) / 2)
    private val fsRawFull = oneHotPick(fsShifts.map(k => (fsShiftSelect(k), fsShifted(k).resize(fsWidth))), fsWidth) // below 2^25
    private val fsRaw = (False ## fsRawFull(fsWidth - 2 downto 0)).asSInt
    private val fsSumFull = fsRaw + derived.fsBeta.resize(fsWidth)
    val fs = Mux(fsRaw < derived.fsZeroBelow, U(0, 16 bits),
      Mux(fsRaw > derived.fsRangeAbove, csr.fsRange, fsSumFull(15 downto 0).asUInt))
  }

  /** Which change applies to each window (Alg. 1 lines 4-25), decided from S1's compares. */
  val rules = new Area {
    // decided in S3 from S1's compares, registered: S4 only picks
    private def s1At[T <: Data](x: T): T = at(x, Stage.S1, Stage.S3)
    private val kind3 = s1At(event.kind)
    private val isAck3 = kind3 === WindowEvent.ACK
    private val isInit3 = kind3 === WindowEvent.INIT
    private val reset3 = s1At(s1.reset)
    private def changeOf(increase: Bool, canDecrease: Bool) =
      Mux(isAck3 && increase, U(Change.INCREASE, 2 bits), Mux(reset3, U(Change.RESET, 2 bits),
        Mux(canDecrease && !isInit3, U(Change.DECREASE, 2 bits), U(Change.NONE, 2 bits))))
    private val fabric3 = changeOf(s1At(s1.fabricIncrease), s1At(s1.fabricCanDecrease))
    private val endpoint3 = changeOf(s1At(!event.endpointAbove), s1At(s1.endpointCanDecrease))
    /** One select a candidate: held, increase, decrease on an ACK, decrease on a loss, reset. */
    private def selectsOf(change: UInt) = RegNext(Vec(change === Change.NONE, change === Change.INCREASE,
      change === Change.DECREASE && isAck3, change === Change.DECREASE && !isAck3 && !isInit3, change === Change.RESET))
    val fabricSelect = selectsOf(fabric3)
    val endpointSelect = selectsOf(endpoint3)
    val fabric = RegNext(fabric3)
    val endpoint = RegNext(endpoint3)
    val kind = RegNext(kind3)
    val isAck = kind === WindowEvent.ACK
    val isInit = kind === WindowEvent.INIT
  }

  /** S4: the picked windows and the new state. */
  val decide = new Area {
    import rules._
    private def pick(select: Vec[Bool], candidates: Seq[Candidate]): Candidate = {
      val c = Candidate()
      c.assignFromBits(oneHotPick(select.zip(candidates).map { case (sel, x) => (sel, x.asBits.asUInt) }.toSeq, c.getBitsWidth).asBits)
      c
    }
    import s4._
    val fabricNew = pick(fabricSelect, Seq(fabricHeld, fabricIncrease, fabricDecrease, fabricLoss, fabricReset))
    val endpointNew = pick(endpointSelect, Seq(endpointHeld, endpointIncrease, endpointDecrease, endpointDecrease, endpointReset))
    private val now = at(event.now, Stage.S1, Stage.S4)

    private def windowNext(old: CarriedWindow, c: Candidate): SwiftWindowState = {
      val w = SwiftWindowState()
      w.cwnd := c.cwnd
      w.last := Mux(c.decrease, now, old.last)                                              // line 27
      w.decreased := old.decreased || c.decrease
      w
    }
    val next = SwiftFlowState(cfg)
    next.fabric := windowNext(s.fabric, fabricNew)
    next.endpoint := windowNext(s.endpoint, endpointNew)
    next.fs := s4.fs
    next.retx := at(s1.retx1, Stage.S1, Stage.S4)
    next.rtt := Mux(isAck, at(event.rtt, Stage.S1, Stage.S4), s.rtt)
    when(isInit) {
      for (w <- Seq(next.fabric, next.endpoint)) {
        w.cwnd := derived.initWindow
        w.last := 0
        w.decreased := False
      }
      next.rtt := 0
    }
    val initState = SwiftFlowState(cfg)
    for (w <- Seq(initState.fabric, initState.endpoint)) {
      w.cwnd := SwiftDefaults.initWindow
      w.last := 0
      w.decreased := False
    }
    initState.fs := SwiftDefaults.initFs
    initState.retx := 0
    initState.rtt := 0
    val high = (fabricNew.high || endpointNew.high) && !isInit
    val low = (fabricNew.low || endpointNew.low) && !isInit
  }

  def busy: Bool = False
  def next: SwiftFlowState = decide.next
  def initState: SwiftFlowState = decide.initState
  def queryValue(state: SwiftFlowState): UInt = Mux(state.fabric.cwnd < state.endpoint.cwnd, state.fabric.cwnd, state.endpoint.cwnd)

  /** After W: the effective window's pacing delay (lines 29-32), then the update. */
  val pacing = new Area {
    private val w = written.state
    val cwnd = RegNext(queryValue(w))                                                        // W + 1
    private val leading = RegNext(leadingOne(cwnd, minWindowLog2))                          // W + 2
    private val cwndFull = RegNext(cwnd)
    private val (index, msb) = WindowArith.recipIndex(cwndFull.resize(CW - 1), leading, minWindowLog2, I)
    private val r = RegNext(recipRom.readSync(RegNext(index)))                               // W + 5
    private val rtt = at(RegNext(w.rtt), 1, 5)
    private val product = RegNext(rtt * r)                                                   // W + 6: rtt x 1/cwnd
    private val msbAt6 = at(RegNext(msb), 3, 6)
    private val shifted = RegNext((product << pacingOffset) >> msbAt6)                        // W + 7: >> (msb - 3)
    private val below = at(RegNext(cwnd < one), 2, 7)
    val saturated = RegNext(below && shifted(shifted.getWidth - 1 downto 32) =/= 0)           // W + 8
    val delay = RegNext(Mux(!below, U(0, 32 bits), satTo(shifted, U(0xFFFFFFFFL, 32 bits), 32)))
  }

  /** What stage W reports besides the skeleton's. */
  val report = new Area {
    private def w[T <: Data](x: T): T = RegNext(x)
    val fabric = w(rules.fabric)
    val endpoint = w(rules.endpoint)
    val high = w(decide.high)
    val low = w(decide.low)
    val rttZero = w(event.rttZero); val endpointAboveRtt = w(event.endpointAboveRtt); val hopsOver = w(event.hopsOver)
  }

  def finish(r: WindowReport): Unit = {
    import CsrCounters.count
    import report._
    val ok = r.ok
    val measured = ok && !r.isInit
    count(csr.FABRIC_INCREASES, measured && fabric === Change.INCREASE)
    count(csr.FABRIC_DECREASES, measured && fabric === Change.DECREASE)
    count(csr.ENDPOINT_INCREASES, measured && endpoint === Change.INCREASE)
    count(csr.ENDPOINT_DECREASES, measured && endpoint === Change.DECREASE)
    count(csr.HELD, measured && (fabric === Change.NONE || endpoint === Change.NONE))
    count(csr.RESETS, measured && fabric === Change.RESET)
    count(csr.RTT_ZERO, ok && r.isAck && rttZero)
    count(csr.ENDPOINT_ABOVE_RTT, ok && r.isAck && endpointAboveRtt)
    count(csr.HOPS_CLAMPED, ok && r.isAck && hopsOver)
    count(csr.CLAMPED_MAX, ok && high)
    count(csr.CLAMPED_MIN, ok && low)
    // the update, pacingStages after W
    def late[T <: Data](x: T): T = Delay(x, pacingStages)
    val valid = Delay(r.ok, pacingStages, init = False)
    val update = unit.io.update
    update.valid := valid
    update.flow := late(r.flow)
    update.cwnd := Delay(pacing.cwnd, pacingStages - 1)
    update.fabricCwnd := late(written.state.fabric.cwnd)
    update.endpointCwnd := late(written.state.endpoint.cwnd)
    update.rule := late(endpoint @@ fabric)
    update.pacing := pacing.delay
    count(csr.PACED, valid && pacing.delay =/= 0)
    count(csr.PACING_SATURATED, valid && pacing.saturated)
  }
}
