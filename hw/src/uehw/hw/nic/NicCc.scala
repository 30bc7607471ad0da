// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite.{AxiLite4, AxiLite4Config, AxiLite4SpecRenamer}
import spinal.lib.bus.amba4.axis.Axi4Stream.Axi4StreamBundle
import spinal.lib.bus.regif.{AccessType, BusIf, SymbolName}
import uehw.hw.common._
import uehw.hw.common.{PacketFormat => PF}
import uehw.hw.dart.{DasrLimiter, DasrLimiterConfig}
import uehw.hw.nscc.NsccConfig
import uehw.hw.reps.{Reps, RepsAck, RepsConfig, RepsFailure, RepsMode}
import uehw.hw.smartt.SmarttConfig
import uehw.hw.swift.SwiftConfig
import uehw.hw.trim.TrimQueue
import uehw.hw.window.WindowEvent

/**
 * The NIC congestion-management engine (docs/nic-engine.md, "The engine").
 *
 * @param dataBytes   bytes of the control-frame bus (8..64)
 * @param flows       flows, a multiple of 32 in 64..4096
 * @param flowIdWidth width of the doorbell's flow id (ids >= flows are counted and dropped)
 * @param law         the window law: "nscc", "smartt" or "swift" (NicCcLaw)
 * @param credit      grants need credit (RCCC on): PULLs give it
 * @param lawFifo   control events held for the law (its same-flow spacing); an ACK without room bypasses it
 * @param pullBytes bytes one unit of a PULL's cumulative number is worth: the reference counts pulls
 *                  in quanta of 256 B (uec.cpp:33-36, 3044-3059)
 * @param linkGbps, mtu, networkRttPs what the law's CSR reset values are derived for (NsccConfig)
 * @param lb          the load balancing that gives each grant its entropy: "none", or a REPS mode
 *                    ("reps", "reps-lite", "ops"; docs/reps.md)
 * @param pacing      "none", or "dasr": DASR's limiter times each grant, a flow granted again once its
 *                    pacing time has come (dart.txt Sec. III-A; docs/dasr-limiter.md)
 * @param messageEnds message ends a flow may hold that its grants have not reached (1, 2 or 4; 0: doorbells
 *                    and grants without message boundaries); a `last` doorbell beyond them waits
 */
case class NicCcConfig(dataBytes: Int = 64, flows: Int = 1024, flowIdWidth: Int = 16, law: String = "nscc", credit: Boolean = false, lawFifo: Int = 64,
                       pullBytes: Int = 256, linkGbps: Int = 100, mtu: Int = 4150, networkRttPs: Long = 14022720L,
                       lb: String = "none", pacing: String = "none", messageEnds: Int = 2) {
  ParamCheck(NicCcConfig.laws.contains(law), "law", s"'$law' is not one of ${NicCcConfig.laws.mkString(", ")}")
  ParamCheck(NicCcConfig.lbs.contains(lb), "lb", s"'$lb' is not one of ${NicCcConfig.lbs.mkString(", ")}")
  ParamCheck(NicCcConfig.pacings.contains(pacing), "pacing", s"'$pacing' is not one of ${NicCcConfig.pacings.mkString(", ")}")
  /** With the default message ends (Java callers: Scala's defaults are not theirs). */
  def this(dataBytes: Int, flows: Int, flowIdWidth: Int, law: String, credit: Boolean, lawFifo: Int, pullBytes: Int, linkGbps: Int,
           mtu: Int, networkRttPs: Long, lb: String, pacing: String) =
    this(dataBytes, flows, flowIdWidth, law, credit, lawFifo, pullBytes, linkGbps, mtu, networkRttPs, lb, pacing, 2)
  /** Without pacing (Java callers). */
  def this(dataBytes: Int, flows: Int, flowIdWidth: Int, law: String, credit: Boolean, lawFifo: Int, pullBytes: Int, linkGbps: Int,
           mtu: Int, networkRttPs: Long, lb: String) = this(dataBytes, flows, flowIdWidth, law, credit, lawFifo, pullBytes, linkGbps, mtu, networkRttPs, lb, "none")
  /** Without load balancing (Java callers: Scala's defaults are not theirs). */
  def this(dataBytes: Int, flows: Int, flowIdWidth: Int, law: String, credit: Boolean, lawFifo: Int, pullBytes: Int, linkGbps: Int,
           mtu: Int, networkRttPs: Long) = this(dataBytes, flows, flowIdWidth, law, credit, lawFifo, pullBytes, linkGbps, mtu, networkRttPs, "none")
  ParamCheck(lawFifo >= 16 && lawFifo <= 1024 && isPow2(lawFifo), "law-fifo", s"$lawFifo must be a power of two in 16..1024")
  ParamCheck(mtu > 64 + 1 && mtu - 64 <= 65535, "mtu", s"$mtu leaves no payload after the 64 header bytes, or more than 65535")
  ParamCheck(pullBytes >= 1 && pullBytes <= 65536 && isPow2(pullBytes), "pull-bytes", s"$pullBytes must be a power of two in 1..65536")
  val rx: NicCcRxConfig = NicCcRxConfig(dataBytes, flows)
  /** DASR's pacing (the limiter behind the grants). */
  val paced: Boolean = pacing == "dasr"
  val flowState: NicCcFlowsConfig = NicCcFlowsConfig(flows, credit, pacing = paced, messageEnds = messageEnds)
  /** Doorbells and grants carry message boundaries. */
  val messages: Boolean = flowState.messages
  /** The limiter's: BYTE_TIME's reset value from the link speed (ns a byte x 2^16, rounded: 100 Gb/s 5243). */
  def dasr: DasrLimiterConfig = DasrLimiterConfig(flows, log2Up(flows), (8L * 65536 + linkGbps / 2) / linkGbps)
  val nscc: NsccConfig = NsccConfig(flows, log2Up(flows), linkGbps, mtu, networkRttPs)
  /** SMaRTT's sizes at their defaults, its MTU and BDP from the engine's (base RTT: the network RTT). */
  def smartt: SmarttConfig = SmarttConfig(flows, log2Up(flows), mtu = mtu, linkGbps = linkGbps, baseRttNs = scala.math.max(1L, networkRttPs / 1000))
  def swift: SwiftConfig = SwiftConfig(flows, log2Up(flows))
  if (law == "smartt") smartt   // its own parameter checks, at generation
  /** Swift's acked (u6.7 packets) = floor(min(bytes, 2^packetsCapBits - 1) x packetsRecip / 2^packetsShift) < 2^13. */
  val packetsCapBits: Int = log2Up(64L * mtu) - 1
  val packetsShift: Int = log2Up(mtu + 1) - 1 + 9
  val packetsRecip: Long = (1L << (packetsShift + 7)) / mtu
  ParamCheck(flowIdWidth >= log2Up(flows) && flowIdWidth <= 24, "flow-id-width", s"$flowIdWidth must be in ${log2Up(flows)}..24 for $flows flows")
  /** The width of the flow ids inside the engine and on its outputs. */
  val flowBits: Int = log2Up(flows)
  /** Grants carry an entropy (REPS in mode `lb`). */
  val withLb: Boolean = lb != "none"
  /** REPS for the grants: a connection a flow, its other parameters at their defaults. */
  def reps: RepsConfig = RepsConfig(mode = lb, connections = flows, connIdWidth = flowBits)
  /** REPS recycles the echoed entropy of ACKs (every mode but ops). */
  val echoesEntropy: Boolean = withLb && reps.usesAckEv
  if (withLb) reps
}

