// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.amba4.axis._
import spinal.lib.bus.regif._
import uehw.hw.common._

object TrimQueue {
  /** Admission outcomes (the counters and the model use these names). */
  object Outcome {
    val DATA = 0; val CONTROL = 1; val TRIM = 2; val DROP_BAD_FRAME = 3; val DROP_OVERSIZE = 4; val DROP_MALFORMED = 5
    val DROP_RUNT = 6; val DROP_CONTROL_FULL = 7; val DROP_CONTROL_OVERSIZE = 8; val DROP_DATA_FULL = 9; val DROP_TRIM_FULL = 10
  }
  val queueControl = 0
  val queueTrim = 1
  val queueData = 2
  /** Clocks from the edge that takes a frame's tlast to the edge that admits it (commit, counters, occupancies). */
  val admissionClocks = 4
  /** Clocks from the admission of a trimmed frame to the push of its header checksum (the header itself is pushed at the admission). */
  val trimBuildClocks = 4

  def axisConfig(cfg: TrimQueueConfig): Axi4StreamConfig =
    Axi4StreamConfig(dataWidth = cfg.W, useKeep = true, useLast = true, useUser = true, userWidth = 1)
  /** Bits of a last beat's byte count - 1. */
  def countWidth(cfg: TrimQueueConfig): Int = log2Up(cfg.W)
  /** Bits of a beat index within a frame: saturates past the longest frame. */
  def indexWidth(cfg: TrimQueueConfig): Int = log2Up(cfg.maxFrameBeats + 2)
  /** A RAM word: the beat's bytes, its byte count - 1 and its last flag. */
  def ramWidth(cfg: TrimQueueConfig): Int = 8 * cfg.W + countWidth(cfg) + 1
  /** Width of a queue's beat occupancy up to `limit` beats. */
  def occBeatsWidth(cfg: TrimQueueConfig, limit: Int): Int = scala.math.max(log2Up(limit + 1) + 1, cfg.lengthWidth)
  /** The beats of a frame of `length` bytes. */
  def beatsOf(cfg: TrimQueueConfig, length: UInt, name: String): UInt = {
    val roundedFull = (length.resize(cfg.lengthWidth + 1) + (cfg.W - 1)).setName(name + "_roundedFull")
    roundedFull(cfg.lengthWidth downto log2Up(cfg.W)).resize(cfg.lengthWidth)
  }
  /** A ring pointer's next value. */
  def inc(p: UInt, depth: Int): UInt = Mux(p === depth - 1, U(0, p.getWidth bits), p + 1)
  /** Byte lane `o` (mod W) of a beat. */
  def lane(data: Bits, o: Int, W: Int): Bits = data(8 * (o % W), 8 bits)
  /** keep of a last beat of `count` + 1 bytes, or all ones. */
  def keepOf(last: Bool, count: UInt, W: Int): Bits =
    Mux(last, (U((BigInt(1) << W) - 1, W bits) >> (U(W - 1, count.getWidth bits) - count)).asBits, B((BigInt(1) << W) - 1, W bits))
  def onesAdd(a: UInt, b: UInt): UInt = { val s = a.resize(17) + b.resize(17); (s(15 downto 0) + s(16).asUInt).resize(16) }
}

/**
 * Trimming egress queue (smartt-reps.txt Sec. 2.1, 3, 3.5; docs/trimming-queue.md). Store and
 * forward: every beat is written tentatively into the data RAM and the control RAM; at tlast the
 * frame is classified from its captured headers and committed to one queue, trimmed (a header
 * built from the captured bytes goes to the trim queue) or dropped (both writes rolled back).
 * The output serves control, then trimmed headers, then data, whole packets, one beat a clock;
 * RED marks a data packet when it starts to leave, from the instantaneous byte occupancy. The IPv4
 * header checksum (RFC 791) is verified before the admission: a bad one is counted and never
 * repaired (no trim, no CE mark). The admission is pipelined: a frame is decided
 * `admissionClocks` after its tlast was taken.
 *
 * Sub-blocks, each a component with a typed interface: TrimIngress (beats and a verdict per
 * frame), TrimAdmission (the decision, the RAMs, the descriptors and the occupancies),
 * TrimHeaderBuilder (the trimmed headers and their checksums), TrimRedDraws (RED's thresholds),
 * two RingPacketReaders (control, data); here the CSRs, the dequeue, the arbiter, the output and
 * the counters.
 */
