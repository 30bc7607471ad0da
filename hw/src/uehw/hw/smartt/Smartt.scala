package uehw.hw.smartt

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

/** One congestion event for a flow. `kind`: 0 ACK, 1 NACK of a trimmed packet, 2 timeout, 3 INIT (new flow). */
case class SmarttEvent(cfg: SmarttConfig) extends Bundle {
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
  /** Which rule made it: `Smartt.Rule` order (INIT, IGNORED, HELD, FD, MD, FI, MI, QUICK_ADAPT, FAST_INCREASE, LOSS). */
  val rule = UInt(4 bits)
}

/** A packet to send again (NACK or timeout), passed to the transport. */
case class SmarttRetransmit(cfg: SmarttConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val timeout = Bool()
}

/** The answer to a window query. */
case class SmarttCwnd(cfg: SmarttConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val cwnd = UInt(cfg.byteWidth bits)
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

/** What the pre-stages carry along for the update stage: the clamped event and its classification. */
case class SmarttCarry(cfg: SmarttConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val kind = UInt(2 bits)
  val ecn = Bool()
  val unacked = UInt(cfg.byteWidth bits)
  val now = UInt(cfg.timeWidth bits)
  val inRange = Bool()
  val size = UInt(16 bits)    // at most MTU
  val sizeOver = Bool()
  val rttZero = Bool()
  val rttBelow = Bool()
  val above = Bool()          // rtt > trtt
  val close = Bool()          // rtt <= brtt + closeness (Alg. 3 line 2)
}

class SmarttIo(cfg: SmarttConfig) extends Bundle {
  val event = slave(Stream(SmarttEvent(cfg)))
  /** Free-running time in ns; sampled when an event is accepted. */
  val now = in(UInt(cfg.timeWidth bits))
  /** One update per in-range event, `Smartt.latency` clocks after it was accepted. */
  val update = master(Flow(SmarttUpdate(cfg)))
  val retransmit = master(Flow(SmarttRetransmit(cfg)))
  /** Window read port for the scheduler: the answer comes one clock later. */
  val cwndQuery = slave(Flow(UInt(cfg.flowIdWidth bits)))
  val cwndReply = master(Flow(SmarttCwnd(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low during the post-reset sweep (N clocks). */
  val initDone = out(Bool())
}

object Smartt {
  /** Clock edges from an event's acceptance to its update on `io.update`. */
  val latency = 6
  val gainFrac = 11
  val wtdFrac = 10
  /**
   * Fraction bits of the stored WTD average: three more than the threshold, with a rounded decay,
   * so that the average stays within 2^(shift-1) LSBs (0.5/1024 at alpha = 1/8) of the exact
   * EWMA (a truncated u0.10 decay sat up to 7/1024 above it and never fell below 7/1024).
   */
  val wtdStateFrac = 13
  val minMtu = 64
  val minBdp = 1024
  def gain(x: Double): BigInt = BigInt(scala.math.round(x * (1 << gainFrac)))

  object Rule {
    val INIT = 0; val IGNORED = 1; val HELD = 2; val FAIR_DECREASE = 3; val MULTIPLICATIVE_DECREASE = 4
    val FAIR_INCREASE = 5; val MULTIPLICATIVE_INCREASE = 6; val QUICK_ADAPT = 7; val FAST_INCREASE = 8; val LOSS = 9
  }

  /** round(2^(V+I+1) / (2^(I+1) + 2i + 1)): 2^V / (1 + (i + 1/2) / 2^I). */
  def reciprocalTable(indexBits: Int, valueBits: Int): Seq[BigInt] = (0 until (1 << indexBits)).map { i =>
    val denom = (BigInt(1) << (indexBits + 1)) + 2 * i + 1
    ((BigInt(1) << (valueBits + indexBits + 2)) + denom) / (2 * denom)
  }
}

/**
 * SMaRTT congestion-window unit (smartt-reps.txt Sec. 3.2-3.6, Alg. 1-3) for N flows, one event
 * per clock for any flow mix. Stages A-D compute everything that depends only on the event and
 * the CSRs (the RTT reciprocal, the MD/MI fractions, the gain products) and read the flow's state;
 * stage E applies Alg. 1 to the state (forwarded from the previous clock when the same flow was
 * there) and writes it back in the same clock, so the same flow may come on consecutive clocks.
 * The arithmetic is uehw.sim.smartt.SmarttFixedModel's, bit for bit.
 */
class Smartt(val cfg: SmarttConfig) extends Component with RegisterDocs {
  val io = new SmarttIo(cfg)
  setDefinitionName("uehw_smartt")
  AxiLite4SpecRenamer(io.ctrl)

  import Smartt.{gain, gainFrac, wtdFrac, wtdStateFrac}
  private val N = cfg.flows
  private val B = cfg.byteWidth
  private val F = cfg.cwndFrac
  private val V = cfg.recipValueBits
  private val I = cfg.recipIndexBits
  private val byteMax = (BigInt(1) << B) - 1
  private val cwndMax = (BigInt(1) << cfg.cwndWidth) - 1

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    val busif = AxiLite4BusInterface(io.ctrl, SizeMapping(0, 256), "SMARTT")
    private def reg(name: String, address: Int, doc: String) = busif.newRegAt(address, doc = doc)(SymbolName(name))
    private def value[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, unit: String): T =
      reg(name, address, doc).field(t(), AccessType.RW, reset, doc = unit)(SymbolName("VALUE"))

    private val info = reg("INFO", 0x00, "Generation parameters (read-only)")
    info.field(Bits(8 bits), AccessType.ROV, BigInt(0x53), doc = "Block id 0x53 ('S')")(SymbolName("ID"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(B), doc = "Byte-count width")(SymbolName("BYTE_WIDTH"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(I), doc = "Reciprocal table index bits")(SymbolName("RECIP_INDEX_BITS"))
    reg("FLOWS", 0x04, "N (read-only)").field(Bits(17 bits), AccessType.ROV, BigInt(N), doc = "Flows")(SymbolName("VALUE"))

    private val control = reg("CONTROL", 0x08, "Switches")
    val trimming = control.field(Bool(), AccessType.RW, 1,
      doc = "The network trims: 0 doubles md, losses are timeouts (Sec. 3.3, QuickAdapt without trimming)")(SymbolName("TRIMMING"))
    val wtdEnable = control.field(Bool(), AccessType.RW, 1, doc = "Wait-to-Decrease (Sec. 3.6.1)")(SymbolName("WTD_ENABLE"))
    val unackedFromWindow = control.field(Bool(), AccessType.RW, 0,
      doc = "QuickAdapt ignores the window before it instead of the event's unacked bytes (a transport that does not count them)")(
      SymbolName("UNACKED_FROM_WINDOW"))

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
    val fastIncreaseK = value("FAST_INCREASE_K", 0x38, "MTUs added per ACK in FastIncrease (Sec. 3.4: 2)", UInt(4 bits), 2, "MTUs")
    val closeness = value("FAST_INCREASE_CLOSENESS", 0x3C, "rtt <= brtt + this counts as close to the base RTT (Alg. 3 line 2)",
      UInt(cfg.rttWidth bits), BigInt(2L * cfg.mtu * 8 / cfg.linkGbps), "ns")
    val wtdShift = value("WTD_ALPHA_SHIFT", 0x40, "Wait-to-Decrease EWMA gain alpha = 2^-shift (0.125)", UInt(4 bits), 3, "shift")
    val wtdThreshold = value("WTD_THRESHOLD", 0x44, "No decrease while avg_wtd < this (Sec. 3.6.1: 0.25)", UInt(wtdFrac bits), 256, "u0.10")

    private val status = reg("STATUS", 0x48, "Status")
    val statusInitDone = status.field(Bool(), AccessType.RO, doc = "Post-reset sweep finished")(SymbolName("INIT_DONE"))
    val statusDividing = status.field(Bool(), AccessType.RO, doc = "1/BDP is being recomputed after a BDP write (events wait)")(SymbolName("DIVIDING"))
    val invBdpView = reg("INV_BDP", 0x4C, "floor(2^40 / BDP), recomputed after each BDP write")
      .field(UInt(31 bits), AccessType.RO, doc = "u0.40")(SymbolName("VALUE"))

    private val counters = new CsrCounters(busif, 0x60)
    import counters.counter
    val EVENTS = counter("Events for flows < N")
    val ACKS = counter("ACK events")
    val NACKS = counter("NACK events (trimmed packets)")
    val TIMEOUTS = counter("Timeout events")
    val INITS = counter("INIT events")
    val FAIR_DECREASES = counter("ACKs that applied Fair Decrease (Alg. 1 line 20)")
    val MULTIPLICATIVE_DECREASES = counter("ACKs that applied Multiplicative Decrease (line 22)")
    val FAIR_INCREASES = counter("ACKs that applied Fair Increase (line 24)")
    val MULTIPLICATIVE_INCREASES = counter("ACKs that applied Multiplicative Increase (line 26)")
    val QUICK_ADAPTS = counter("QuickAdapt window changes (Alg. 2 line 7)")
    val FAST_INCREASES = counter("ACKs that applied FastIncrease (Alg. 3 line 5)")
    val IGNORED = counter("ACKs ignored after QuickAdapt (Alg. 1 line 9)")
    val WTD_HELD = counter("ECN-marked ACKs whose decrease Wait-to-Decrease held back")
    val OUT_OF_RANGE = counter("Events with a flow id >= N (ignored)")
    val RTT_ZERO = counter("ACKs with rtt = 0 (taken as BASE_RTT)")
    val RTT_BELOW_BASE = counter("ACKs with 0 < rtt < BASE_RTT (taken as BASE_RTT)")
    val SIZE_ZERO = counter("ACK/NACK/timeout events of 0 bytes")
    val SIZE_OVER_MTU = counter("Events with size > MTU (taken as MTU)")
    val CLAMPED_MIN = counter("Non-INIT updates whose window, cut to MAX_CWND, is below MTU and so set to MTU (Alg. 1 line 36); every one when MAX_CWND < MTU")
    val CLAMPED_MAX = counter("Non-INIT updates whose window is above MAX_CWND (cut to it, Alg. 1 line 36), unless counted in CLAMPED_MIN")
  }

  // ------------------------------------------- values derived from the CSRs
  val derived = new Area {
    val mtu = RegNext(csr.mtu.max(U(Smartt.minMtu, 16 bits))) init (cfg.mtu)
    val bdp = csr.bdp.max(U(Smartt.minBdp, B bits))
    val baseRtt = RegNext(csr.baseRtt.max(U(1, cfg.rttWidth bits))) init (cfg.baseRttNs)
    val trttFull = baseRtt * csr.targetRttFactor
    val targetRtt = RegNext(trttFull(trttFull.getWidth - 1 downto gainFrac))
    val closeLimit = RegNext(baseRtt.resize(cfg.rttWidth + 1) + csr.closeness)
    val mdEff = RegNext(Mux(csr.trimming, csr.md.resize(17), csr.md << 1))
    val fastIncreaseStep = RegNext((csr.fastIncreaseK * mtu) << F) // k x MTU in 2^-8 bytes
    val cwndLow = (mtu << F).resize(cfg.cwndWidth)
    val cwndHigh = (csr.maxCwnd << F).resize(cfg.cwndWidth)

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

  // ------------------------------------------------- post-reset sweep
  val sweep = new Area {
    val active = RegInit(True)
    val addr = Reg(UInt(cfg.flowAddrWidth bits)) init (0)
    when(active) {
      addr := addr + 1
      when(addr === N - 1) { active := False }
    }
  }
  io.initDone := !sweep.active
  csr.statusInitDone := !sweep.active

  /** 1/x ~ value / 2^(V + msb): normalise x, index the table with the I bits below its leading one. */
  private val recipRom = Smartt.reciprocalTable(I, V)
  private def reciprocal(x: UInt, name: String): (UInt, UInt) = {
    val w = x.getWidth
    val table = Mem(UInt(V bits), recipRom.map(v => U(v, V bits)))
    val clz = CountLeadingZeroes(x.asBits)
    val shiftedFull = (x << clz).setName(name + "_shiftedFull")
    val normalizedFull = shiftedFull(w - 1 downto 0).setName(name + "_normalizedFull") // the leading one at bit w - 1
    val index = if (w - 1 >= I) normalizedFull(w - 2 downto w - 1 - I) else (normalizedFull(w - 2 downto 0) @@ U(0, I - (w - 1) bits))
    val msbFull = (U(w - 1, clz.getWidth bits) - clz).setName(name + "_msbFull")
    (table.readAsync(index), msbFull(log2Up(w) - 1 downto 0))
  }

  /** Saturating arithmetic sized to the operands, for values that may not wrap. */
  private def satAdd(x: UInt, y: UInt, max: BigInt): UInt = {
    val w = scala.math.max(x.getWidth, y.getWidth) + 1
    val sum = x.resize(w) + y.resize(w)
    Mux(sum > U(max, w bits), U(max, x.getWidth bits), sum.resize(x.getWidth))
  }
  private def satSub(x: UInt, y: UInt): UInt = {
    val w = scala.math.max(x.getWidth, y.getWidth)
    Mux(y.resize(w) >= x.resize(w), U(0, x.getWidth bits), x - y.resize(x.getWidth))
  }
  /** min(x, limit) in `width` bits, where limit < 2^width. */
  private def satTo(x: UInt, limit: UInt, width: Int): UInt = Mux(x > limit, limit.resize(width), x.resize(width))

  // ------------------------------------------------------- stages A-D
  io.event.ready := !sweep.active && !derived.dividing

  /** Stage A: the event as accepted, with `now`. */
  val a = new Area {
    val valid = RegNext(io.event.fire) init (False)
    val e = RegNext(io.event.payload)
    val now = RegNext(io.now)
    val inRange = if (isPow2(N) && cfg.flowIdWidth == cfg.flowAddrWidth) True else e.flow < N
    val mtu = derived.mtu
    val sizeOver = e.size > mtu
    val size = Mux(sizeOver, mtu, e.size)                      // a packet is at most one MTU
    val rttZero = e.rtt === 0
    val rttBelow = e.rtt < derived.baseRtt
    val rtt = Mux(rttBelow, derived.baseRtt, e.rtt)            // the rules assume rtt >= brtt (Sec. 3.2.4)
    val trtt = derived.targetRtt
    val above = rtt.resize(cfg.trttWidth) > trtt
    val diff = Mux(above, rtt.resize(cfg.trttWidth) - trtt, trtt - rtt.resize(cfg.trttWidth))
    val (rttRecip, rttMsb) = reciprocal(rtt, "a_rttRecip")
    val close = rtt.resize(cfg.rttWidth + 1) <= derived.closeLimit // Alg. 3 line 2
    val carry = SmarttCarry(cfg)
    carry.flow := e.flow; carry.kind := e.kind; carry.ecn := e.ecn; carry.unacked := e.unacked; carry.now := now; carry.inRange := inRange
    carry.size := size; carry.sizeOver := sizeOver; carry.rttZero := rttZero; carry.rttBelow := rttBelow
    carry.above := above; carry.close := close
  }

  /** Stage B: |rtt - trtt| / rtt in u.16 (at most 1), and the gain products. */
  val b = new Area {
    val valid = RegNext(a.valid) init (False)
    val carry = RegNext(a.carry)
    private val size = carry.size
    val diffTimesRecip = RegNext(a.diff * a.rttRecip)
    val shift = RegNext(U(V, 6 bits) + a.rttMsb.resize(6))
    val fracFull = (diffTimesRecip << 16) >> shift
    val frac16 = satTo(fracFull, U(BigInt(1) << 16, 17 bits), 17)
    val sizeFd = size * csr.fd
    val sizeMtu = size * derived.mtu
    val sizeMi = size * csr.mi
  }

  /** Stage C. */
  val c = new Area {
    val valid = RegNext(b.valid) init (False)
    val carry = RegNext(b.carry)
    private val size = carry.size
    val frac16 = RegNext(b.frac16)
    val sizeFd = RegNext(b.sizeFd); val sizeMtu = RegNext(b.sizeMtu); val sizeMi = RegNext(b.sizeMi)
    // Eq. 1: kFD = size x fd / bdp in u0.30, at most 1 - 2^-30.
    val kFdFull = sizeFd * derived.invBdp
    val kFd = satTo(kFdFull(kFdFull.getWidth - 1 downto 21), U((BigInt(1) << 30) - 1, 30 bits), 30)
    val numFi = sizeMtu * csr.fi                                // Eq. 3 numerator
    val fracSize = frac16 * size
    val miFull = sizeMi * frac16                                // < 2^48
    val miFrac = miFull(47 downto 16)                           // Eq. 4 numerator / mtu
  }

  /** Stage D: the last event-only products; reads the flow's state. */
  val d = new Area {
    val valid = RegNext(c.valid) init (False)
    val carry = RegNext(c.carry)
    private val size = carry.size
    val kFd = RegNext(c.kFd); val numFi = RegNext(c.numFi)
    val fracSize = RegNext(c.fracSize); val miFrac = RegNext(c.miFrac)
    // Eq. 2: min(size, (rtt - trtt)/rtt x md x size), 2^-8 bytes.
    val mdFull = fracSize * derived.mdEff
    val mdTerm = satTo(mdFull(mdFull.getWidth - 1 downto 16 + gainFrac - F), (size << F).resize(24), 24)
    val numMi = miFrac * derived.mtu
  }

  val stateRam = Mem(SmarttFlowState(cfg), N)
  val cwndRam = Mem(UInt(B bits), N)
  private def addrOf(flow: UInt): UInt = flow.resize(cfg.flowAddrWidth)
  val stored = stateRam.readSync(addrOf(d.carry.flow))

  // ------------------------------------------------- stage E: Alg. 1
  val e = new Area {
    val valid = RegNext(d.valid) init (False)
    val carry = RegNext(d.carry)
    val flow = carry.flow; val kind = carry.kind; val ecn = carry.ecn; val now = carry.now; val inRange = carry.inRange
    val isAck = kind === 0; val isInit = kind === 3
    val size = carry.size; val sizeOver = carry.sizeOver; val rttZero = carry.rttZero; val rttBelow = carry.rttBelow
    val above = carry.above; val close = carry.close
    val kFd = RegNext(d.kFd); val numFi = RegNext(d.numFi)
    val mdTerm = RegNext(d.mdTerm); val numMi = RegNext(d.numMi)
    val ok = valid && inRange
    val addr = addrOf(flow)

    // The previous clock's write, forwarded: the same flow may come on consecutive clocks.
    val lastWrite = new Area {
      val valid = RegInit(False)
      val addr = Reg(UInt(cfg.flowAddrWidth bits))
      val state = Reg(SmarttFlowState(cfg))
    }
    val s = Mux(lastWrite.valid && lastWrite.addr === addr, lastWrite.state, stored)

    val mtu = derived.mtu
    val sizeBytes = size.resize(B)
    val sizeFixed = (size << F).resize(cfg.cwndWidth)
    val sinceDeadlineFull = now - s.qaEnd
    val expired = !s.qaStarted || !sinceDeadlineFull.msb                             // Alg. 2 line 3: now >= end
    val qaDeadline = (now + derived.targetRtt.resize(cfg.timeWidth)).resize(cfg.timeWidth) // Alg. 2 line 11
    def qaValue(acked: UInt, name: String): UInt = {                                     // Alg. 2 line 7
      val bytes = acked.max(mtu.resize(B)).setName(name + "_bytes")
      val qaFull = (bytes * csr.qaScaling).setName(name + "_qaFull")
      satTo(qaFull(qaFull.getWidth - 1 downto gainFrac - F), U(cwndMax, cfg.cwndWidth bits), cfg.cwndWidth)
    }
    // Alg. 2 line 8: bytes_to_ignore = unacked, from the transport, or the window before QA for one that does not count it.
    val inFlight = Mux(csr.unackedFromWindow, s.cwnd(cfg.cwndWidth - 1 downto F), carry.unacked)

    val next = SmarttFlowState(cfg)
    next := s
    next.cwnd.allowOverride() // the clamped window is assigned last, below
    val preClamp = UInt(cfg.cwndWidth bits)
    preClamp := s.cwnd
    val rule = UInt(4 bits)
    rule := Smartt.Rule.LOSS
    val quickAdapt, fastIncrease = False
    val held, fd, mdCase, fiCase, miCase = False

    // ACK: Alg. 1 lines 4-27.
    val ack = new Area {
      val acked1 = satAdd(s.acked, sizeBytes, byteMax)                  // line 4
      val ignore1 = satSub(s.ignoreBytes, sizeBytes)                    // line 5
      val ignoring = ignore1 =/= 0                                      // lines 8-9
      // Sec. 3.6.1: avg = alpha x ecn + (1 - alpha) x avg with alpha = 2^-shift.
      // The decay is rounded to nearest (half up): round(avg / 2^shift) = ((2 avg >> shift) + 1) >> 1.
      private val WS = wtdStateFrac
      val wtdDecayTwice = ((s.wtd @@ U(0, 1 bits)) >> csr.wtdShift).resize(WS + 2)
      val wtdDecayRoundedFull = wtdDecayTwice + 1
      val wtdDecay = wtdDecayRoundedFull(WS + 1 downto 1)
      val wtdSum = s.wtd.resize(WS + 1) - wtdDecay +
        Mux(ecn, U(1 << WS, WS + 1 bits) >> csr.wtdShift, U(0, WS + 1 bits))
      val wtd1 = satTo(wtdSum, U((1 << WS) - 1, WS bits), WS)
      val canDecrease = !csr.wtdEnable || wtd1 >= (csr.wtdThreshold @@ U(0, WS - wtdFrac bits)) // line 12
      val adapt = expired && s.triggerQa && s.qaStarted                 // Alg. 2 line 4
      val c1 = Mux(adapt, qaValue(acked1, "e_ack"), s.cwnd)
      val clean = close && !ecn                                         // Alg. 3 line 2
      val count1 = Mux(clean, satAdd(s.fiCount, sizeBytes, byteMax), U(0, B bits))
      val fast = clean && (count1 > c1(cfg.cwndWidth - 1 downto F) || s.fiActive) // Alg. 3 line 4
      val c2 = Mux(fast, satAdd(c1, derived.fastIncreaseStep, cwndMax), c1)

      // Lines 19-27 from the stored window: 1/cwnd from the table.
      val (cwndRecip, cwndMsb) = reciprocal(s.cwnd, "e_cwndRecip")
      val incShift = (U(V, 6 bits) + cwndMsb.resize(6) - (2 * F - gainFrac)).resize(6)
      val fdFull = s.cwnd * kFd                                                          // Eq. 1
      val fdTerm = fdFull(fdFull.getWidth - 1 downto 30)
      val incFi = (numFi * cwndRecip) >> incShift                                        // Eq. 3
      val incMiFull = (numMi * cwndRecip) >> incShift                                     // Eq. 4
      val incMi = satTo(incMiFull, sizeFixed, cfg.cwndWidth)
      val mdDecrease = (mdTerm.resize(cfg.cwndWidth + 1) + fdTerm).min((mtu << F).resize(cfg.cwndWidth + 1)) // Eq. 2 + FD, <= MTU
      val cases = UInt(cfg.cwndWidth bits)
      when(ecn) {
        when(!canDecrease) {
          cases := s.cwnd
        } elsewhen (!above) {
          cases := satSub(s.cwnd, fdTerm)
        } otherwise {
          cases := satSub(s.cwnd, mdDecrease)
        }
      } otherwise {
        when(above) {
          cases := satAdd(s.cwnd, incFi, cwndMax)
        } otherwise {
          cases := satAdd(s.cwnd, incMi.resize(incFi.getWidth + 1) + incFi.resize(incFi.getWidth + 1), cwndMax)
        }
      }
    }

    // NACK / timeout: Alg. 1 lines 28-34.
    val loss = new Area {
      val ignore1 = satSub(s.ignoreBytes, sizeBytes)
      val callQa = ignore1 === 0                                        // line 32
      val adapt = callQa && expired && s.qaStarted
    }

    val initState = SmarttFlowState(cfg)
    initState.assignFromBits(spinal.core.B(0, initState.getBitsWidth bits))
    initState.cwnd.allowOverride()
    initState.cwnd := (csr.initCwnd << F).resize(cfg.cwndWidth).min(derived.cwndHigh).max(derived.cwndLow)

    when(isInit) {
      next := initState
      preClamp := initState.cwnd
      rule := Smartt.Rule.INIT
    } elsewhen (isAck) {
      next.acked := ack.acked1
      next.ignoreBytes := ack.ignore1
      when(ack.ignoring) {
        rule := Smartt.Rule.IGNORED
      } otherwise {
        next.wtd := ack.wtd1
        when(ack.adapt) {
          next.triggerQa := False
          next.ignoreBytes := inFlight
        }
        when(expired) {
          next.qaEnd := qaDeadline
          next.qaStarted := True
          next.acked := 0
        }
        next.fiCount := ack.count1
        next.fiActive := ack.fast
        quickAdapt := ack.adapt
        fastIncrease := ack.fast
        when(ack.adapt || ack.fast) {                                   // lines 15-16
          preClamp := ack.c2
          rule := Mux(ack.adapt, U(Smartt.Rule.QUICK_ADAPT, 4 bits), U(Smartt.Rule.FAST_INCREASE, 4 bits))
        } otherwise {
          preClamp := ack.cases
          when(ecn) {
            when(!ack.canDecrease) {
              rule := Smartt.Rule.HELD; held := True
            } elsewhen (!above) {
              rule := Smartt.Rule.FAIR_DECREASE; fd := True
            } otherwise {
              rule := Smartt.Rule.MULTIPLICATIVE_DECREASE; mdCase := True
            }
          } otherwise {
            when(above) {
              rule := Smartt.Rule.FAIR_INCREASE; fiCase := True
            } otherwise {
              rule := Smartt.Rule.MULTIPLICATIVE_INCREASE; miCase := True
            }
          }
        }
      }
    } otherwise {
      next.triggerQa := True                                            // line 30
      next.ignoreBytes := loss.ignore1
      preClamp := satSub(s.cwnd, sizeFixed)                             // line 29
      when(loss.adapt) {
        preClamp := qaValue(s.acked, "e_loss")
        next.triggerQa := False
        next.ignoreBytes := inFlight
        rule := Smartt.Rule.QUICK_ADAPT
        quickAdapt := True
      }
      when(loss.callQa && expired) {
        next.qaEnd := qaDeadline
        next.qaStarted := True
        next.acked := 0
      }
    }
    // Alg. 1 line 36: cwnd = max(min(cwnd, max), mtu); the MTU wins if MAX_CWND < MTU.
    val clampedHigh = preClamp > derived.cwndHigh
    val clampedLow = preClamp.min(derived.cwndHigh) < derived.cwndLow
    next.cwnd := preClamp.min(derived.cwndHigh).max(derived.cwndLow)

    val write = ok
    lastWrite.valid := write
    lastWrite.addr := addr
    lastWrite.state := next
  }
  val ramWrite = new Area {
    val addr = Mux(sweep.active, sweep.addr, e.addr)
    val state = Mux(sweep.active, e.initState, e.next)
    val enable = sweep.active || e.write
    val cwndBytes = state.cwnd(cfg.cwndWidth - 1 downto F)
  }
  stateRam.write(ramWrite.addr, ramWrite.state, ramWrite.enable)
  cwndRam.write(ramWrite.addr, ramWrite.cwndBytes, ramWrite.enable)

  // ---------------------------------------------------------- outputs
  io.update.valid := RegNext(e.ok) init (False)
  io.update.flow := RegNext(e.flow)
  io.update.cwnd := RegNext(e.next.cwnd(cfg.cwndWidth - 1 downto F))
  io.update.rule := RegNext(e.rule)
  io.retransmit.valid := RegNext(e.ok && !e.isAck && !e.isInit) init (False)
  io.retransmit.flow := io.update.flow
  io.retransmit.timeout := RegNext(e.kind === 2)

  io.cwndReply.valid := RegNext(io.cwndQuery.valid) init (False)
  io.cwndReply.flow := RegNext(io.cwndQuery.payload)
  io.cwndReply.cwnd := cwndRam.readSync(addrOf(io.cwndQuery.payload))

  // ---------------------------------------------------------- counters
  val stats = new Area {
    import CsrCounters.count
    private val ok = e.ok
    private val measured = ok && !e.isInit
    count(csr.EVENTS, ok)
    count(csr.ACKS, ok && e.isAck)
    count(csr.NACKS, ok && e.kind === 1)
    count(csr.TIMEOUTS, ok && e.kind === 2)
    count(csr.INITS, ok && e.isInit)
    count(csr.FAIR_DECREASES, ok && e.fd)
    count(csr.MULTIPLICATIVE_DECREASES, ok && e.mdCase)
    count(csr.FAIR_INCREASES, ok && e.fiCase)
    count(csr.MULTIPLICATIVE_INCREASES, ok && e.miCase)
    count(csr.QUICK_ADAPTS, ok && e.quickAdapt)
    count(csr.FAST_INCREASES, ok && e.fastIncrease)
    count(csr.IGNORED, ok && e.isAck && e.ack.ignoring)
    count(csr.WTD_HELD, ok && e.held)
    count(csr.OUT_OF_RANGE, e.valid && !e.inRange)
    count(csr.RTT_ZERO, ok && e.isAck && e.rttZero)
    count(csr.RTT_BELOW_BASE, ok && e.isAck && !e.rttZero && e.rttBelow)
    count(csr.SIZE_ZERO, measured && e.size === 0)
    count(csr.SIZE_OVER_MTU, measured && e.sizeOver)
    count(csr.CLAMPED_MIN, measured && e.clampedLow)
    count(csr.CLAMPED_MAX, measured && e.clampedHigh && !e.clampedLow)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_smartt_regs", "SMARTT")
}