object NicCcConfig {
  val laws: Seq[String] = Seq("nscc", "smartt", "swift")
  val lbs: Seq[String] = "none" +: RepsMode.all
  val pacings: Seq[String] = Seq("none", "dasr")
  /** RTO's reset value: the reference's fixed RTO at 100 Gb/s, 100.656 us (main_uec.cpp:695; ../shared/references/uet-nscc-rccc.md). */
  val rtoResetNs: Long = 100656L
  /** Registers between the law's window and the op merge: a window op is sampled this many edges after the law's window. */
  val windowToOp: Int = 1
  /** PACE_LEAD's reset value: 32 clocks at 250 MHz, a flow alone's way from its time to its next sent event (22) and some wait for its look (docs/nic-engine.md, "Pacing"). */
  val paceLeadResetNs: Int = 128
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("data-bytes", "64", "bytes per beat of the control-frame AXI4-Stream: 64, 128, 256 or 512 bits", 8, 64, powerOfTwo = true),
    ParamSpec("flows", "1024", "flows (a multiple of 32)", 64, 4096),
    ParamSpec("flow-id-width", "16", "width of the doorbell's flow id (ids >= flows are counted and dropped)", 6, 24, rangeText = "log2(flows)..24"),
    ParamSpec("law", "nscc", "the window law", choices = laws),
    ParamSpec("credit", "false", "grants need credit (RCCC): PULLs give it", choices = Seq("false", "true")),
    ParamSpec("law-fifo", "64", "control events waiting for the law; an ACK without room bypasses it", 16, 1024, powerOfTwo = true),
    ParamSpec("pull-bytes", "256", "bytes one unit of a PULL's cumulative number is worth (the reference's quantum)", 1, 65536, powerOfTwo = true),
    ParamSpec("link-gbps", "100", "link speed the law's CSR reset values are derived for (Gb/s)", 1, 1600),
    ParamSpec("mtu", "4150", "wire MTU, header included (bytes): the law's MTU and MSS's reset value (MTU - 64)", 66, 65535),
    ParamSpec("network-rtt-ps", "14022720", "network RTT the law's reset values are derived for (ps)", 1000, 16000000000L),
    ParamSpec("lb", "none", "the load balancing that gives each grant its entropy (REPS's modes)", choices = lbs),
    ParamSpec("pacing", "none", "dasr: DASR's limiter paces each flow at line rate / n, n from its ACKs", choices = pacings),
    ParamSpec("message-ends", "2", "message ends a flow holds ahead of its grants (a last doorbell beyond them waits); 0: no message boundaries",
      choices = Seq("0", "1", "2", "4")))

  def fromParams(p: ParamValues): NicCcConfig = NicCcConfig(dataBytes = p.int("data-bytes"), flows = p.int("flows"),
    flowIdWidth = p.int("flow-id-width"), law = p.string("law"),
    credit = p.string("credit") == "true", lawFifo = p.int("law-fifo"), pullBytes = p.int("pull-bytes"),
    linkGbps = p.int("link-gbps"), mtu = p.int("mtu"), networkRttPs = p.long("network-rtt-ps"), lb = p.string("lb"),
    pacing = p.string("pacing"), messageEnds = p.string("message-ends").toInt)
}

/** A doorbell: payload bytes queued on a flow; `start` starts the flow (the law's INIT gives its first window). */
case class NicCcDoorbell(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val bytes = UInt(NicCcFlows.counterBits bits)
  val start = Bool()
  /** With message boundaries: these bytes end a message (0 bytes: the message ends where the queue is). */
  val last = if (cfg.messages) Bool() else null
}

/** A doorbell as the op merge takes it: the flow id cut to the engine's width (its range checked before). */
case class NicCcDoorbellIn(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowBits bits)
  val bytes = UInt(NicCcFlows.counterBits bits)
  val start = Bool()
  val last = if (cfg.messages) Bool() else null
}

object NicCcDoorbellIn {
  def apply(cfg: NicCcConfig, d: NicCcDoorbell): NicCcDoorbellIn = {
    val i = NicCcDoorbellIn(cfg)
    i.flow := d.flow.resize(cfg.flowBits)
    i.bytes := d.bytes
    i.start := d.start
    if (cfg.messages) i.last := d.last
    i
  }
}

/** A grant on the engine's port: the flow state's, with its entropy when `lb` is on. */
case class NicCcGrantOut(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowBits bits)
  /** The PSN of a new packet (the flow's count of new packets granted, mod 2^32); a resend's is the flow's next new PSN. */
  val psn = UInt(32 bits)
  /** Payload bytes: min(what is queued, MSS); a resend: min(the resend bytes left, MSS). */
  val bytes = UInt(NicCcFlows.bytesBits bits)
  /** The packet resends NACKed or timed-out bytes (the transport picks them from its own queue). */
  val resend = Bool()
  /** The entropy to stamp (REPS's EV for the flow's connection): with `lb` only. */
  val entropy = if (cfg.withLb) UInt(cfg.reps.evWidth bits) else null
  /** With message boundaries: a new packet that ends its message (its bytes stop at the end; an empty message's has 0). */
  val last = if (cfg.messages) Bool() else null
}

/** A packet for the transport to send again: the NACKed packet's PSN, or (timeout) the flow's oldest unacknowledged packet. */
case class NicCcRetransmit(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowBits bits)
  /** The NACKed packet's PSN; 0 with timeout. */
  val psn = UInt(32 bits)
  /** A retransmission timeout: the transport resends the flow's oldest unacknowledged packet. */
  val timeout = Bool()
}

/** What the engine does with an accepted law event once the law has updated the window. */
case class NicCcSide() extends Bundle {
  val retired = UInt(NicCcFlows.counterBits bits)
  val resend = UInt(NicCcFlows.counterBits bits)
}

case class NicCcLawEntry(cfg: NicCcConfig, withPackets: Boolean) extends Bundle {
  val input = NicCcLawInput(cfg.flowBits, withPackets)
  val side = NicCcSide()
}

/** An op that does not wait for the law: a PULL's credit, or what a bypassing ACK or NACK retires and resends. */
case class NicCcDirect(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowBits bits)
  val credit = if (cfg.credit) UInt(NicCcFlows.counterBits bits) else null
  val retired = UInt(NicCcFlows.counterBits bits)
  val resend = UInt(NicCcFlows.counterBits bits)
}

