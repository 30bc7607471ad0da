package uehw.hw.trim

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.amba4.axis._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.common.{PacketFormat => PF}

/** One dequeue of the egress port (registered): what the model needs to replay the occupancies. */
case class TrimQueueDequeue(cfg: TrimQueueConfig) extends Bundle {
  /** A control (queue 0) or data (queue 2) packet started to leave, or a data packet was dropped, at the previous clock. */
  val start = Bool()
  val queue = UInt(2 bits)
  /** Data queue bytes when it started (RED's instantaneous occupancy). */
  val occupancy = UInt(cfg.occupancyWidth bits)
  val marked = Bool()
  val dropped = Bool()
  /** A trimmed header left the trim queue for the output at the previous clock. */
  val trimPop = Bool()
}

class TrimQueueIo(cfg: TrimQueueConfig) extends Bundle {
  val axisConfig = Axi4StreamConfig(dataWidth = cfg.W, useKeep = true, useLast = true, useUser = true, userWidth = 1)
  /** Frames from the switch fabric; tuser has one bit per byte lane, any set bit on any beat marks the frame bad (e.g. FCS error). */
  val s_axis = slave(Axi4Stream(axisConfig))
  /** Frames to the MAC; tuser is 0. */
  val m_axis = master(Axi4Stream(axisConfig))
  val dequeue = master(Flow(TrimQueueDequeue(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
}

object TrimQueue {
  /** Admission outcomes (the counters and the model use these names). */
  object Outcome {
    val DATA = 0; val CONTROL = 1; val TRIM = 2; val DROP_BAD_FRAME = 3; val DROP_OVERSIZE = 4; val DROP_MALFORMED = 5
    val DROP_RUNT = 6; val DROP_CONTROL_FULL = 7; val DROP_CONTROL_OVERSIZE = 8; val DROP_DATA_FULL = 9; val DROP_TRIM_FULL = 10
  }
  val queueControl = 0
  val queueTrim = 1
  val queueData = 2
}

case class TrimOutBeat(cfg: TrimQueueConfig) extends Bundle {
  val data = Bits(8 * cfg.W bits)
  val keep = Bits(cfg.W bits)
  val queue = UInt(2 bits)
}

case class TrimDataDescriptor(cfg: TrimQueueConfig) extends Bundle {
  val length = UInt(cfg.lengthWidth bits)
  /** RAM address after the packet's last beat: where the read pointer jumps when it is dropped at dequeue. */
  val next = UInt(log2Up(cfg.dataRamBeats) bits)
  val ipv4 = Bool()
  val ipv6 = Bool()
  val ecnCapable = Bool()
}

case class TrimSnapshot(cfg: TrimQueueConfig) extends Bundle {
  val bytes = Vec(Bits(8 bits), cfg.headerBytes)
  val length = UInt(log2Up(cfg.headerBytes + 1) bits)
}

/**
 * Trimming egress queue (smartt-reps.txt Sec. 2.1, 3, 3.5; docs/trimming-queue.md). Store and
 * forward: every beat is written tentatively into the data RAM and the control RAM; at tlast the
 * frame is classified from its captured headers and committed to one queue, trimmed (a header
 * built from the captured bytes goes to the trim queue) or dropped (both writes rolled back).
 * The output serves control, then trimmed headers, then data, whole packets, one beat a clock;
 * RED marks a data packet when it starts to leave, from the instantaneous byte occupancy. The IPv4
 * header checksum (RFC 791) is verified one clock after tlast: a bad one is counted and never
 * repaired (no trim, no CE mark).
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
  private val countWidth = log2Up(W) // a last beat's byte count - 1

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    val busif = AxiLite4BusInterface(io.ctrl, SizeMapping(0, 256), "TRIMQ")
    private def reg(name: String, address: Int, doc: String) = busif.newRegAt(address, doc = doc)(SymbolName(name))
    private val info = reg("INFO", 0x00, "Generation parameters (read-only)")
    info.field(Bits(8 bits), AccessType.ROV, BigInt(0x54), doc = "Block id 0x54 ('T')")(SymbolName("ID"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(W), doc = "Bytes per beat")(SymbolName("DATA_BYTES"))
    info.field(Bits(8 bits), AccessType.ROV, BigInt(cfg.trimBytes), doc = "Trim length")(SymbolName("TRIM_BYTES"))
    reg("CAPACITY", 0x04, "Data queue capacity (read-only)").field(UInt(25 bits), AccessType.ROV, BigInt(cfg.capacityBytes), doc = "Bytes")(SymbolName("BYTES"))
    private val control = reg("CONTROL", 0x08, "Policy")
    val dropNonEct = control.field(Bool(), AccessType.RW, 0,
      doc = "Non-ECN-capable IP packets when the data queue is at or above KMAX: 0 pass, 1 drop (counted)")(SymbolName("DROP_NON_ECT"))
    val kMin = reg("KMIN", 0x0C, "RED: no marks at or below this occupancy (Sec. 3.5: 20%)")
      .field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.kMinDefault), doc = "Bytes")(SymbolName("BYTES"))
    val kMax = reg("KMAX", 0x10, "RED: every ECN-capable packet marked at or above this occupancy (Sec. 3.5: 80%)")
      .field(UInt(cfg.occupancyWidth bits), AccessType.RW, BigInt(cfg.kMaxDefault), doc = "Bytes")(SymbolName("BYTES"))
    val trimDscp = reg("TRIM_DSCP", 0x14, "DSCP written into trimmed headers")
      .field(UInt(6 bits), AccessType.RW, BigInt(cfg.trimDscp), doc = "DSCP")(SymbolName("VALUE"))
    val udpPort = reg("UDP_PORT", 0x18, "UDP destination port of the transport (only its packets are classified and trimmed)")
      .field(UInt(16 bits), AccessType.RW, BigInt(cfg.udpPort), doc = "Port")(SymbolName("VALUE"))
    private val seedReg = reg("SEED", 0x1C, "RED PRNG seed: writing reloads the xorshift32 state (0 loads 1)")
    val seed = seedReg.field(UInt(32 bits), AccessType.RW, BigInt(cfg.prngSeed), doc = "Seed")(SymbolName("VALUE"))
    val reseed = RegNext(seedReg.hitDoWrite) init (False)

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

    private val counters = new CsrCounters(busif, 0x40)
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
    val INTERNAL_OVERRUN = counter("Descriptor or trim FIFO pushed while full: the admission rules prevent it, so 0")
    val BAD_IPV4_CHECKSUM = counter("IPv4 frames (IHL 5) with a wrong header checksum: never trimmed or marked, forwarded unchanged or dropped")
  }

  private def beatsOf(length: UInt, name: String): UInt = {
    val roundedFull = (length.resize(cfg.lengthWidth + 1) + (W - 1)).setName(name + "_roundedFull")
    roundedFull(cfg.lengthWidth downto log2Up(W)).resize(cfg.lengthWidth)
  }
  private def inc(p: UInt, depth: Int): UInt = Mux(p === depth - 1, U(0, p.getWidth bits), p + 1)

  // ------------------------------------------------------- input, per beat
  io.s_axis.ready := True // store and forward into the RAMs: the input never waits
  val in = new Area {
    val fire = io.s_axis.fire
    val beat = io.s_axis.payload
    val index = Reg(UInt(log2Up(cfg.maxFrameBeats + 2) bits)) init (0) // saturates past the longest frame
    val bytesSoFar = Reg(UInt(cfg.lengthWidth bits)) init (0)
    val badSoFar, malformedSoFar, oversizeSoFar = RegInit(False)
    val keepCount = CountOne(beat.keep)
    val keepContiguous = beat.keep(0) && (beat.keep.asUInt & (beat.keep.asUInt + 1)) === 0
    val beatMalformed = Mux(beat.last, !keepContiguous, !beat.keep.andR)
    val lengthFull = bytesSoFar.resize(cfg.lengthWidth + 1) + keepCount
    val length = Mux(lengthFull.msb, U(cfg.maxFrameBytes + W, cfg.lengthWidth bits), lengthFull.resize(cfg.lengthWidth))
    val oversize = oversizeSoFar || length > cfg.maxFrameBytes
    val bad = badSoFar || beat.user.orR // one tuser bit per byte lane: any of them marks the frame bad
    val malformed = malformedSoFar || beatMalformed
    val lastFire = fire && beat.last
    // IN_BYTES: the bytes the frame took on the bus, exact modulo 2^32 like the counter (no saturation).
    val wireBytes = Reg(UInt(32 bits)) init (0)
    val wireNow = wireBytes + keepCount
    when(fire) { wireBytes := Mux(beat.last, U(0, 32 bits), wireNow) }
    val frameWireBytes = RegNextWhen(wireNow, lastFire) init (0)
    when(fire) {
      index := Mux(index === cfg.maxFrameBeats + 1, index, index + 1)
      bytesSoFar := length
      badSoFar := bad
      malformedSoFar := malformed
      oversizeSoFar := oversize
      when(beat.last) {
        index := 0; bytesSoFar := 0; badSoFar := False; malformedSoFar := False; oversizeSoFar := False
      }
    }

    // The header window: the first headerBytes of the frame; `view` includes the current beat.
    val header = Vec(Reg(Bits(8 bits)), cfg.headerBytes)
    val view = Vec(Bits(8 bits), cfg.headerBytes)
    for (k <- 0 until cfg.headerBytes) {
      val lane = beat.data(8 * (k % W), 8 bits)
      val here = index === k / W
      view(k) := Mux(fire && here, lane, header(k))
      when(fire && here) { header(k) := lane }
    }
  }

  // ------------------------------------------------ classification at tlast
  val classify = new Area {
    private val v = in.view
    def byteAt(o: Int): UInt = v(o).asUInt
    /** Header bytes of which only some bits are fields. */
    val versionIhl = byteAt(PF.Ipv4VersionIhl)
    val tosFull = byteAt(PF.Ipv4Tos)
    def u16(o: Int): UInt = (v(o) ## v(o + 1)).asUInt
    val length = in.length
    val ethType = u16(PF.EthType)
    val ipv4Type = ethType === PF.EthTypeIpv4
    val ipv6Type = ethType === PF.EthTypeIpv6
    val version = versionIhl(7 downto 4)
    val runtEth = length < PF.EthHeaderBytes || (ipv4Type && length < PF.Ipv4UdpOffset) || (ipv6Type && length < PF.Ipv6UdpOffset)
    val ipv4 = ipv4Type && version === 4
    val ipv6 = ipv6Type && version === 6
    val ip = ipv4 || ipv6
    val ihl5 = versionIhl(3 downto 0) === 5
    // RFC 791: MF set or a non-zero offset is a fragment; only the first one carries UDP, none is trusted.
    val fragment = (u16(PF.Ipv4FlagsFragment) & (PF.Ipv4MoreFragments | PF.Ipv4FragmentOffsetMask)) =/= 0
    val udp4 = ipv4 && ihl5 && !fragment && byteAt(PF.Ipv4Protocol) === PF.ProtocolUdp
    val udp6 = ipv6 && byteAt(PF.Ipv6NextHeader) === PF.ProtocolUdp
    val dstPort = Mux(ipv6, u16(PF.Ipv6UdpOffset + PF.UdpDstPort), u16(PF.Ipv4UdpOffset + PF.UdpDstPort))
    val transport = (udp4 || udp6) && dstPort === csr.udpPort
    val headerLength = Mux(ipv6, U(PF.Ipv6AllHeaderBytes, 7 bits), U(PF.Ipv4AllHeaderBytes, 7 bits))
    // A UDP packet must hold its UDP header (else its port would be read from the previous frame's
    // bytes), and a transport packet all its headers.
    val udpRunt = (udp4 && length < PF.Ipv4TransportOffset) || (udp6 && length < PF.Ipv6TransportOffset)
    val runt = runtEth || udpRunt || (transport && length < headerLength)
    val flags = Mux(ipv6, byteAt(PF.Ipv6TransportOffset + PF.TpFlags), byteAt(PF.Ipv4TransportOffset + PF.TpFlags))
    val control = transport && (flags & PF.ControlFlags) =/= 0
    val ecn = Mux(ipv6, tosFull(5 downto 4), tosFull(1 downto 0)) // IPv6: ECN in bits 5:4 of the same byte
    val ecnCapable = ip && ecn =/= PF.EcnNotEct
    val beats = beatsOf(length, "classify_beats")
  }

  // ------------------------------------------------------ queue state
  /** Occupancies, changed at admission (tlast) and when a packet starts to leave. */
  val occ = new Area {
    val dataBytes = Reg(UInt(cfg.occupancyWidth + 1 bits)) init (0)
    val dataBeats = Reg(UInt(scala.math.max(log2Up(cfg.dataBeatLimit + 1) + 1, cfg.lengthWidth) bits)) init (0)
    val dataDescs = Reg(UInt(log2Up(cfg.dataDescriptors + 1) bits)) init (0)
    val controlBytes = Reg(UInt(21 bits)) init (0)
    val controlBeats = Reg(UInt(scala.math.max(log2Up(cfg.controlBeatLimit + 1) + 1, cfg.lengthWidth) bits)) init (0)
    val controlDescs = Reg(UInt(log2Up(cfg.controlDescriptors + 1) bits)) init (0)
    val trimCount = Reg(UInt(11 bits)) init (0)
    val dataHighWater = Reg(UInt(cfg.occupancyWidth bits)) init (0)
    val controlHighWater = Reg(UInt(21 bits)) init (0)
  }
  csr.dataBytes := occ.dataBytes.resize(cfg.occupancyWidth)
  csr.dataHighWater := occ.dataHighWater
  csr.controlBytes := occ.controlBytes
  csr.controlHighWater := occ.controlHighWater
  csr.trimWaiting := occ.trimCount

  /** The admission decision for the frame ending at this beat (smartt-reps.txt Sec. 2.1, 3). */
  val admit = new Area {
    private val c = classify
    val dataFits = occ.dataBytes + c.length <= cfg.capacityBytes &&
      occ.dataBeats + c.beats <= cfg.dataBeatLimit && occ.dataDescs < cfg.dataDescriptors
    val controlFits = occ.controlBytes + c.length <= cfg.controlBytes &&
      occ.controlBeats + c.beats <= cfg.controlBeatLimit && occ.controlDescs < cfg.controlDescriptors
    /** A trim cancelled this clock by its bad IPv4 checksum (below) frees its entry at once. */
    val trimCancel = Bool()
    val trimFits = occ.trimCount < cfg.trimEntries || (trimCancel && occ.trimCount === cfg.trimEntries)
    val outcome = UInt(4 bits)
    when(in.bad) {
      outcome := Outcome.DROP_BAD_FRAME
    } elsewhen (in.oversize) {
      outcome := Outcome.DROP_OVERSIZE
    } elsewhen (in.malformed) {
      outcome := Outcome.DROP_MALFORMED
    } elsewhen (c.runt) {
      outcome := Outcome.DROP_RUNT
    } elsewhen (c.control) {
      // Control packets (ACK, NACK, trimmed headers) are never trimmed; no room: dropped.
      outcome := Mux(c.length > cfg.maxControlBytes, U(Outcome.DROP_CONTROL_OVERSIZE, 4 bits),
        Mux(controlFits, U(Outcome.CONTROL, 4 bits), U(Outcome.DROP_CONTROL_FULL, 4 bits)))
    } elsewhen (dataFits) {
      outcome := Outcome.DATA
    } elsewhen (c.transport) {
      // Sec. 2.1: a data packet that would overflow the queue is trimmed to its headers.
      outcome := Mux(trimFits, U(Outcome.TRIM, 4 bits), U(Outcome.DROP_TRIM_FULL, 4 bits))
    } otherwise {
      outcome := Outcome.DROP_DATA_FULL // not the transport: no receiver would understand a trimmed header
    }
    // The same decisions as plain conditions, so that trimFits only reaches the trim path.
    private val okFrame = !in.bad && !in.oversize && !in.malformed && !c.runt
    val commitControl = okFrame && c.control && c.length <= cfg.maxControlBytes && controlFits
    val commitData = okFrame && !c.control && dataFits
    val toData = in.lastFire && commitData
    val toControl = in.lastFire && commitControl
    val toTrim = in.lastFire && okFrame && !c.control && !dataFits && c.transport && trimFits
    /** Frames whose IPv4 header checksum is verified: they reached classification, IPv4 with IHL 5. */
    val checked = okFrame && c.ipv4 && c.ihl5
  }

  /**
   * RFC 791 / RFC 1071: the 20-byte IPv4 header sums to 0xFFFF. Pipelined: the words of each beat
   * are added in groups of at most four as the beat is taken (registered); the clock after tlast
   * adds the groups, folds once and compares. The verdict arrives one clock after the admission.
   */
  val ipv4Check = new Area {
    private val words = (PF.EthHeaderBytes until PF.Ipv4UdpOffset by 2) // even offsets: a word never straddles a beat
    private val groups = words.groupBy(_ / W).toSeq.sortBy(_._1).flatMap { case (b, ws) => ws.grouped(4).map(b -> _) }
    val partial = groups.map { case (b, ws) =>
      val r = Reg(UInt(18 bits)) init (0)
      when(in.fire && in.index === b) {
        r := ws.map(o => (in.beat.data(8 * (o % W), 8 bits) ## in.beat.data(8 * ((o + 1) % W), 8 bits)).asUInt.resize(18)).reduceBalancedTree(_ + _)
      }
      r
    }
    val total = partial.map(_.resize(20)).reduceBalancedTree(_ + _)
    val folded = total(15 downto 0).resize(17) + total(19 downto 16) // <= 0x1000E: all ones only without a carry
    val ok = folded === 0xFFFF
  }

  /** The clock after tlast: the checksum's verdict on the frame admitted at the previous clock. */
  val late = new Area {
    val valid = RegNext(in.lastFire) init (False)
    val checked = RegNext(admit.checked) init (False)
    val outcome = RegNext(admit.outcome) init (0)
    val toData = RegNext(admit.toData) init (False)
    val toTrim = RegNext(admit.toTrim) init (False)
    val bad = valid && checked && !ipv4Check.ok
    /** A data frame that would be trimmed but has a bad checksum: dropped (DROP_DATA_FULL), its trim entry freed. */
    val cancel = toTrim && bad
  }
  admit.trimCancel := late.cancel

  // ------------------------------------------- RAMs with tentative writes
  private val ramWidth = 8 * W + countWidth + 1
  class PacketRam(depth: Int, maxBeats: Int, commit: Bool, skip: Bool, skipTo: UInt) extends Area {
    val ram = Mem(Bits(ramWidth bits), depth)
    val tentative, committed, read = Reg(UInt(log2Up(depth) bits)) init (0)
    val lastCountFull = in.keepCount - 1
    val lastCount = lastCountFull(countWidth - 1 downto 0)
    val write = in.fire && in.index < maxBeats
    ram.write(tentative, in.beat.data ## lastCount ## in.beat.last, write)
    val afterWrite = Mux(write, inc(tentative, depth), tentative)
    tentative := afterWrite
    when(in.lastFire) {
      // Commit the whole frame, or roll every beat of it back.
      when(commit) { committed := afterWrite } otherwise { tentative := committed }
    }
    // Read side: the head beat waits in the RAM's output register, one beat a clock. `skip` drops
    // the head packet in one clock: the read pointer jumps to `skipTo`, the address after its last beat.
    val headValid = RegInit(False)
    val words = Stream(Bits(ramWidth bits))
    val consume = words.fire || skip
    val readAddress = Mux(skip, skipTo, read)
    val load = readAddress =/= committed && (!headValid || consume)
    words.valid := headValid
    words.payload := ram.readSync(readAddress, load)
    read := Mux(load, inc(readAddress, depth), readAddress)
    headValid := load || (headValid && !consume)
    def beats(queue: Int): Stream[Fragment[TrimOutBeat]] = words.map { w =>
      val f = Fragment(TrimOutBeat(cfg))
      val last = w(0)
      val count = w(countWidth downto 1).asUInt
      f.fragment.data := w(ramWidth - 1 downto countWidth + 1)
      f.fragment.keep := Mux(last, (U((BigInt(1) << W) - 1, W bits) >> (U(W - 1, countWidth bits) - count)).asBits, B((BigInt(1) << W) - 1, W bits))
      f.fragment.queue := queue
      f.last := last
      f
    }
  }
  /** Drop the head data packet at dequeue (set by `dequeue`). */
  val dataSkip = Bool()
  val dataSkipTo = UInt(log2Up(cfg.dataRamBeats) bits)
  val dataRam = new PacketRam(cfg.dataRamBeats, cfg.maxFrameBeats, admit.commitData, dataSkip, dataSkipTo)
  val controlRam = new PacketRam(cfg.controlRamBeats, cfg.maxControlBeats, admit.commitControl, False, U(0, log2Up(cfg.controlRamBeats) bits))

  val dataDescriptors = StreamFifo(TrimDataDescriptor(cfg), cfg.dataDescriptors)
  dataDescriptors.io.push.valid := admit.toData
  dataDescriptors.io.push.length := classify.length
  dataDescriptors.io.push.ipv4 := classify.ipv4
  dataDescriptors.io.push.ipv6 := classify.ipv6
  dataDescriptors.io.push.ecnCapable := classify.ecnCapable
  dataDescriptors.io.push.next := dataRam.afterWrite
  /** The checksum verdict of each data descriptor, written one clock after its push (read at its start, two or more clocks later). */
  val dataBadChecksum = new Area {
    val bits = Mem(Bool(), cfg.dataDescriptors)
    val write, read = Reg(UInt(log2Up(cfg.dataDescriptors) bits)) init (0)
    when(late.toData) { bits.write(write, late.bad); write := inc(write, cfg.dataDescriptors) }
    when(dataDescriptors.io.pop.fire) { read := inc(read, cfg.dataDescriptors) }
    val head = bits.readAsync(read, writeFirst) // written at least a clock before it is read
  }
  val controlLengths = StreamFifo(UInt(cfg.lengthWidth bits), cfg.controlDescriptors)
  controlLengths.io.push.valid := admit.toControl
  controlLengths.io.push.payload := classify.length

  // --------------------------------------------------- trimmed headers
  /**
   * Sec. 2.1 and README (htsim): keep the first max(trim-bytes, headers) bytes, set TRIMMED and
   * TRIM_DSCP, fix the IP and UDP lengths, recompute the IPv4 header checksum and zero the UDP
   * checksum (IPv4) or recompute it (IPv6). Built one clock after tlast; not pushed when the
   * IPv4 header checksum was wrong (never launder it).
   */
  val trim = new Area {
    val pending = RegNext(admit.toTrim) init (False)
    val raw = RegNextWhen(in.view, admit.toTrim)
    val frameLength = RegNextWhen(classify.length, admit.toTrim)
    val ipv6 = RegNextWhen(classify.ipv6, admit.toTrim)
    val keepTarget = Mux(ipv6, U(scala.math.max(cfg.trimBytes, PF.Ipv6AllHeaderBytes)), U(cfg.trimBytes))
    val keptFull = Mux(frameLength < keepTarget.resize(cfg.lengthWidth), frameLength, keepTarget.resize(cfg.lengthWidth))
    val kept = keptFull(log2Up(cfg.headerBytes + 1) - 1 downto 0) // at most keptMax
    val out = Vec(Bits(8 bits), cfg.headerBytes)
    for (k <- 0 until cfg.headerBytes) out(k) := Mux(k < kept, raw(k), B(0, 8 bits))
    private def put16(o: Int, value: UInt): Unit = { out(o) := value(15 downto 8).asBits; out(o + 1) := value(7 downto 0).asBits }
    private val dscp = csr.trimDscp
    when(ipv6) {
      val tc = dscp.asBits ## raw(PF.Ipv6TcFlow)(5 downto 4)
      out(PF.Ipv6VersionTc) := raw(PF.Ipv6VersionTc)(7 downto 4) ## tc(7 downto 4)
      out(PF.Ipv6TcFlow) := tc(3 downto 0) ## raw(PF.Ipv6TcFlow)(3 downto 0)
      put16(PF.Ipv6PayloadLength, (kept - PF.Ipv6UdpOffset).resize(16))
      put16(PF.Ipv6UdpOffset + PF.UdpLength, (kept - PF.Ipv6UdpOffset).resize(16))
      out(PF.Ipv6TransportOffset + PF.TpFlags) := raw(PF.Ipv6TransportOffset + PF.TpFlags) | B(PF.FlagTrimmed, 8 bits)
      put16(PF.Ipv6UdpOffset + PF.UdpChecksum, U(0, 16 bits))
    } otherwise {
      out(PF.Ipv4Tos) := dscp.asBits ## raw(PF.Ipv4Tos)(1 downto 0)
      put16(PF.Ipv4TotalLength, (kept - PF.EthHeaderBytes).resize(16))
      put16(PF.Ipv4Checksum, U(0, 16 bits))
      put16(PF.Ipv4UdpOffset + PF.UdpLength, (kept - PF.Ipv4UdpOffset).resize(16))
      put16(PF.Ipv4UdpOffset + PF.UdpChecksum, U(0, 16 bits)) // IPv4: 0 means no UDP checksum (RFC 768)
      out(PF.Ipv4TransportOffset + PF.TpFlags) := raw(PF.Ipv4TransportOffset + PF.TpFlags) | B(PF.FlagTrimmed, 8 bits)
    }
    /** Ones' complement sum of 16-bit words of `out` in [from, until), folded. */
    private def onesSum(from: Int, until: Int, extra: Seq[UInt]): UInt = {
      val words = (from until until by 2).map(o => (out(o) ## out(o + 1)).asUInt.resize(24)) ++ extra.map(_.resize(24))
      val total = words.reduceBalancedTree(_ + _)
      val once = total(15 downto 0).resize(17) + total(23 downto 16)
      (once(15 downto 0) + once(16).asUInt).resize(16)
    }
    val ipv4Checksum = ~onesSum(PF.EthHeaderBytes, PF.Ipv4UdpOffset, Nil)
    val udpLength = (kept - PF.Ipv6UdpOffset).resize(16)
    val ipv6UdpSum = ~onesSum(PF.Ipv6Src, cfg.headerBytes, Seq(udpLength, U(PF.ProtocolUdp, 16 bits)))
    val built = Vec(Bits(8 bits), cfg.headerBytes)
    built := out
    when(ipv6) {
      val c = Mux(ipv6UdpSum === 0, U(0xFFFF, 16 bits), ipv6UdpSum) // RFC 768: a computed 0 is sent as all ones
      built(PF.Ipv6UdpOffset + PF.UdpChecksum) := c(15 downto 8).asBits
      built(PF.Ipv6UdpOffset + PF.UdpChecksum + 1) := c(7 downto 0).asBits
    } otherwise {
      built(PF.Ipv4Checksum) := ipv4Checksum(15 downto 8).asBits
      built(PF.Ipv4Checksum + 1) := ipv4Checksum(7 downto 0).asBits
    }
    val fifo = StreamFifo(TrimSnapshot(cfg), cfg.trimEntries + 1)
    fifo.io.push.valid := pending && !late.bad
    fifo.io.push.bytes := built
    fifo.io.push.length := kept

    // Serialise the waiting headers, back to back.
    val current = Reg(TrimSnapshot(cfg))
    val active = RegInit(False)
    val beat = Reg(UInt(log2Up(cfg.headerBeats + 1) bits)) init (0)
    val stream = Stream(Fragment(TrimOutBeat(cfg)))
    val lengthMinusOneFull = current.length - 1
    val lastBeat = lengthMinusOneFull(lengthMinusOneFull.getWidth - 1 downto log2Up(W)).resize(beat.getWidth)
    val isLast = beat === lastBeat
    val words = Vec((0 until cfg.headerBeats).map(b => Cat((0 until W).map(j => current.bytes(b * W + j))))) // Cat: first = LSB
    val tailBytes = lengthMinusOneFull(countWidth - 1 downto 0)
    stream.valid := active
    stream.fragment.data := words(beat.resize(log2Up(cfg.headerBeats).max(1)))
    stream.fragment.keep := Mux(isLast, (U((BigInt(1) << W) - 1, W bits) >> (U(W - 1, countWidth bits) - tailBytes)).asBits,
      B((BigInt(1) << W) - 1, W bits))
    stream.fragment.queue := queueTrim
    stream.last := isLast
    when(stream.fire) {
      beat := beat + 1
      when(isLast) { active := False }
    }
    fifo.io.pop.ready := !active || (stream.fire && isLast)
    val popped = fifo.io.pop.fire
    when(popped) {
      current := fifo.io.pop.payload
      active := True
      beat := 0
    }
  }

  // ---------------------------------------------------------- output
  /** A queue's first beat of a packet waits for its descriptor (pushed in the same clock as the commit). */
  private def withDescriptor(beats: Stream[Fragment[TrimOutBeat]], descriptorValid: Bool): Stream[Fragment[TrimOutBeat]] = {
    val first = RegInit(True)
    when(beats.fire) { first := beats.last }
    beats.continueWhen(!first || descriptorValid)
  }
  val controlIn = withDescriptor(controlRam.beats(queueControl), controlLengths.io.pop.valid)
  val dataIn = withDescriptor(dataRam.beats(queueData), dataDescriptors.io.pop.valid)
  /** The beat offered to the output register (control, trimmed header or data). */
  val arbiter = Stream(Fragment(TrimOutBeat(cfg)))

  /**
   * Strict priority (Sec. 3), chosen when the output register takes a packet's first beat, not
   * before: while the output is held at a packet boundary the choice stays open, so a control
   * packet arriving meanwhile goes before any data packet. A data packet dropped at dequeue is
   * skipped in one clock, output held or not. RED when a data packet starts to leave (Sec. 3.5).
   */
  val dequeue = new Area {
    val busy = RegInit(False) // the output took a packet's first beat and not yet its last
    val lockedQueue = Reg(UInt(2 bits)) init (0)
    val first = !busy
    val proposal = Mux(controlIn.valid, U(queueControl, 2 bits), Mux(trim.stream.valid, U(queueTrim, 2 bits), U(queueData, 2 bits)))
    val queue = Mux(busy, lockedQueue, proposal)
    val isData = queue === queueData
    val desc = dataDescriptors.io.pop.payload

    val prng = new Xorshift32(cfg.prngSeed)
    prng.reseed := csr.reseed
    prng.seedValue := csr.seed
    val occupancy = occ.dataBytes.resize(cfg.occupancyWidth)
    val span = Mux(csr.kMax > csr.kMin, csr.kMax - csr.kMin, U(0, cfg.occupancyWidth bits))
    val draw = prng.scaled(span, cfg.occupancyWidth) // uniform in [0, span)
    // Linear from 0 at KMIN to 1 at KMAX: P(draw < occupancy - KMIN) = (occupancy - KMIN) / (KMAX - KMIN).
    val congested = occupancy >= csr.kMax || (occupancy > csr.kMin && draw < occupancy - csr.kMin)
    val descIpv4 = desc.ipv4 && !dataBadChecksum.head // a bad IPv4 header checksum: not trusted as IP, left unchanged
    val ip = descIpv4 || desc.ipv6
    val markNow = congested && ip && desc.ecnCapable
    val dropNow = csr.dropNonEct && ip && !desc.ecnCapable && occupancy >= csr.kMax
    val nonEctAboveKmax = ip && !desc.ecnCapable && occupancy >= csr.kMax
    /** The head data packet is dropped: its beats are skipped, never streamed. */
    val skip = first && isData && dataIn.valid && dropNow
    dataSkip := skip
    dataSkipTo := desc.next

    arbiter.valid := queue.mux(queueControl -> controlIn.valid, queueTrim -> trim.stream.valid, default -> (dataIn.valid && !skip))
    arbiter.payload := queue.mux(queueControl -> controlIn.payload, queueTrim -> trim.stream.payload, default -> dataIn.payload)
    controlIn.ready := arbiter.ready && queue === queueControl
    trim.stream.ready := arbiter.ready && queue === queueTrim
    dataIn.ready := arbiter.ready && isData && !skip
    when(arbiter.fire) {
      busy := !arbiter.last
      lockedQueue := queue
    }

    val starting = (arbiter.fire && first) || skip
    dataDescriptors.io.pop.ready := starting && isData
    controlLengths.io.pop.ready := starting && queue === queueControl
    prng.draw := starting && isData // one draw per data packet, used or not
    val drop = isData && dropNow // only at a packet's start (a dropped packet never streams)
    val markReg, ipv4Reg, ipv6Reg = Reg(Bool()) init (False)
    val mark = Mux(first, isData && markNow, markReg)
    val ipv4 = Mux(first, descIpv4, ipv4Reg)
    val ipv6 = Mux(first, desc.ipv6, ipv6Reg)
    when(starting) {
      markReg := isData && markNow; ipv4Reg := descIpv4; ipv6Reg := desc.ipv6
    }
    val beatIndex = Reg(UInt(log2Up(cfg.maxFrameBeats + 1) bits)) init (0)
    val index = Mux(first, U(0, beatIndex.getWidth bits), beatIndex)
    when(arbiter.fire) { beatIndex := Mux(arbiter.last, U(0), index + 1) }
  }

  /** CE marking with the IPv4 header checksum updated (RFC 1624: HC' = ~(~HC + ~m + m')). */
  val patch = new Area {
    private val d = dequeue
    private def lane(data: Bits, o: Int): Bits = data(8 * (o % W), 8 bits)
    val inData = arbiter.fragment.data
    val tosBeat = d.index === PF.Ipv4Tos / W
    val sumBeat = d.index === PF.Ipv4Checksum / W
    val oldWordReg = Reg(Bits(16 bits)) init (0)
    val oldWord = Mux(tosBeat, lane(inData, PF.Ipv4VersionIhl) ## lane(inData, PF.Ipv4Tos), oldWordReg)
    when(arbiter.fire && tosBeat) { oldWordReg := oldWord }
    val newWord = oldWord | B(PF.EcnCe, 16 bits)
    val oldSum = (lane(inData, PF.Ipv4Checksum) ## lane(inData, PF.Ipv4Checksum + 1)).asUInt
    private def onesAdd(a: UInt, b: UInt): UInt = { val s = a.resize(17) + b.resize(17); (s(15 downto 0) + s(16).asUInt).resize(16) }
    val newSum = ~onesAdd(onesAdd(~oldSum, (~oldWord).asUInt), newWord.asUInt)
    val outData = Bits(8 * W bits)
    outData := inData
    when(d.mark && d.ipv4) {
      when(tosBeat) { outData(8 * (PF.Ipv4Tos % W), 8 bits) := lane(inData, PF.Ipv4Tos) | B(PF.EcnCe, 8 bits) }
      when(sumBeat) {
        outData(8 * (PF.Ipv4Checksum % W), 8 bits) := newSum(15 downto 8).asBits
        outData(8 * ((PF.Ipv4Checksum + 1) % W), 8 bits) := newSum(7 downto 0).asBits
      }
    }
    when(d.mark && d.ipv6 && d.index === PF.Ipv6TcFlow / W) {
      outData(8 * (PF.Ipv6TcFlow % W), 8 bits) := lane(inData, PF.Ipv6TcFlow) | B(PF.EcnCe << 4, 8 bits)
    }
  }

  val output = arbiter.translateWith {
    val f = Fragment(TrimOutBeat(cfg))
    f.fragment.data := patch.outData
    f.fragment.keep := arbiter.fragment.keep
    f.fragment.queue := arbiter.fragment.queue
    f.last := arbiter.last
    f
  }.m2sPipe()
  io.m_axis.valid := output.valid
  output.ready := io.m_axis.ready
  io.m_axis.payload.data := output.fragment.data
  io.m_axis.payload.keep := output.fragment.keep
  io.m_axis.payload.last := output.last
  io.m_axis.payload.user := 0

  // ----------------------------------------------- occupancy bookkeeping
  val bookkeeping = new Area {
    private val d = dequeue
    private val c = classify
    val dataStart = d.starting && d.queue === queueData
    val controlStart = d.starting && d.queue === queueControl
    val dataOut = Mux(dataStart, d.desc.length, U(0, cfg.lengthWidth bits))
    val controlOut = Mux(controlStart, controlLengths.io.pop.payload, U(0, cfg.lengthWidth bits))
    val dataIn = Mux(admit.toData, c.length, U(0, cfg.lengthWidth bits))
    val controlIn = Mux(admit.toControl, c.length, U(0, cfg.lengthWidth bits))
    val nextData = occ.dataBytes + dataIn - dataOut
    occ.dataBytes := nextData
    private def amount(when: Bool, value: UInt, width: Int): UInt = Mux(when, value.resize(width), U(0, width bits))
    private val dw = occ.dataBeats.getWidth
    private val cw = occ.controlBeats.getWidth
    occ.dataBeats := occ.dataBeats + amount(admit.toData, c.beats, dw) - amount(dataStart, beatsOf(d.desc.length, "dataOut_beats"), dw)
    occ.dataDescs := occ.dataDescs + admit.toData.asUInt - dataStart.asUInt
    val nextControl = occ.controlBytes + controlIn - controlOut
    occ.controlBytes := nextControl
    occ.controlBeats := occ.controlBeats + amount(admit.toControl, c.beats, cw) - amount(controlStart, beatsOf(controlLengths.io.pop.payload, "controlOut_beats"), cw)
    occ.controlDescs := occ.controlDescs + admit.toControl.asUInt - controlStart.asUInt
    occ.trimCount := occ.trimCount + admit.toTrim.asUInt - trim.popped.asUInt - late.cancel.asUInt
    // From the registered occupancies (one clock later, the same maximum): off the admission path.
    when(occ.dataBytes.resize(cfg.occupancyWidth) > occ.dataHighWater) { occ.dataHighWater := occ.dataBytes.resize(cfg.occupancyWidth) }
    when(occ.controlBytes > occ.controlHighWater) { occ.controlHighWater := occ.controlBytes }
  }

  io.dequeue.valid := RegNext(dequeue.starting && dequeue.queue =/= queueTrim || trim.popped) init (False)
  io.dequeue.start := RegNext(dequeue.starting && dequeue.queue =/= queueTrim)
  io.dequeue.queue := RegNext(dequeue.queue)
  io.dequeue.occupancy := RegNext(dequeue.occupancy)
  io.dequeue.marked := RegNext(dequeue.mark)
  io.dequeue.dropped := RegNext(dequeue.drop)
  io.dequeue.trimPop := RegNext(trim.popped)

  // ---------------------------------------------------------- counters
  val stats = new Area {
    import CsrCounters._
    private val o = admit.outcome
    private val end = in.lastFire
    count(csr.IN_PACKETS, late.valid) // one clock after tlast, with the frame's exact byte count
    when(late.valid) { add(csr.IN_BYTES, in.frameWireBytes) }
    private val sent = io.m_axis.fire
    private val q = output.fragment.queue
    private val bytes = CountOne(io.m_axis.payload.keep)
    private def out(packets: UInt, bytesCounter: UInt, queue: Int): Unit = {
      count(packets, sent && io.m_axis.payload.last && q === queue)
      when(sent && q === queue) { add(bytesCounter, bytes) }
    }
    out(csr.OUT_DATA_PACKETS, csr.OUT_DATA_BYTES, queueData)
    out(csr.OUT_CONTROL_PACKETS, csr.OUT_CONTROL_BYTES, queueControl)
    out(csr.OUT_TRIMMED_PACKETS, csr.OUT_TRIMMED_BYTES, queueTrim)
    // One clock after tlast, with the checksum's verdict: a trim or a full trim queue of a frame
    // with a bad IPv4 header checksum becomes DROP_DATA_FULL (it cannot be trimmed).
    private val lo = late.outcome
    private val untrimmable = late.bad && (lo === Outcome.TRIM || lo === Outcome.DROP_TRIM_FULL)
    count(csr.TRIMMED, late.valid && lo === Outcome.TRIM && !late.bad)
    count(csr.MARKED, dequeue.starting && dequeue.mark)
    count(csr.DROP_BAD_FRAME, end && o === Outcome.DROP_BAD_FRAME)
    count(csr.DROP_OVERSIZE, end && o === Outcome.DROP_OVERSIZE)
    count(csr.DROP_MALFORMED, end && o === Outcome.DROP_MALFORMED)
    count(csr.DROP_RUNT, end && o === Outcome.DROP_RUNT)
    count(csr.DROP_CONTROL_FULL, end && o === Outcome.DROP_CONTROL_FULL)
    count(csr.DROP_CONTROL_OVERSIZE, end && o === Outcome.DROP_CONTROL_OVERSIZE)
    count(csr.DROP_DATA_FULL, late.valid && (lo === Outcome.DROP_DATA_FULL || untrimmable))
    count(csr.DROP_TRIM_FULL, late.valid && lo === Outcome.DROP_TRIM_FULL && !late.bad)
    count(csr.DROP_NON_ECT, dequeue.starting && dequeue.drop)
    count(csr.NON_ECT_ABOVE_KMAX, dequeue.starting && dequeue.isData && dequeue.nonEctAboveKmax && !dequeue.drop)
    count(csr.INTERNAL_OVERRUN, dataDescriptors.io.push.isStall || controlLengths.io.push.isStall || trim.fifo.io.push.isStall)
    count(csr.NON_IP, end && !in.bad && !in.oversize && !in.malformed && !classify.runt && !classify.ip)
    count(csr.BAD_IPV4_CHECKSUM, late.bad)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_trim_queue_regs", "TRIMQ")
}
