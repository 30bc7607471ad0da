// SPDX-License-Identifier: Apache-2.0
package uehw.hw.dart

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

/**
 * Generation parameters of DASR's sender-side pacer (dart.txt Sec. III-A: a flow sends at
 * line rate / n).
 *
 * @param flows       F, flows paced (state in block RAM)
 * @param flowIdWidth width of the flow-id input (ids >= F are counted and ignored)
 * @param byteTime    reset value of BYTE_TIME: ns per byte at line rate x 2^16 (100 Gb/s: 0.08 ns, 5243)
 */
case class DasrLimiterConfig(flows: Int = 1024, flowIdWidth: Int = 16, byteTime: Long = 5243) {
  ParamCheck(flows >= 2 && flows <= 65536, "flows", s"$flows is outside 2..65536")
  ParamCheck(flowIdWidth >= log2Up(flows) && flowIdWidth <= 24, "flow-id-width",
    s"$flowIdWidth must be in ${log2Up(flows)}..24 for $flows flows")
  ParamCheck(byteTime >= 0 && byteTime < (1L << 24), "byte-time", s"$byteTime must be in 0..2^24-1")
  val flowAddrWidth: Int = log2Up(flows)
  /** Bits per flow: n (16) and the next time (40). */
  def stateBitsPerFlow: Int = 16 + DasrLimiter.timeBits
}

object DasrLimiterConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("flows", "1024", "F, flows paced (n and the next time per flow, in block RAM)", 2, 65536),
    ParamSpec("flow-id-width", "16", "width of the flow-id input; ids >= F are counted and ignored", 1, 24, rangeText = "log2(flows)..24"),
    ParamSpec("byte-time", "5243", "reset value of BYTE_TIME, ns per byte at line rate x 2^16: 100 Gb/s is 0.08 ns (5243), 400 Gb/s 0.02 ns (1311), 800 Gb/s 0.01 ns (655)", 0, (1L << 24) - 1, rangeText = "0..2^24-1"))

  def fromParams(p: ParamValues): DasrLimiterConfig =
    DasrLimiterConfig(flows = p.int("flows"), flowIdWidth = p.int("flow-id-width"), byteTime = p.long("byte-time"))
}

/** One event: an ACK's n, a packet sent, or a query. */
case class DasrLimiterEvent(cfg: DasrLimiterConfig, withN: Boolean = true) extends Bundle {
  /** 0: ACK (n), 1: a packet was sent (bytes), 2: query; 3 is counted and ignored. */
  val kind = UInt(2 bits)
  val flow = UInt(cfg.flowIdWidth bits)
  /** ACK: the n it carried (0 acts as 1); not with the n port. */
  val n = if (withN) UInt(16 bits) else null
  /** Sent: the packet's bytes on the wire. */
  val bytes = UInt(16 bits)
}

/** The answer to a sent packet or a query. */
case class DasrLimiterAnswer(cfg: DasrLimiterConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** The flow may send now (after a sent packet: whether it may send another at once). */
  val eligible = Bool()
  /** The flow's next time, ns modulo 2^32 (0 for an id out of range). */
  val nextNs = UInt(32 bits)
}

/** An ACK's n on the n port (DasrLimiter with `nPort`). */
case class DasrLimiterN(cfg: DasrLimiterConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** The n it carried (0 acts as 1). */
  val n = UInt(16 bits)
}