class NicCcIo(cfg: NicCcConfig) extends Bundle {
  /** Control frames from the MAC: AXI4-Stream without tready (never waits; s_axis_t* in the Verilog). */
  val s_axis = slave(Flow(Axi4StreamBundle(TrimQueue.axisConfig(cfg.rx.ingress))))
  val doorbell = slave(Stream(NicCcDoorbell(cfg)))
  val grant = master(Stream(NicCcGrantOut(cfg)))
  /** NACKed packets to send again (a Flow: the transport takes one a clock). */
  val retransmit = master(Flow(NicCcRetransmit(cfg)))
  /** Free-running time in ns (the RTT's clock and the law's). */
  val now = in UInt (32 bits)
  /**
   * The engine's registers at 0x000-0x0FF, the law's at 0x100-0x1FF; with `lb` or `pacing`, REPS's at
   * 0x200-0x2FF and the DASR limiter's at 0x300-0x3FF, an absent one answering SLVERR (docs/nic-engine.md, "Registers").
   */
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = if (cfg.withLb || cfg.paced) 10 else 9, dataWidth = 32)))
  /** The post-reset sweeps are done (STATUS.INIT_DONE): doorbells and frames are taken from here on. */
  val initDone = out Bool ()
}

/**
 * Control frames in, grants out (docs/nic-engine.md, "The engine"): the receiver (NicCcRx), the
 * per-flow ACK state (last cumulative bytes, latest pull: a keyed read-modify-write), the law
 * (NSCC, behind a FIFO), its window updates paired with what the event retires and resends, and
 * the flow state (NicCcFlows) that grants.
 */
class NicCc(val cfg: NicCcConfig) extends Component with RegisterDocs {
  val io = new NicCcIo(cfg)
  setDefinitionName("uehw_nic_cc")
  AxiLite4SpecRenamer(io.ctrl)
  io.s_axis.valid.setName("s_axis_tvalid")
  io.s_axis.payload.data.setName("s_axis_tdata"); io.s_axis.payload.keep.setName("s_axis_tkeep")
  io.s_axis.payload.last.setName("s_axis_tlast"); io.s_axis.payload.user.setName("s_axis_tuser")
  private val N = cfg.flows
  private val A = cfg.flowBits
  private val W = NicCcFlows.counterBits