class TrimQueue(val cfg: TrimQueueConfig) extends Component with RegisterDocs {
  val io = new TrimQueueIo(cfg)
  setDefinitionName("uehw_trim_queue")
  AxiLite4SpecRenamer(io.ctrl)
  for ((s, prefix) <- Seq(io.s_axis -> "s_axis", io.m_axis -> "m_axis")) {
    s.valid.setName(prefix + "_tvalid"); s.ready.setName(prefix + "_tready")
    s.payload.data.setName(prefix + "_tdata"); s.payload.keep.setName(prefix + "_tkeep")
    s.payload.last.setName(prefix + "_tlast"); s.payload.user.setName(prefix + "_tuser")
  }

  import TrimQueue._
  private val W = cfg.W

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    // INFO (0x00) and VERSION (0xFC) from the shared prologue (CsrBank): the block id, then the
    // bytes per beat and the trim length as INFO's fields. This block's registers follow at fixed
    // addresses.
    val busif = CsrBank(io.ctrl, "TRIMQ", 0x54, "Block id 0x54 ('T')",
      InfoField("DATA_BYTES", 8, W, "Bytes per beat"),
      InfoField("TRIM_BYTES", 8, cfg.trimBytes, "Trim length"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)
    RegisterDocs.constField(reg("CAPACITY", 0x04, "Data queue capacity (read-only)"), UInt(25 bits), BigInt(cfg.capacityBytes), "Bytes", "BYTES")
    private val control = reg("CONTROL", 0x08, "Policy")
    val dropNonEct = control.field(Bool(), AccessType.RW, 0,
      doc = "Non-ECN-capable IP packets when the data queue is at or above KMAX: 0 pass, 1 drop (counted)")(SymbolName("DROP_NON_ECT"))
    private val kMinReg = reg("KMIN", 0x0C, "RED: no marks at or below this occupancy (Sec. 3.5: 20%)")
    val kMin = kMinReg.field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.kMinDefault), doc = "Bytes")(SymbolName("BYTES"))
    private val kMaxReg = reg("KMAX", 0x10, "RED: every ECN-capable packet marked at or above this occupancy (Sec. 3.5: 80%)")
    val kMax = kMaxReg.field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.kMaxDefault), doc = "Bytes")(SymbolName("BYTES"))
    val trimDscp = reg("TRIM_DSCP", 0x14, "DSCP written into trimmed headers")
      .field(UInt(6 bits), AccessType.RW, BigInt(cfg.trimDscp), doc = "DSCP")(SymbolName("VALUE"))
    val udpPort = reg("UDP_PORT", 0x18, "UDP destination port of the transport (only its packets are classified and trimmed)")
      .field(UInt(16 bits), AccessType.RW, BigInt(cfg.udpPort), doc = "Port")(SymbolName("VALUE"))
    private val seedReg = reg("SEED", 0x1C, "RED PRNG seed: writing reloads the xorshift32 state (0 loads 1)")
    val seed = seedReg.field(UInt(32 bits), AccessType.RW, BigInt(cfg.prngSeed), doc = "Seed")(SymbolName("VALUE"))
    val reseed = RegNext(seedReg.hitDoWrite) init (False)
    /** High in the clock a new KMIN, KMAX or SEED is in its register: the RED thresholds drawn ahead are recomputed. */
    val redChange = RegNext(kMinReg.hitDoWrite || kMaxReg.hitDoWrite || seedReg.hitDoWrite) init (False)

    private val data = reg("DATA_OCCUPANCY", 0x20, "Data queue now")
    val dataBytes = data.field(UInt(cfg.occupancyWidth bits), AccessType.RO, doc = "Bytes")(SymbolName("BYTES"))
    val dataHighWater = reg("DATA_HIGH_WATER", 0x24, "Largest data queue occupancy since reset")
      .field(UInt(cfg.occupancyWidth bits), AccessType.RO, doc = "Bytes")(SymbolName("BYTES"))
    val controlBytes = reg("CONTROL_OCCUPANCY", 0x28, "Control queue now")
      .field(UInt(21 bits), AccessType.RO, doc = "Bytes")(SymbolName("BYTES"))
    val controlHighWater = reg("CONTROL_HIGH_WATER", 0x2C, "Largest control queue occupancy since reset")
      .field(UInt(21 bits), AccessType.RO, doc = "Bytes")(SymbolName("BYTES"))
    val trimWaiting = reg("TRIM_WAITING", 0x30, "Trimmed headers waiting")
      .field(UInt(11 bits), AccessType.RO, doc = "Headers")(SymbolName("COUNT"))

    private val counters = new CsrCounters(busif, 0x40, oneReadMux = true)
    import counters.counter
    val IN_PACKETS = counter("Frames received")
    val IN_BYTES = counter("Bytes received (dropped frames included)")
    val OUT_DATA_PACKETS = counter("Data frames sent")
    val OUT_DATA_BYTES = counter("Data bytes sent")
    val OUT_CONTROL_PACKETS = counter("Control frames sent")
    val OUT_CONTROL_BYTES = counter("Control bytes sent")
    val OUT_TRIMMED_PACKETS = counter("Trimmed headers sent")
    val OUT_TRIMMED_BYTES = counter("Trimmed header bytes sent")
    val TRIMMED = counter("Data frames trimmed (the data queue had no room)")
    val MARKED = counter("Data frames marked CE at dequeue (RED)")
    val DROP_BAD_FRAME = counter("Dropped: a tuser bit set on any beat (bad frame)")
    val DROP_OVERSIZE = counter("Dropped: longer than max-frame-bytes")
    val DROP_MALFORMED = counter("Dropped: tkeep not contiguous or a partial beat before tlast")
    val DROP_RUNT = counter("Dropped: shorter than its headers")
    val DROP_CONTROL_FULL = counter("Dropped: control frame, control queue full")
    val DROP_CONTROL_OVERSIZE = counter("Dropped: control frame longer than max-control-bytes")
    val DROP_DATA_FULL = counter("Dropped: data frame that cannot be trimmed (not the transport, an IPv4 fragment or a bad IPv4 header checksum), data queue full")
    val DROP_TRIM_FULL = counter("Dropped: trimmed header, trim queue full")
    val DROP_NON_ECT = counter("Dropped at dequeue: non-ECN-capable IP frame at or above KMAX with DROP_NON_ECT")
    val NON_ECT_ABOVE_KMAX = counter("Non-ECN-capable IP frames that left at or above KMAX unmarked")
    val NON_IP = counter("Frames that are not IPv4/IPv6 (forwarded unmarked, never trimmed; dropped ones included)")
    val INTERNAL_OVERRUN = counter("A descriptor, trim, prefetch or RED threshold FIFO pushed while full: the admission rules and credits prevent it, so 0")
    val BAD_IPV4_CHECKSUM = counter("IPv4 frames (IHL 5) with a wrong header checksum: never trimmed or marked, forwarded unchanged or dropped")
  }

  // ------------------------------------------------------------ the sub-blocks
  val ingress = new TrimIngress(cfg)
  // ready high: store and forward into the RAMs, the input never waits. Field by field: toFlow (and
  // a bundle's :=) copy tuser lane by lane in an always @(*) that Icarus first runs on a change of
  // tuser, so a tuser held at 0 from time 0 left the ingress's copy X there (Verilator had it 0).
  io.s_axis.ready := True
  ingress.io.input.valid := io.s_axis.valid
  ingress.io.input.payload.data := io.s_axis.payload.data
  ingress.io.input.payload.keep := io.s_axis.payload.keep
  ingress.io.input.payload.last := io.s_axis.payload.last
  ingress.io.input.payload.user := io.s_axis.payload.user
  ingress.io.udpPort := csr.udpPort

  val admission = new TrimAdmission(cfg)
  admission.io.beat << ingress.io.beat
  admission.io.verdict << ingress.io.verdict
  csr.dataBytes := admission.io.dataBytes.resize(cfg.occupancyWidth)
  csr.dataHighWater := admission.io.dataHighWater
  csr.controlBytes := admission.io.controlBytes
  csr.controlHighWater := admission.io.controlHighWater
  csr.trimWaiting := admission.io.trimWaiting

  val trimBuilder = new TrimHeaderBuilder(cfg)
  trimBuilder.io.tap := ingress.io.tap
  trimBuilder.io.dscp := csr.trimDscp
  trimBuilder.io.push := admission.io.toTrim
  admission.io.trimPopped := trimBuilder.io.popped

  val red = new TrimRedDraws(cfg)
  red.io.kMin := csr.kMin
  red.io.kMax := csr.kMax
  red.io.seed := csr.seed
  red.io.reseed := csr.reseed
  red.io.restart := csr.redChange

  val dataReader = new RingPacketReader(cfg, cfg.dataRamBeats, queueData)
  val controlReader = new RingPacketReader(cfg, cfg.controlRamBeats, queueControl)
  dataReader.io.ram <> admission.io.dataRead
  controlReader.io.ram <> admission.io.controlRead

  /**
   * The dequeue, one packet a clock, control first: a packet leaves the byte count and RED
   * decides (Sec. 3.5) when its descriptor is handed to its reader, from the occupancy then: the
   * data queue's instantaneous occupancy at dequeue. A dropped packet's beats are skipped.
   */
  val dequeue = new Area {
    // Full register slices: the dequeue decision reaches the head registers, not the FIFOs' pointers.
    val dataHead = admission.io.dataDescriptors.s2mPipe().m2sPipe()
    val controlHead = admission.io.controlLengths.s2mPipe().m2sPipe()
    private val dc = dataReader.io.commands
    private val cc = controlReader.io.commands
    private val thresholds = red.io.thresholds
    val controlStart = controlHead.valid && cc.ready
    val dataStart = !controlStart && dataHead.valid && dc.ready && thresholds.valid && !csr.redChange
    controlHead.ready := controlStart
    dataHead.ready := dataStart
    thresholds.ready := dataStart
    val desc = dataHead.payload
    val occupancy = admission.io.dataBytes
    val atKmax = occupancy >= csr.kMax
    // Linear from 0 at KMIN to 1 at KMAX: P(draw < occupancy - KMIN) = (occupancy - KMIN) / (KMAX - KMIN).
    val congested = atKmax || occupancy > thresholds.payload
    val ip = desc.ipv4 || desc.ipv6
    val mark = congested && ip && desc.ecnCapable
    val drop = csr.dropNonEct && ip && !desc.ecnCapable && atKmax
    val nonEctAboveKmax = ip && !desc.ecnCapable && atKmax

    dc.valid := dataStart
    dc.beats := beatsOf(cfg, desc.length, "dataStart_beats")
    dc.skip := drop
    dc.next := desc.next
    dc.patch.mark := mark
    dc.patch.ipv4 := desc.ipv4
    dc.patch.ipv6 := desc.ipv6
    dc.patch.ceChecksum := desc.ceChecksum
    cc.valid := controlStart
    cc.beats := beatsOf(cfg, controlHead.payload, "controlStart_beats")
    cc.skip := False
    cc.next := 0
    cc.patch.mark := False
    cc.patch.ipv4 := False
    cc.patch.ipv6 := False
    cc.patch.ceChecksum := 0
  }
  admission.io.dataLeaves.valid := dequeue.dataStart
  admission.io.dataLeaves.payload := dequeue.desc.length
  admission.io.controlLeaves.valid := dequeue.controlStart
  admission.io.controlLeaves.payload := dequeue.controlHead.payload

  /** Strict priority (Sec. 3): control, then trimmed headers, then data (queue numbers 0, 1, 2), whole packets. */
  val arbiter = new PacketPriorityArbiter(Seq(controlReader.io.beats, trimBuilder.io.beats, dataReader.io.beats),
    Fragment(TrimOutBeat(cfg)))
  // The output register. No skid buffer in front of it: the next packet is chosen only when the
  // output register takes its first beat (issue 14 defect 1), so m_axis_tready reaches the arbiter.
  val output = arbiter.beat.m2sPipe()
  io.m_axis.valid := output.valid
  output.ready := io.m_axis.ready
  io.m_axis.payload.data := output.fragment.data
  io.m_axis.payload.keep := output.fragment.keep
  io.m_axis.payload.last := output.last
  io.m_axis.payload.user := 0

  private val trimPopped = trimBuilder.io.popped
  io.dequeue.valid := RegNext(dequeue.dataStart || dequeue.controlStart || trimPopped) init (False)
  io.dequeue.start := RegNext(dequeue.dataStart || dequeue.controlStart)
  io.dequeue.queue := RegNext(Mux(dequeue.controlStart, U(queueControl, 2 bits), U(queueData, 2 bits)))
  io.dequeue.occupancy := RegNext(dequeue.occupancy.resize(cfg.occupancyWidth))
  io.dequeue.marked := RegNext(dequeue.dataStart && dequeue.mark)
  io.dequeue.dropped := RegNext(dequeue.dataStart && dequeue.drop)
  io.dequeue.trimPop := RegNext(trimPopped)

  // ---------------------------------------------------------- counters
  /** The counters count one clock after their event: every condition is registered first (off the decision paths). */
  val stats = new Area {
    import CsrCounters._
    private def r(x: Bool): Bool = RegNext(x) init (False)
    private val a = admission.io.admitted
    private val o = a.outcome
    private val end = a.valid
    private def outcome(x: Int): Bool = r(end && o === x)
    count(csr.IN_PACKETS, r(end))
    when(r(end)) { add(csr.IN_BYTES, RegNext(a.wireBytes)) }
    private val sent = io.m_axis.fire
    private val q = output.fragment.queue
    // A beat's bytes in two clocks, byte lanes counted per 8-lane group and then summed: a 64-lane
    // popcount and its sum in one clock was the queue's critical path (3.85 ns at 512 bits).
    // The _BYTES counters therefore count two clocks after the transfer (docs/trimming-queue.md).
    private val groupBytes = io.m_axis.payload.keep.subdivideIn(8 bits).map(g => RegNext(CountOne(g)))
    private val bytes = RegNext(groupBytes.map(_.resize(log2Up(cfg.dataBytes + 1) bits)).reduceBalancedTree(_ + _))
    private def out(packets: UInt, bytesCounter: UInt, queue: Int): Unit = {
      count(packets, r(sent && io.m_axis.payload.last && q === queue))
      when(r(r(sent && q === queue))) { add(bytesCounter, bytes) }
    }
    out(csr.OUT_DATA_PACKETS, csr.OUT_DATA_BYTES, queueData)
    out(csr.OUT_CONTROL_PACKETS, csr.OUT_CONTROL_BYTES, queueControl)
    out(csr.OUT_TRIMMED_PACKETS, csr.OUT_TRIMMED_BYTES, queueTrim)
    count(csr.TRIMMED, outcome(Outcome.TRIM))
    count(csr.MARKED, r(dequeue.dataStart && dequeue.mark))
    count(csr.DROP_BAD_FRAME, outcome(Outcome.DROP_BAD_FRAME))
    count(csr.DROP_OVERSIZE, outcome(Outcome.DROP_OVERSIZE))
    count(csr.DROP_MALFORMED, outcome(Outcome.DROP_MALFORMED))
    count(csr.DROP_RUNT, outcome(Outcome.DROP_RUNT))
    count(csr.DROP_CONTROL_FULL, outcome(Outcome.DROP_CONTROL_FULL))
    count(csr.DROP_CONTROL_OVERSIZE, outcome(Outcome.DROP_CONTROL_OVERSIZE))
    count(csr.DROP_DATA_FULL, outcome(Outcome.DROP_DATA_FULL))
    count(csr.DROP_TRIM_FULL, outcome(Outcome.DROP_TRIM_FULL))
    count(csr.DROP_NON_ECT, r(dequeue.dataStart && dequeue.drop))
    count(csr.NON_ECT_ABOVE_KMAX, r(dequeue.dataStart && dequeue.nonEctAboveKmax && !dequeue.drop))
    count(csr.INTERNAL_OVERRUN, r(admission.io.overrun || trimBuilder.io.overrun || dataReader.io.overrun || controlReader.io.overrun ||
      red.io.overrun))
    count(csr.NON_IP, r(end && a.nonIp))
    count(csr.BAD_IPV4_CHECKSUM, r(end && a.badChecksum))
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_trim_queue_regs", "TRIMQ")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "TRIMQ"
}