class DasrLimiterIo(cfg: DasrLimiterConfig, nPort: Boolean) extends Bundle {
  val event = slave(Stream(DasrLimiterEvent(cfg, withN = !nPort)))
  /** With `nPort`: the ACKs' n, one a clock beside the events (sampled at edge u, it applies to events accepted from u + 1 on). */
  val nUpdate = if (nPort) slave(Flow(DasrLimiterN(cfg))) else null
  /** Free-running time in ns (modulo 2^32), sampled when an event is accepted. */
  val now = in(UInt(32 bits))
  /** One answer per sent or query event, in order, `DasrLimiter.latency` edges after it was accepted. */
  val answer = master(Flow(DasrLimiterAnswer(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low during the post-reset sweep (F clocks). */
  val initDone = out(Bool())
}

object DasrLimiter {
  /** The pacer's times: ns x 2^-8 modulo 2^40. */
  val timeBits = 40
  val gapMax: BigInt = (BigInt(1) << 32) - 1
  /** Clock edges from an event's acceptance to its answer. */
  val latency = 8
  /** Event kinds; 3 is not one (counted in BAD_KIND, no effect, no answer). */
  object Kind { val ACK = 0; val SENT = 1; val QUERY = 2; val BAD = 3 }
}

/**
 * DASR's sender side, one event per clock: per flow the last n its ACKs carried and the time its
 * next packet may go, a packet of b bytes moving it to max(now, next) + n x b x BYTE_TIME. The
 * rules are uehw.model.dart.DasrLimiterModel's, bit for bit. Stages: accept (n read), B (n, the ACK
 * in M1 forwarded; an ACK writes its n), M1 (n x bytes), M2 (x BYTE_TIME, four DSP products), MP
 * (the products' second register, the DSPs' P; the next time read), M3 (the gap), U (the next
 * time, the flow's sent packets in W, W1, W2 forwarded), V (written; the answer's eligibility),
 * out (the answer). With `nPort` (inside the NIC engine, where a grant and an ACK can come at one
 * clock) the n comes on a port of its own, written as an ACK event accepted at its edge would be;
 * an ACK event is then not a kind (BAD_KIND).
 */
class DasrLimiter(val cfg: DasrLimiterConfig, val nPort: Boolean) extends Component with RegisterDocs {
  /** The block as generated: ACKs as events. */
  def this(cfg: DasrLimiterConfig) = this(cfg, false)
  val io = new DasrLimiterIo(cfg, nPort)
  setDefinitionName("uehw_dasr_limiter")
  AxiLite4SpecRenamer(io.ctrl)
  import DasrLimiter.{timeBits => TB}
  private val F = cfg.flows
  private val A = cfg.flowAddrWidth

  val csr = new Area {
    // INFO (0x00) and VERSION (0xFC) from the shared prologue; this block's registers at fixed
    // addresses after them.
    val busif = CsrBank(io.ctrl, "DASRL", 0x4C, "Block id 0x4C ('L', limiter)",
      InfoField("FLOW_ID_BITS", 8, cfg.flowIdWidth, "Flow id bits"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)

    RegisterDocs.constField(reg("FLOWS", 0x04, "F (read-only)"), Bits(17 bits), BigInt(F), "Flows", "VALUE")
    val byteTime = reg("BYTE_TIME", 0x08, "ns per byte at line rate x 2^16 (100 Gb/s: 5243; 800 Gb/s: 655)")
      .field(UInt(24 bits), AccessType.RW, cfg.byteTime, doc = "u8.16 ns")(SymbolName("VALUE"))
    private val status = reg("STATUS", 0x0C, "Status")
    val statusInitDone = status.field(Bool(), AccessType.RO, doc = "Post-reset sweep finished")(SymbolName("INIT_DONE"))
    private val counters = new CsrCounters(busif, 0x40)
    import counters.counter
    val ACKS = counter("ACK events")
    val SENTS = counter("Sent-packet events")
    val QUERIES = counter("Query events")
    val ELIGIBLE_QUERIES = counter("Queries answered eligible")
    val OUT_OF_RANGE = counter("Events with a flow id >= F (ignored; answered not eligible, next 0)")
    val N_ZERO = counter("ACKs with n = 0 (taken as 1)")
    val GAP_SATURATED = counter("Sent packets whose gap n x bytes x BYTE_TIME saturated at 2^32 - 1 (16.7 ms)")
    val BAD_KIND = counter("Events of kind 3 (no effect, no answer)")
  }

  val sweep = new ResetSweep(F, A)
  io.initDone := !sweep.active
  csr.statusInitDone := !sweep.active

  val nRam = Mem(UInt(16 bits), F)
  private def inRangeOf(flow: UInt): Bool = if (isPow2(F) && cfg.flowIdWidth == A) True else flow < F

  /** An event as it moves down the pipeline. */
  case class Ev() extends Bundle {
    val valid = Bool()
    val kind = UInt(2 bits)
    val flow = UInt(cfg.flowIdWidth bits)
    val inRange = Bool()
    /** An ACK event's n (not with the n port, where an ACK event is not a kind). */
    val n = if (nPort) null else UInt(16 bits)
    val nZero = if (nPort) null else Bool()
    val bytes = UInt(16 bits)
    val now = UInt(TB bits)   // ns x 2^-8
  }

  /** What an event carries once its n and bytes are in the products (M2 on). */
  case class Tag() extends Bundle {
    val valid = Bool()
    val kind = UInt(2 bits)
    val flow = UInt(cfg.flowIdWidth bits)
    val inRange = Bool()
    val nZero = if (nPort) null else Bool()
    val now = UInt(TB bits)
  }
  private def tagOf(e: Ev): Tag = {
    val t = Tag()
    t.valid := e.valid; t.kind := e.kind; t.flow := e.flow; t.inRange := e.inRange; t.now := e.now
    if (!nPort) t.nZero := e.nZero
    t
  }

  val accept = new Area {
    val ready = RegNext(!sweep.active) init (False)
    io.event.ready := ready
    val fire = io.event.fire
    val nRead = nRam.readSync(io.event.flow.resize(A), fire)
  }

  val b = new Area {
    val ev = Reg(Ev())
    ev.valid init (False)
    ev.valid := accept.fire
    when(accept.fire) {
      ev.kind := io.event.kind; ev.flow := io.event.flow; ev.inRange := inRangeOf(io.event.flow)
      if (!nPort) { ev.n := io.event.n.max(1); ev.nZero := io.event.n === 0 }
      ev.bytes := io.event.bytes; ev.now := (io.now @@ U(0, 8 bits)).resize(TB)
    }
    val isAck = if (nPort) null else ev.valid && ev.kind === DasrLimiter.Kind.ACK && ev.inRange
  }

  /** With `nPort`: the n port's update registered, where an ACK event accepted at its edge would be (B). */
  val nIn = nPort generate new Area {
    val valid = RegNext(io.nUpdate.valid) init (False)
    val flow = RegNext(io.nUpdate.flow)
    val n = RegNext(io.nUpdate.n.max(1))
    val nZero = RegNext(io.nUpdate.n === 0)
    val inRange = RegNext(inRangeOf(io.nUpdate.flow))
  }
  /** The n write of this clock: an ACK in B, or the n port's update. */
  val nWrite = new Area {
    val enable = if (nPort) nIn.valid && nIn.inRange else b.isAck
    val flow = if (nPort) nIn.flow else b.ev.flow
    val n = if (nPort) nIn.n else b.ev.n
    sweep.write(nRam, flow.resize(A), n, enable, init = U(1, 16 bits))
  }

  val m1 = new Area {
    val ev = RegNext(b.ev); ev.valid init (False)
    val nWritten = RegNext(nWrite.enable) init (False)   // an n written at the read's clock
    // (without the n port the ACK's own registers: the event in M1)
    val nFlow = if (nPort) RegNext(nWrite.flow) else ev.flow
    val n = if (nPort) RegNext(nWrite.n) else ev.n
  }
  /** B's n: the read, or the n written at the read's clock when it is of the same flow. */
  private val nOfB = Mux(m1.nWritten && m1.nFlow === b.ev.flow, m1.n, accept.nRead)

  val m2 = new Area {
    val ev = RegNext(tagOf(m1.ev)); ev.valid init (False)
    val nBytes = RegNext(RegNext(nOfB) * m1.ev.bytes)        // n x bytes (one DSP)
  }
  // x BYTE_TIME: 32 x 24 bits as four DSP-sized products, each registered twice so that a DSP48E2
  // holds both registers (M and P) and the sum in M3 starts at a P register, not at M (a packed M
  // register alone leaves 1.6 ns of DSP before the sum: 4.97 ns).
  private val bt = csr.byteTime
  private val partials = Seq((m2.nBytes(15 downto 0), bt(16 downto 0), 0), (m2.nBytes(31 downto 16), bt(16 downto 0), 16),
    (m2.nBytes(15 downto 0), bt(23 downto 17), 17), (m2.nBytes(31 downto 16), bt(23 downto 17), 33))
    .map { case (x, y, shift) => (RegNext(RegNext(x * y)), shift) }

  val mp = new Area {
    val ev = RegNext(m2.ev); ev.valid init (False)
  }

  val m3 = new Area {
    val ev = RegNext(mp.ev); ev.valid init (False)
    val isSent = ev.valid && ev.kind === DasrLimiter.Kind.SENT && ev.inRange
    // The gap saturates when the sum reaches 2^40 (2^32 units of 2^-8 ns): some product has a bit at
    // or above 2^40, or the sum of the parts below 2^40 carries out. The first test runs beside the
    // 40-bit sum, so only its carry and one select follow the carry chain.
    private val partsFull = Vec(partials.map { case (p, shift) => p.resize(57) |<< shift })
    private val lowFull = partsFull.map(_(39 downto 0).resize(42)).reduce(_ + _)   // its 8 low bits are below 1 unit
    private val high = partsFull.map(_(56 downto 40) =/= 0).orR
    val saturated = high || lowFull(41 downto 40) =/= 0
    val gap = Mux(saturated, U(DasrLimiter.gapMax, 32 bits), lowFull(39 downto 8))
  }

  /**
   * A next time has passed when it is 0 ahead of now, or more than 2^32 ahead (a time left before
   * the clock wrapped): then now - next (modulo 2^40) is below 2^40 - 2^32, its top 8 bits not all ones.
   */
  private var passedTests = 0
  private def passed(next: UInt, now: UInt): Bool = {
    passedTests += 1
    val behindFull = CombInit(now - next).setName(s"behind${passedTests}Full")   // only its top 8 bits are used
    !behindFull(TB - 1 downto 32).andR
  }

  /**
   * Each flow's next time (ns x 2^-8): a keyed read-modify-write loop (KeyedStateLoop) read in MP
   * (its stage 0), the sent packets two and three ahead (then in W and one past it) forwarded in
   * M3, the one ahead (in W) in U (stage 2), written from W (stage 3); the sweep writes 0.
   */
  val nextTime = new KeyedStateLoop(UInt(TB bits), F, A, 3, 1, sweep,
    key = mp.ev.flow.resize(A), twoBeforeW = KeyedOp(m3.isSent, m3.ev.flow.resize(A)))

  /**
   * U: the next time max(now, next) + gap, the loop of a flow's back-to-back packets in one clock:
   * next + gap and next - now side by side on each candidate of the forwarding, now + gap from M3,
   * then one pick.
   */
  val u = new Area {
    val ev = RegNext(m3.ev); ev.valid init (False)
    val gap = RegNext(m3.gap)
    val saturated = RegNext(m3.saturated)
    private val fromNow = ev.now + gap                      // the start is now (beside the loop)
    val isSent = ev.valid && ev.kind === DasrLimiter.Kind.SENT && ev.inRange
    val stored = nextTime.read.state
    val canGo = nextTime.read.stateOf(x => passed(x, ev.now))
    private val updated = Mux(canGo, fromNow, nextTime.read.stateOf(x => x + gap))
    nextTime.write(isSent, ev.flow.resize(A), updated, init = U(0, TB bits))
    /** What U wrote (W): the flag and the next time. */
    def w = nextTime.written
  }

  /** V: the answer (a sent packet's eligibility is its new next time against now). */
  val v = new Area {
    val valid = RegNext(u.ev.valid) init (False)
    val kind = RegNext(u.ev.kind); val flow = RegNext(u.ev.flow); val inRange = RegNext(u.ev.inRange)
    val now = RegNext(u.ev.now)
    val sent = RegNext(u.isSent) init (False)
    val stored = RegNext(u.stored)
    val canGo = RegNext(u.canGo)
    val sentEligible = passed(u.w.state, now)
    private val nextFull = Mux(sent, u.w.state, stored)
    val nextNs = nextFull(TB - 1 downto 8)
  }

  val out = new Area {
    val valid = RegNext(v.valid) init (False)
    val kind = RegNext(v.kind); val flow = RegNext(v.flow); val inRange = RegNext(v.inRange)
    val nZero = if (nPort) null else RegNext(RegNext(u.ev.nZero))
    val eligible = RegNext(v.inRange && Mux(v.sent, v.sentEligible, v.canGo))
    val nextNs = RegNext(Mux(v.inRange, v.nextNs, U(0, 32 bits)))
    val saturated = RegNext(RegNext(u.saturated))
    io.answer.valid := valid && (kind === DasrLimiter.Kind.SENT || kind === DasrLimiter.Kind.QUERY)
    io.answer.flow := flow
    io.answer.eligible := eligible
    io.answer.nextNs := nextNs
  }

  val stats = new Area {
    import CsrCounters.count
    import out.{valid, kind, inRange}
    private def is(k: Int) = valid && kind === k
    /** With `nPort`, an ACK event is not a kind; the n port's updates count as ACKs, one clock after their edge. */
    private val ackKindBad = if (nPort) is(DasrLimiter.Kind.ACK) else False
    if (nPort) {
      count(csr.ACKS, nIn.valid)
      count(csr.N_ZERO, nIn.valid && nIn.inRange && nIn.nZero)
    } else count(csr.ACKS, is(DasrLimiter.Kind.ACK))
    count(csr.SENTS, is(DasrLimiter.Kind.SENT))
    count(csr.QUERIES, is(DasrLimiter.Kind.QUERY))
    count(csr.ELIGIBLE_QUERIES, is(DasrLimiter.Kind.QUERY) && out.eligible)
    private val eventOutOfRange = valid && !inRange && kind =/= DasrLimiter.Kind.BAD && !ackKindBad
    if (nPort) CsrCounters.add(csr.OUT_OF_RANGE, eventOutOfRange.asUInt +^ (nIn.valid && !nIn.inRange).asUInt)
    else count(csr.OUT_OF_RANGE, eventOutOfRange)
    if (!nPort) count(csr.N_ZERO, is(DasrLimiter.Kind.ACK) && inRange && out.nZero)
    count(csr.BAD_KIND, is(DasrLimiter.Kind.BAD) || ackKindBad)
    count(csr.GAP_SATURATED, is(DasrLimiter.Kind.SENT) && inRange && out.saturated)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_dasr_limiter_regs", "DASRL")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "DASRL"
}