  /** The engine's map (0x000) and the law's (0x100) behind one port. */
  private val engineBus = AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32))
  private val lawBus = AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32))
  /** With `lb`: REPS's map at 0x200; with `pacing`: the limiter's at 0x300; an absent one answers SLVERR. */
  private val repsBus = (cfg.withLb || cfg.paced) generate AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32))
  private val pacerBus = (cfg.withLb || cfg.paced) generate AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32))
  val ctrlSplit = if (!cfg.withLb && !cfg.paced) new AxiLite4Split(io.ctrl, engineBus, lawBus) else new Area {
    private val low, high = AxiLite4(AxiLite4Config(addressWidth = 9, dataWidth = 32))
    val top = new AxiLite4Split(io.ctrl, low, high)
    val engineAndLaw = new AxiLite4Split(low, engineBus, lawBus)
    val repsAndPacer = new AxiLite4Split(high, repsBus, pacerBus)
    val noReps = !cfg.withLb generate new AxiLite4Unmapped(repsBus)
    val noPacer = !cfg.paced generate new AxiLite4Unmapped(pacerBus)
  }

  val csr = new Area {
    // INFO (0x00) and VERSION (0xFC) from the shared prologue; the engine's registers at fixed addresses.
    val busif = CsrBank(engineBus, "NICCC", 0x45, "Block id 0x45 ('E', engine)",
      InfoField("FLOW_ID_BITS", 8, cfg.flowIdWidth, "Doorbell flow id bits"),
      InfoField("DATA_BYTES", 8, cfg.dataBytes, "Bytes per beat of s_axis"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)
    RegisterDocs.constField(reg("FLOWS", 0x04, "Flows (read-only)"), Bits(13 bits), BigInt(N), "Flows", "VALUE")
    val udpPort = reg("UDP_PORT", 0x08, "The transport's UDP destination port: other frames are foreign")
      .field(UInt(16 bits), AccessType.RW, PF.TransportUdpPort, doc = "Port")(SymbolName("VALUE"))
    val mss = reg("MSS", 0x0C, "Payload bytes a packet carries at most (0 acts as 1; change it with no flow eligible)")
      .field(UInt(16 bits), AccessType.RW, cfg.mtu - 64, doc = "Bytes")(SymbolName("VALUE"))
    val overhead = reg("OVERHEAD", 0x10, "Wire bytes a packet adds to its payload (change it with no flow eligible)")
      .field(UInt(8 bits), AccessType.RW, 64, doc = "Bytes")(SymbolName("VALUE"))
    private val status = reg("STATUS", 0x14, "Status")
    val statusInitDone = status.field(Bool(), AccessType.RO, doc = "Post-reset sweeps finished")(SymbolName("INIT_DONE"))
    val rto = reg("RTO", 0x18, "Retransmission timeout: a flow with bytes in flight and no progress for this long resends its oldest packet; 0: none")
      .field(UInt(32 bits), AccessType.RW, NicCcConfig.rtoResetNs, doc = "ns")(SymbolName("VALUE"))
    /** With pacing: how long before its pacing time a flow is released (the release's way to the limiter's next event). */
    val paceLead = if (cfg.paced) reg("PACE_LEAD", 0x1C, "With pacing: a flow is released this long before its pacing time (its next grant reaches the limiter about then)")
      .field(UInt(16 bits), AccessType.RW, NicCcConfig.paceLeadResetNs, doc = "ns")(SymbolName("VALUE")) else null
    private val counters = new CsrCounters(busif, 0x40, oneReadMux = true)
    import counters.counter
    val FRAMES = counter("Control frames taken (ACK, NACK or PULL for a flow < N)")
    val FRAMES_BAD = counter("Frames with tuser set on a beat")
    val FRAMES_MALFORMED = counter("Frames with tkeep not all ones before the last beat or not contiguous on it")
    val FRAMES_OVERSIZE = counter("Frames longer than 128 bytes")
    val FRAMES_RUNT = counter("Frames shorter than their headers or than a control frame")
    val FRAMES_CHECKSUM = counter("IPv4 frames whose header checksum fails")
    val FRAMES_FOREIGN = counter("Frames not of the transport (not IP, a fragment, not UDP, another port or version)")
    val FRAMES_NOT_CONTROL = counter("Transport frames without ACK, NACK or PULL, or with TRIMMED")
    val FRAMES_BAD_FLAGS = counter("Frames with more than one of ACK, NACK, PULL")
    val FRAMES_OUT_OF_RANGE = counter("Frames for a flow id >= N")
    val ACKS = counter("ACKs taken")
    val NACKS = counter("NACKs taken (each gives a retransmit request)")
    val PULLS = counter("PULLs taken")
    val ACKS_BYPASSED = counter("ACKs the law did not see (its FIFO nearly full): their bytes retired at once")
    val NACKS_BYPASSED = counter("NACKs the law did not see (its FIFO full): their packet retired and resent at once")
    val DIRECT_DROPS = counter("Direct ops (PULL credit, a bypassing ACK's or NACK's bytes) dropped: the direct FIFO full")
    val DOORBELLS = counter("Doorbells taken")
    val GRANTS = counter("Grants taken on the grant port")
    val REFUSED = counter("Picks the grant path refused (a flow's state changed after its bit was set)")
    val DOORBELLS_OUT_OF_RANGE = counter("Doorbells for a flow id >= N (taken, no effect)")
    val BYTES = counter("Bytes of every frame on s_axis (tkeep's ones), taken or dropped; wraps at 2^32")
    val TIMEOUTS = counter("Retransmission timeouts applied (a flow's oldest packet retired and resent)")
    val LB_DROPS = if (cfg.withLb) counter("REPS feedback dropped: an ACK, NACK or timeout for REPS with its FIFO full") else { counters.skip(); null }
    val PACED = if (cfg.paced) counter("Grants whose flow then waited for its pacing time (more than PACE_LEAD ahead at the first look)") else { counters.skip(); null }
    val MESSAGES = if (cfg.messages) counter("Grants that end a message (last)") else null
    val ENDS_FULL = if (cfg.messages) counter("Clocks a last doorbell waited: its flow held message-ends ends its grants had not reached") else null
  }
  io.initDone := csr.statusInitDone

  val rx = new NicCcRx(cfg.rx)
  NicCcRx.connectBeats(rx.io.input, io.s_axis)
  rx.io.udpPort := csr.udpPort

  val flows = new NicCcFlows(cfg.flowState)
  // MSS 0 acts as 1 (a grant carries at least a byte), registered after the CSR
  flows.io.mss := RegNext(Mux(csr.mss === 0, U(1, 16 bits), csr.mss)) init (cfg.mtu - 64)
  flows.io.overhead := csr.overhead
  flows.io.now := io.now
  flows.io.rto := RegNext(csr.rto) init (NicCcConfig.rtoResetNs)
  /** Without `lb`, the flow state's grants as they are. */
  val plainGrants = !cfg.withLb generate new Area {
    io.grant.translateFrom(flows.io.grant) { (o, g) =>
      o.flow := g.flow
      o.psn := g.psn
      o.bytes := g.bytes
      o.resend := g.resend
      if (cfg.messages) o.last := g.last
    }
  }

  /**
   * The doorbell the op merge sees (its ready: taken at this edge, or dropped out of range). With
   * message boundaries a register holds it (doorbellGate); else it is io_doorbell itself.
   */
  val doorbellIn = new Area {
    val valid = Bool()
    val payload = NicCcDoorbellIn(cfg)
    val ready = Bool()
    /** A last doorbell whose flow's message ends are full, or not read yet. */
    val blocked = Bool()
    /** Its flow id is below `flows` (else it is taken at once, counted and has no effect). */
    val inRange = Bool()
  }
  private def flowInRange(flow: UInt): Bool = if (isPow2(N) && cfg.flowIdWidth == A) True else flow < N

  /** The law (NicCcLaw): its unit, how its event is made and its window read. */
  val lawPlug: NicCcLaw = NicCcLaw(cfg)
  val law = lawPlug.unit
  law.io.now := io.now
  law.io.ctrl <> lawBus
  law.io.cwndQuery.valid := False
  law.io.cwndQuery.payload := 0

  /** The law's events wait here (the law's same-flow spacing holds its input). */
  val lawFifo = StreamFifo(NicCcLawEntry(cfg, lawPlug.withPackets), cfg.lawFifo)
  require(lawPlug.latency + lawPlug.windowStages + 2 < 64, "the law's pairing FIFO (64) must hold the events in the law and its input slices")

  /** Per flow: the last cumulative received bytes (ACK) and the latest pull number (PULL). */
  case class AckState() extends Bundle {
    val received = UInt(32 bits)
    val pulls = UInt(32 bits)
  }

  /** Stage 0: the receiver's result (taken frames only); stage 2: the sums; stage 3: the event, the credit, the request. */
  val acks = new Area {
    private val r = rx.io.result
    val sweep = new ResetSweep(N, A)
    // frames before the sweep's end are not taken (their result is still counted)
    private val taken = r.valid && r.reason === NicCcRx.Reason.Taken && !sweep.active
    /** The control's fields the stages use (the entropy stays behind). */
    case class Used() extends Bundle {
      val kind = UInt(2 bits)
      val flow = UInt(A bits)
      val psn, number, timestamp = UInt(32 bits)
      val ecnEcho, lastHop = Bool()
      val rcvWndPen = UInt(8 bits)
      /** The echoed entropy (REPS's feedback): with `lb` only. */
      val entropy = if (cfg.echoesEntropy) UInt(16 bits) else null
      /** An ACK's DASR n (byte 9): with `pacing` only. */
      val activeSenders = if (cfg.paced) UInt(8 bits) else null
    }
    private val used = Used()
    if (cfg.echoesEntropy) used.entropy := r.control.entropy
    if (cfg.paced) used.activeSenders := r.control.activeSenders
    used.kind := r.control.kind; used.flow := r.control.flow; used.psn := r.control.psn; used.number := r.control.number
    used.timestamp := r.control.timestamp; used.ecnEcho := r.control.ecnEcho; used.lastHop := r.control.lastHop
    used.rcvWndPen := r.control.rcvWndPen
    val s1 = new Area {
      val valid = RegNext(taken) init (False)
      val c = RegNext(used)
    }
    val s2 = new Area {
      val valid = RegNext(s1.valid) init (False)
      val c = RegNext(s1.c)
    }
    private val writes1 = s1.valid && s1.c.kind =/= NicCcRx.Kind.Nack
    private val pushesAhead = UInt(2 bits)
    val loop = new KeyedStateLoop(AckState(), N, A, 3, 1, sweep,
      key = r.control.flow, twoBeforeW = KeyedOp(writes1, s1.c.flow))
    flows.io.inFlightFlow := r.control.flow
    private val st = loop.read.state
    private val isAck = s2.c.kind === NicCcRx.Kind.Ack
    private val isPull = s2.c.kind === NicCcRx.Kind.Pull
    // a newer cumulative count moves the state; an older one (reordered) adds nothing (uec.cpp:910-927)
    // (a difference of 0 is the operands' equality: compared beside the subtraction, not after it)
    private val newlyDiff = s2.c.number - st.received
    private val newer = !newlyDiff.msb && s2.c.number =/= st.received
    private val pulledDiff = s2.c.number - st.pulls
    private val pullNewer = !pulledDiff.msb && s2.c.number =/= st.pulls
    private val next = AckState()
    next.received := Mux(isAck && newer, s2.c.number, st.received)
    next.pulls := Mux(isPull && pullNewer, s2.c.number, st.pulls)
    private val zero = AckState()
    zero.received := 0
    zero.pulls := 0
    // Room in the law's FIFO for this event, counting the ones stages 3 and 4 push at the next two
    // edges: an ACK leaves 8 entries to NACKs. An event without room bypasses the law: what it
    // retires and resends goes at once to the flow state (a direct op); the law does not see it.
    private val isNack = s2.c.kind === NicCcRx.Kind.Nack
    private val ahead = lawFifo.io.occupancy +^ pushesAhead
    val ackRoom = ahead < cfg.lawFifo - 8
    val nackRoom = ahead < cfg.lawFifo
    val toBypass = s2.valid && ((isAck && !ackRoom) || (isNack && !nackRoom))
    loop.write(s2.valid && (isAck || isPull), s2.c.flow, next, zero)

    /** Stage 3: what the frame becomes. */
    val s3 = new Area {
      val valid = RegNext(s2.valid) init (False)
      // the timestamp stays behind (the RTT is taken here)
      case class Later() extends Bundle {
        val kind = UInt(2 bits)
        val flow = UInt(A bits)
        val psn, number = UInt(32 bits)
        val ecnEcho, lastHop = Bool()
        val rcvWndPen = UInt(8 bits)
        val entropy = if (cfg.echoesEntropy) UInt(16 bits) else null
        val activeSenders = if (cfg.paced) UInt(8 bits) else null
      }
      private val later = Later()
      if (cfg.echoesEntropy) later.entropy := s2.c.entropy
      if (cfg.paced) later.activeSenders := s2.c.activeSenders
      later.kind := s2.c.kind; later.flow := s2.c.flow; later.psn := s2.c.psn; later.number := s2.c.number
      later.ecnEcho := s2.c.ecnEcho; later.lastHop := s2.c.lastHop; later.rcvWndPen := s2.c.rcvWndPen
      val c = RegNext(later)
      val newly = RegNext(Mux(isAck && newer, newlyDiff, U(0, W bits)))
      /** Swift: newly, saturated for the multiply into packets (a register of its own: nothing between it and the DSP). */
      val newlyCapped = if (lawPlug.withPackets) RegNext(Mux(isAck && newer, sat(s2.c.number - st.received, cfg.packetsCapBits), U(0, cfg.packetsCapBits bits))) else null
      val pulls = RegNext(Mux(isPull && pullNewer, pulledDiff, U(0, W bits)))
      val rtt = RegNext(io.now - s2.c.timestamp)
      val inFlight = RegNext(flows.io.inFlight)
      val toLaw = RegNext(s2.valid && ((isAck && ackRoom) || (isNack && nackRoom))) init (False)
      val bypass = RegNext(toBypass) init (False)
      private val nack = c.kind === NicCcRx.Kind.Nack
      /** What the event does to the flow state: an ACK retires its newly acknowledged bytes; a NACK
       * retires the trimmed packet's wire bytes (the number field) and resends its payload. */
      val retired = Mux(nack, c.number, newly)
      val resend = Mux(nack && c.number > csr.overhead, c.number - csr.overhead, U(0, W bits))
    }
    /** Stage 4: the law's input (NicCcLawInput) and the event's side part, registered. */
    val s4 = new Area {
      val toLaw = RegNext(s3.toLaw) init (False)
    }
    pushesAhead := U(s3.toLaw) +^ U(s4.toLaw)
  }

  /** An ACK or NACK in stage 2 bypasses the law (no room in its FIFO); for benches. */
  val bypassNow: Bool = acks.toBypass

  private def sat(x: UInt, bits: Int): UInt = Mux(x(x.getWidth - 1 downto bits).orR, U((BigInt(1) << bits) - 1, bits bits), x(bits - 1 downto 0))

  /** The law's FIFO: events from stage 4 first, a doorbell's INIT when stage 4 pushes none. */
  val lawQueue = new Area {
    val fifo = lawFifo
    private val s3 = acks.s3
    val fromFrame = acks.s4.toLaw
    private val isNack = s3.c.kind === NicCcRx.Kind.Nack
    private val frameEntry = NicCcLawEntry(cfg, lawPlug.withPackets)
    frameEntry.input.flow := s3.c.flow
    frameEntry.input.kind := Mux(isNack, U(WindowEvent.NACK, 2 bits), U(WindowEvent.ACK, 2 bits))
    // NACK: the number field carries the trimmed packet's wire bytes
    frameEntry.input.bytes := Mux(isNack, s3.c.number, s3.newly)
    frameEntry.input.rtt := Mux(isNack, U(0, 32 bits), s3.rtt)
    frameEntry.input.ecn := s3.c.ecnEcho
    frameEntry.input.lastHop := isNack && s3.c.lastHop
    frameEntry.input.rcvWndPen := Mux(isNack, U(255, 8 bits), s3.c.rcvWndPen)
    frameEntry.input.inFlight := s3.inFlight
    // Swift's acked: bytes / MTU in u6.7 by a multiply with the reciprocal (a NACK's newly is 0)
    if (lawPlug.withPackets) {
      // the full product (its bits below the shift dropped by design: *Full, hw/lint/spinal-waivers.vlt)
      val product = (s3.newlyCapped * U(cfg.packetsRecip, log2Up(cfg.packetsRecip + 1) bits)).setName("lawQueue_packetsFull")
      frameEntry.input.packets := product(cfg.packetsShift + NicCcLaw.packetsBits - 1 downto cfg.packetsShift)
    }
    frameEntry.side.retired := s3.retired
    frameEntry.side.resend := s3.resend
    private val framePush = RegNext(frameEntry)
    private val initEntry = NicCcLawEntry(cfg, lawPlug.withPackets)
    initEntry.assignFromBits(B(0, initEntry.getBitsWidth bits))
    initEntry.input.allowOverride()
    /**
     * A start doorbell's INIT waits here for its push (a clock without a frame event's or the
     * timeout's, with room: opMerge), so the law FIFO's push does not wait for the doorbell's turn
     * (measured: the direct FIFO's valid through the doorbell's fire into the FIFO's pointer, 5 LUT,
     * 3.8 ns at 0.40). A start doorbell waits while an INIT is held.
     */
    val initPending = RegInit(False)
    val initFlow = Reg(UInt(A bits))
    initEntry.input.flow := initFlow
    initEntry.input.kind := WindowEvent.INIT
    initEntry.input.rcvWndPen := 255
    val initEntryValue = initEntry
    val frameEntryValue = framePush

    // into the law, the side part into the pairing FIFO (one update per event, in order: WindowUnit)
    // Two register slices between the FIFO and the law: s2mPipe, so that the law's ready reaches
    // only the slice's valid register, then m2sPipe, so that the law's same-flow compares start at
    // flip-flops (without it the compares behind the s2mPipe's mux measured 3.9 ns at 0.40). The
    // law's event is made between them (NicCcLaw.event). The pairing FIFO takes each event's side
    // part as it leaves the FIFO into the slices (every one then enters the law, in order); it
    // holds those in the slices and in the law (the law's latency + its window stages + 2 < 64):
    // always room.
    val side = StreamFifo(NicCcSide(), 64)
    val toLaw = fifo.io.pop.translateWith(fifo.io.pop.input).s2mPipe()
    law.io.event << toLaw.translateWith(lawPlug.event(toLaw.payload)).m2sPipe()
    side.io.push.valid := fifo.io.pop.fire
    side.io.push.payload := fifo.io.pop.side
    /** The law's new window in bytes (NicCcLaw.window: windowStages after its update). */
    private val windowNow = lawPlug.window(law.io.update)
    side.io.pop.ready := windowNow.valid
    /**
     * The window and its side part registered (NicCcConfig.windowToOp): the op merge's priority, and
     * the doorbell's turn behind it, start at flip-flops, not at the law's update logic (measured: the
     * law's update valid into a doorbell's INIT push, 5 LUT, 3.9 ns at 0.40).
     */
    val window = windowNow.stage()
    val sideOut = RegNext(side.io.pop.payload)
  }

  /** Direct ops: PULLs' credit, and what a bypassing ACK or NACK retires and resends, waiting for a clock the law's updates leave. */
  val credits = new Area {
    val fifo = StreamFifo(NicCcDirect(cfg), cfg.lawFifo)
    private val s3 = acks.s3
    // without credit a PULL is counted and has no effect
    private val isPull = (if (cfg.credit) True else False) && s3.valid && s3.c.kind === NicCcRx.Kind.Pull && s3.pulls =/= 0
    // every bypassing event (registers only in front of the push: one with no bytes is an op that adds nothing)
    private val wanted = isPull || s3.bypass
    fifo.io.push.valid := wanted
    fifo.io.push.flow := s3.c.flow
    if (cfg.credit) fifo.io.push.credit := Mux(isPull, s3.pulls |<< log2Up(cfg.pullBytes), U(0, W bits))
    fifo.io.push.retired := Mux(isPull, U(0, W bits), s3.retired)
    fifo.io.push.resend := Mux(isPull, U(0, W bits), s3.resend)
    val dropped = wanted && !fifo.io.push.ready
  }

  /**
   * A timeout the flow state applied, until its law event is in the law's FIFO and its retransmit
   * request is out (the flow state's scan takes no new candidate meanwhile).
   */
  val timeout = new Area {
    val valid = RegInit(False)
    val flow = Reg(UInt(A bits))
    val bytes = Reg(UInt(NicCcFlows.bytesBits + 1 bits))
    val lawDone, rtxDone = Reg(Bool())
    /** The NACK's request at stage 3 goes first. */
    val rtxNow = valid && !rtxDone && !(acks.s3.valid && acks.s3.c.kind === NicCcRx.Kind.Nack)
    /** Into the law's FIFO at a clock stage 4 pushes nothing, with the room an INIT needs (registers only). */
    val lawNow = Bool()
    when(rtxNow) { rtxDone := True }
    when(lawNow) { lawDone := True }
    when(valid && (lawDone || lawNow) && (rtxDone || rtxNow)) { valid := False }
    when(flows.io.timedOut.valid) {
      valid := True
      flow := flows.io.timedOut.flow
      bytes := flows.io.timedOut.bytes
      lawDone := False
      rtxDone := False
    }
    flows.io.timeoutHold := valid
    private val entry = NicCcLawEntry(cfg, lawPlug.withPackets)
    entry.assignFromBits(B(0, entry.getBitsWidth bits))
    entry.input.allowOverride()
    entry.input.flow := flow
    entry.input.kind := WindowEvent.TIMEOUT
    entry.input.bytes := bytes.resized
    entry.input.rcvWndPen := 255
    val entryValue = entry
  }

  /**
   * With `pacing` = `dasr`: DASR's limiter (DasrLimiter with its n port) times each grant (dart.txt
   * Sec. III-A: a flow sends at line rate / n, n its ACKs' active senders). The grant's state write
   * holds its flow; the grant, registered, is the limiter's sent event (its wire bytes, 65535 at
   * most); its answer (the flow's next time) enters the `fresh` FIFO. One entry a clock is looked
   * at, from `fresh` and `waiting` in turn (either when the other is empty): its next time against
   * `now` + PACE_LEAD (registered), then it releases its flow (the flow state's release; a check follows) or
   * goes to `waiting` to be looked at again. A flow has at most one entry, so neither FIFO (N
   * entries) overflows. ACKs at stage 3 give their flow's n through the limiter's n port.
   */
  val pacer = cfg.paced generate new Area {
    val limiter = new DasrLimiter(cfg.dasr, true)
    limiter.io.now := io.now
    limiter.io.ctrl <> pacerBus
    private val sent = flows.io.sent
    /** Each grant, registered: the limiter's sent event. */
    val event = new Area {
      val valid = RegNext(sent.valid) init (False)
      val flow = RegNext(sent.flow)
      val bytes = RegNext(Mux(sent.wire.msb, U(65535, 16 bits), sent.wire(15 downto 0)))
      val paced = RegNext(sent.paced)
    }
    limiter.io.event.valid := event.valid
    limiter.io.event.kind := DasrLimiter.Kind.SENT
    limiter.io.event.flow := event.flow.resized
    limiter.io.event.bytes := event.bytes
    // the toggle travels beside the limiter: its answers come in order, `latency` edges after the event
    private val pacedAtAnswer = Delay(event.paced, DasrLimiter.latency)
    limiter.io.nUpdate.valid := acks.s3.valid && acks.s3.c.kind === NicCcRx.Kind.Ack
    limiter.io.nUpdate.flow := acks.s3.c.flow.resized
    limiter.io.nUpdate.n := acks.s3.c.activeSenders.resized

    case class Entry() extends Bundle {
      val flow = UInt(A bits)
      /** The flow's next time, ns mod 2^32 (the limiter's answer). */
      val nextNs = UInt(32 bits)
      val paced = Bool()
    }
    val fresh = StreamFifo(Entry(), N)
    fresh.io.push.valid := limiter.io.answer.valid
    fresh.io.push.flow := limiter.io.answer.flow.resized
    fresh.io.push.nextNs := limiter.io.answer.nextNs
    fresh.io.push.paced := pacedAtAnswer
    val waiting = StreamFifo(Entry(), N)
    /** Fresh entries first at the next look when both wait (set after a waiting one is looked at). */
    val freshTurn = RegInit(True)
    private val takeFresh = fresh.io.pop.valid && (freshTurn || !waiting.io.pop.valid)
    private val takeWaiting = waiting.io.pop.valid && !takeFresh
    fresh.io.pop.ready := takeFresh
    waiting.io.pop.ready := takeWaiting
    when(takeFresh || takeWaiting) { freshTurn := takeWaiting }
    /** The entry looked at, registered. */
    val look = new Area {
      val valid = RegNext(takeFresh || takeWaiting) init (False)
      val entry = RegNext(Mux(takeFresh, fresh.io.pop.payload, waiting.io.pop.payload))
      val first = RegNext(takeFresh)
    }
    /** `now` + PACE_LEAD, registered: the decision compares a register with the entry's time. */
    val nowLead = RegNext(io.now + csr.paceLead.resize(32)) init (0)
    /**
     * Its next time against the last edge's `now` + PACE_LEAD (at or behind it: due; a time more
     * than 2^31 ns ahead reads as behind), registered.
     */
    val decide = new Area {
      val valid = RegNext(look.valid) init (False)
      val entry = RegNext(look.entry)
      val first = RegNext(look.first)
      // (only its sign is used: *Full, hw/lint/spinal-waivers.vlt)
      private val sinceFull = CombInit(nowLead - look.entry.nextNs).setName("pacer_decide_sinceFull")
      val due = RegNext(!sinceFull.msb)
    }
    flows.io.release.valid := decide.valid && decide.due
    flows.io.release.flow := decide.entry.flow
    flows.io.release.paced := decide.entry.paced
    waiting.io.push.valid := decide.valid && !decide.due
    waiting.io.push.payload := decide.entry
    /** A grant whose flow waits (its first look found its time ahead). */
    val waits = decide.valid && !decide.due && decide.first
  }
  /**
   * The law's sweep done, and with pacing the limiter's, in one register (the doorbell's ready
   * then adds no level to its path from the law's update).
   */
  private val partsReady: Bool = if (cfg.paced) RegNext(law.io.initDone && pacer.limiter.io.initDone) init (False) else law.io.initDone

  /** Ops into the flow state: the law's update (with what its event retires and resends) first, then credits, a timeout, doorbells. */
  val opMerge = new Area {
    private val upd = lawQueue.window
    private val side = lawQueue.sideOut
    private val op = flows.io.op
    private val cand = flows.io.timeout
    val creditTurn = !upd.valid && credits.fifo.io.pop.valid
    val timeoutTurn = !upd.valid && !credits.fifo.io.pop.valid && cand.valid
    val doorbellTurn = !upd.valid && !credits.fifo.io.pop.valid && !cand.valid
    // a doorbell's INIT goes into the law's FIFO at a clock the frames leave and leaves the 8 + 3
    // entries a frame may still need (stages 2, 3 and 4): the occupancy a clock ago, registered, is
    // below lawFifo - 12 (one push at most since)
    private val initRoom = RegNext(lawQueue.fifo.io.occupancy < cfg.lawFifo - 12) init (False)
    timeout.lawNow := timeout.valid && !timeout.lawDone && !lawQueue.fromFrame && initRoom
    // the held INIT (lawQueue.initPending) goes at a clock the frame events and the timeout leave
    val initPush = lawQueue.initPending && !lawQueue.fromFrame && !timeout.lawNow && initRoom
    private val db = doorbellIn.payload
    private val initOk = !db.start || !lawQueue.initPending
    // a doorbell for a flow id >= flows is taken at once, counted and has no effect
    val doorbellInRange: Bool = doorbellIn.inRange
    doorbellIn.ready := partsReady && (!doorbellInRange || (doorbellTurn && op.ready && initOk && !doorbellIn.blocked))
    val doorbellFire = doorbellIn.valid && doorbellIn.ready && doorbellInRange
    val doorbellDropped = doorbellIn.valid && doorbellIn.ready && !doorbellInRange
    lawQueue.fifo.io.push.valid := lawQueue.fromFrame || timeout.lawNow || initPush
    when(initPush) { lawQueue.initPending := False }
    when(doorbellFire && db.start) {
      lawQueue.initPending := True
      lawQueue.initFlow := db.flow.resize(A)
    }
    lawQueue.fifo.io.push.payload := Mux(lawQueue.fromFrame, lawQueue.frameEntryValue,
      Mux(timeout.lawNow, timeout.entryValue, lawQueue.initEntryValue))
    op.valid := upd.valid || credits.fifo.io.pop.valid || cand.valid || doorbellFire
    op.flow := Mux(upd.valid, upd.flow.resize(A), Mux(creditTurn, credits.fifo.io.pop.flow,
      Mux(timeoutTurn, cand.flow, db.flow.resize(A))))
    op.queued := Mux(doorbellTurn, db.bytes, U(0, W bits))
    if (cfg.messages) op.end := doorbellTurn && db.last
    op.retired := Mux(upd.valid, side.retired, Mux(creditTurn, credits.fifo.io.pop.retired,
      Mux(timeoutTurn, cand.bytes.resize(W), U(0, W bits))))
    op.resend := Mux(upd.valid, side.resend, Mux(creditTurn, credits.fifo.io.pop.resend,
      Mux(timeoutTurn, cand.resend.resize(W), U(0, W bits))))
    if (cfg.credit) op.credit := Mux(creditTurn, credits.fifo.io.pop.credit, U(0, W bits))
    op.setWindow := upd.valid
    op.window := upd.bytes
    op.timeout := timeoutTurn
    op.expect := cand.expect
    credits.fifo.io.pop.ready := creditTurn && op.ready
    cand.ready := timeoutTurn && op.ready
  }

  /** Without message boundaries the doorbell goes to the op merge as it comes. */
  val doorbellDirect = !cfg.messages generate new Area {
    doorbellIn.valid := io.doorbell.valid
    doorbellIn.payload := NicCcDoorbellIn(cfg, io.doorbell.payload)
    doorbellIn.blocked := False
    doorbellIn.inRange := flowInRange(io.doorbell.flow)
    io.doorbell.ready := doorbellIn.ready
  }

  /**
   * With message boundaries: the doorbell's register and its gate (docs/nic-engine.md, "Messages").
   * A doorbell enters the register when it is empty or its doorbell leaves at that edge. A last
   * doorbell leaves only once its flow holds fewer than message-ends ends its grants have not
   * passed: `tails` (ends taken, written as a last doorbell leaves) less `heads` (ends passed,
   * written at each grant with last), read at the register's flow and registered. So a last
   * doorbell waits at least its first clock (its flow not yet read), and a head passed at the
   * edge before counts a clock later.
   */
  val doorbellGate = cfg.messages generate new Area {
    private val K = cfg.flowState.messageEnds
    private val T = cfg.flowState.endCountBits
    val tails = Mem(UInt(T bits), N).setName("doorbellTailsRam")
    val heads = Mem(UInt(T bits), N).setName("doorbellHeadsRam")
    val valid = RegInit(False)
    val db = Reg(NicCcDoorbellIn(cfg))
    private val addr = db.flow
    /**
     * A last doorbell's new tail, written an edge after it leaves (its write enable is then a
     * register, not the op merge's fire: measured 6 LUT into the RAM's write, 3.7 ns at 0.40) and
     * forwarded to the read until then.
     */
    val tailWrite = new Area {
      val valid = RegInit(False)
      val addr = Reg(UInt(A bits))
      val value = Reg(UInt(T bits))
    }
    private val tailNow = Mux(tailWrite.valid && tailWrite.addr === addr, tailWrite.value, tails.readAsync(addr))
    /** db's flow's ends taken, read the clock before. */
    val tailRead = RegNext(tailNow)
    /** tailRead is db's flow's (db was in the register at the edge before). */
    val checked = RegInit(False)
    /**
     * db's `last` and its flow's ends full (read the clock before), or a last doorbell's first
     * clock: one register, so the op merge's turn sees one bit (measured with the compare behind
     * the register: 6 LUT from the turn into the register's valid, 3.8 ns at 0.40).
     */
    val blocked = Reg(Bool()) init (False)
    val inRange = Reg(Bool()) init (False)
    io.doorbell.ready := partsReady && !acks.sweep.active && (!valid || doorbellIn.ready)
    when(doorbellIn.ready) { valid := False }
    blocked := db.last && (tailNow - heads.readAsync(addr)) === K
    when(io.doorbell.fire) {
      valid := True
      db := NicCcDoorbellIn(cfg, io.doorbell.payload)
      inRange := flowInRange(io.doorbell.flow)
      blocked := io.doorbell.last
    }
    checked := !io.doorbell.fire
    doorbellIn.valid := valid
    doorbellIn.payload := db
    doorbellIn.blocked := blocked
    doorbellIn.inRange := inRange
    /** Clocks a last doorbell waited with its flow's ends full (ENDS_FULL): blocked after its first clock. */
    val full = valid && blocked && checked
    tailWrite.valid := opMerge.doorbellFire && db.last
    tailWrite.addr := addr
    tailWrite.value := tailRead + 1
    acks.sweep.write(tails, tailWrite.addr, tailWrite.value, tailWrite.valid, U(0, T bits))
    acks.sweep.write(heads, flows.io.ended.flow, flows.io.ended.head, flows.io.ended.valid, U(0, T bits))
  }

  /**
   * With `lb`: each grant's entropy. A grant the flow state offers is taken when the output FIFO
   * (8) has room for it and the grants still in REPS (5 clocks), and asks REPS for its flow's
   * entropy; it waits beside REPS and joins its result into the FIFO. ACKs (their echoed entropy,
   * ECN) and NACKs (a trimmed ACK) from stage 3 and applied timeouts (a failure) are REPS's
   * feedback, each through a FIFO of its own (reps.txt Alg. 1; docs/reps.md).
   */
  val lbStage = cfg.withLb generate new Area {
    val reps = new Reps(cfg.reps)
    if (cfg.reps.usesTime) reps.io.now := io.now
    reps.io.ctrl <> repsBus
    private val g = flows.io.grant
    val out = StreamFifo(NicCcGrantOut(cfg), 8, latency = 1)
    /** Grants taken and not yet pushed into the output FIFO (in REPS). */
    val inReps = Reg(UInt(3 bits)) init (0)
    private val room = out.io.occupancy +^ inReps < 8
    reps.io.send.valid := g.valid && room
    reps.io.send.conn := g.flow.resized
    g.ready := reps.io.send.ready && room
    inReps := inReps + U(reps.io.send.fire) - U(reps.io.result.valid)
    private val waiting = Delay(g.payload, Reps.latency)
    out.io.push.valid := reps.io.result.valid
    out.io.push.flow := waiting.flow
    out.io.push.psn := waiting.psn
    out.io.push.bytes := waiting.bytes
    out.io.push.resend := waiting.resend
    out.io.push.entropy := reps.io.result.ev
    if (cfg.messages) out.io.push.last := waiting.last
    io.grant << out.io.pop

    private val s3 = acks.s3
    val ackFifo = StreamFifo(RepsAck(cfg.reps), 16)
    ackFifo.io.push.valid := s3.valid && (s3.c.kind === NicCcRx.Kind.Ack || s3.c.kind === NicCcRx.Kind.Nack)
    ackFifo.io.push.conn := s3.c.flow.resized
    if (cfg.echoesEntropy) ackFifo.io.push.ev := s3.c.entropy.resized
    ackFifo.io.push.ecn := s3.c.ecnEcho
    ackFifo.io.push.trimmed := s3.c.kind === NicCcRx.Kind.Nack
    reps.io.ack << ackFifo.io.pop
    val failureFifo = StreamFifo(RepsFailure(cfg.reps), 4)
    failureFifo.io.push.valid := flows.io.timedOut.valid
    failureFifo.io.push.conn := flows.io.timedOut.flow.resized
    reps.io.failure << failureFifo.io.pop
    val dropped = (ackFifo.io.push.valid && !ackFifo.io.push.ready) || (failureFifo.io.push.valid && !failureFifo.io.push.ready)
  }

  csr.statusInitDone := partsReady && flows.io.ready && !acks.sweep.active && (if (cfg.withLb) lbStage.reps.io.initDone else True)

  /** A NACK's retransmit request, at stage 3; a timeout's at a clock without one. */
  io.retransmit.valid := (acks.s3.valid && acks.s3.c.kind === NicCcRx.Kind.Nack) || timeout.rtxNow
  io.retransmit.flow := Mux(timeout.rtxNow, timeout.flow, acks.s3.c.flow)
  io.retransmit.psn := Mux(timeout.rtxNow, U(0, 32 bits), acks.s3.c.psn)
  io.retransmit.timeout := timeout.rtxNow

  /** The counters, each from registered pulses. */
  val stats = new Area {
    import CsrCounters.count
    private val r = RegNext(rx.io.result.valid) init (False)
    private val reason = RegNext(rx.io.result.reason)
    private val kind = RegNext(rx.io.result.control.kind)
    private val byReason = Seq(csr.FRAMES, csr.FRAMES_BAD, csr.FRAMES_MALFORMED, csr.FRAMES_OVERSIZE, csr.FRAMES_RUNT,
      csr.FRAMES_CHECKSUM, csr.FRAMES_FOREIGN, csr.FRAMES_NOT_CONTROL, csr.FRAMES_BAD_FLAGS, csr.FRAMES_OUT_OF_RANGE)
    for ((c, i) <- byReason.zipWithIndex) count(c, r && reason === i)
    private val taken = r && reason === NicCcRx.Reason.Taken
    count(csr.ACKS, taken && kind === NicCcRx.Kind.Ack)
    count(csr.NACKS, taken && kind === NicCcRx.Kind.Nack)
    count(csr.PULLS, taken && kind === NicCcRx.Kind.Pull)
    count(csr.ACKS_BYPASSED, acks.s3.bypass && acks.s3.c.kind === NicCcRx.Kind.Ack)
    count(csr.NACKS_BYPASSED, acks.s3.bypass && acks.s3.c.kind === NicCcRx.Kind.Nack)
    count(csr.DIRECT_DROPS, RegNext(credits.dropped) init (False))
    count(csr.DOORBELLS, RegNext(opMerge.doorbellFire) init (False))
    count(csr.DOORBELLS_OUT_OF_RANGE, RegNext(opMerge.doorbellDropped) init (False))
    count(csr.GRANTS, RegNext(io.grant.fire) init (False))
    count(csr.REFUSED, RegNext(flows.io.refused) init (False))
    when(r) { CsrCounters.add(csr.BYTES, RegNext(rx.io.result.wireBytes)) }
    count(csr.TIMEOUTS, RegNext(flows.io.timedOut.valid) init (False))
    if (cfg.withLb) count(csr.LB_DROPS, RegNext(lbStage.dropped) init (False))
    if (cfg.paced) count(csr.PACED, RegNext(pacer.waits) init (False))
    if (cfg.messages) {
      count(csr.MESSAGES, RegNext(flows.io.ended.valid) init (False))
      count(csr.ENDS_FULL, RegNext(doorbellGate.full) init (False))
    }
  }

  def emitRegisterDocs(): Unit = {
    RegisterDocs.emit(csr.busif, "uehw_nic_cc_regs", "NICCC")
    RegisterDocs.emit(law.busif, "uehw_nic_cc_law_regs", lawPlug.regsPrefix)
    if (cfg.withLb) RegisterDocs.emit(lbStage.reps.csr.busif, "uehw_nic_cc_reps_regs", "REPS")
    if (cfg.paced) RegisterDocs.emit(pacer.limiter.csr.busif, "uehw_nic_cc_dasr_regs", "DASRL")
  }
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "NICCC"
}
