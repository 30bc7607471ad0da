// SPDX-License-Identifier: Apache-2.0
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
  /** Clocks from the edge that takes a frame's tlast to the edge that admits it (commit, counters, occupancies). */
  val admissionClocks = 4
  /** Clocks from the admission of a trimmed frame to the push of its header checksum (the header itself is pushed at the admission). */
  val trimBuildClocks = 4
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
  /** The IPv4 header checksum after a CE mark (RFC 1624), precomputed at admission. */
  val ceChecksum = Bits(16 bits)
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
 * header checksum (RFC 791) is verified before the admission: a bad one is counted and never
 * repaired (no trim, no CE mark). The admission is pipelined: a frame is decided
 * `admissionClocks` after its tlast was taken (beat registers s0-s3).
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

  private def beatsOf(length: UInt, name: String): UInt = {
    val roundedFull = (length.resize(cfg.lengthWidth + 1) + (W - 1)).setName(name + "_roundedFull")
    roundedFull(cfg.lengthWidth downto log2Up(W)).resize(cfg.lengthWidth)
  }
  private def inc(p: UInt, depth: Int): UInt = Mux(p === depth - 1, U(0, p.getWidth bits), p + 1)

  // ------------------------------------------------------- input, per beat
  io.s_axis.ready := True // store and forward into the RAMs: the input never waits
  private val indexWidth = log2Up(cfg.maxFrameBeats + 2) // saturates past the longest frame
  private def lane(data: Bits, o: Int): Bits = data(8 * (o % W), 8 bits)

  /**
   * The input runs down four beat registers, s0 to s3, one clock each, and the frame is decided
   * when its last beat sits in s3 (TrimQueue.admissionClocks after its tlast was taken): s1 has
   * the beat's byte count and checks, s2 the frame's length so far, s3 the classification. A
   * beat is written into the RAMs from s3, so the next frame's beats only follow the decision.
   */
  val s0 = new Area {
    val valid = RegNext(io.s_axis.fire) init (False)
    val beat = RegNext(io.s_axis.payload)
    /** Beat index of the beat in s0 within its frame. */
    val index = Reg(UInt(indexWidth bits)) init (0)
    when(valid) { index := Mux(beat.last, U(0, indexWidth bits), Mux(index === cfg.maxFrameBeats + 1, index, index + 1)) }
  }

  val s1 = new Area {
    val valid = RegNext(s0.valid) init (False)
    val data = RegNext(s0.beat.data)
    val last = RegNext(s0.beat.last) init (False)
    val index = RegNext(s0.index)
    val keepCount = RegNext(CountOne(s0.beat.keep))
    private val keep = s0.beat.keep
    private val keepContiguous = keep(0) && (keep.asUInt & (keep.asUInt + 1)) === 0
    /** tkeep not contiguous from lane 0 on the last beat, or not all ones before it. */
    val malformedBeat = RegNext(Mux(s0.beat.last, !keepContiguous, !keep.andR))
    /** One tuser bit per byte lane: any of them marks the frame bad. */
    val badBeat = RegNext(s0.beat.user.orR)
  }

  // The header window: the first headerBytes of the frame, complete when its last beat is in s1.
  val header = Vec(Reg(Bits(8 bits)), cfg.headerBytes)
  for (k <- 0 until cfg.headerBytes) {
    when(s0.valid && s0.index === k / W) { header(k) := lane(s0.beat.data, k) }
  }

  /** Running per-frame sums, of the beats before the one in s1. */
  val frameSoFar = new Area {
    val bytes = Reg(UInt(cfg.lengthWidth bits)) init (0)
    val bad, malformed = RegInit(False)
    // IN_BYTES: the bytes the frame took on the bus, exact modulo 2^32 like the counter (no saturation).
    val wire = Reg(UInt(32 bits)) init (0)
    val lengthFull = bytes.resize(cfg.lengthWidth + 1) + s1.keepCount
    /** Saturates above max-frame-bytes: a longer frame stays longer. */
    val length = Mux(lengthFull.msb, U(cfg.maxFrameBytes + W, cfg.lengthWidth bits), lengthFull.resize(cfg.lengthWidth))
    val wireNow = wire + s1.keepCount
    when(s1.valid) {
      bytes := Mux(s1.last, U(0, cfg.lengthWidth bits), length)
      wire := Mux(s1.last, U(0, 32 bits), wireNow)
      bad := !s1.last && (bad || s1.badBeat)
      malformed := !s1.last && (malformed || s1.malformedBeat)
    }
  }

  val s2 = new Area {
    val valid = RegNext(s1.valid) init (False)
    val data = RegNext(s1.data)
    val last = RegNext(s1.last) init (False)
    val index = RegNext(s1.index)
    val keepCount = RegNext(s1.keepCount)
    /** The frame's bytes up to and including this beat (its length at the last beat). */
    val length = RegNext(frameSoFar.length)
    val wireBytes = RegNext(frameSoFar.wireNow)
    val bad = RegNext(frameSoFar.bad || s1.badBeat)
    val malformed = RegNext(frameSoFar.malformed || s1.malformedBeat)
  }

  /** Header fields, from the header window while the frame's last beat is in s1; registered beside s2. */
  /**
   * Header fields, from the header window while the frame's last beat is in s1: each test of a
   * field registered on its own beside s2, where they are combined (two LUT levels at most).
   */
  val headerClass = new Area {
    private def byteAt(o: Int): UInt = header(o).asUInt
    private def u16(o: Int): UInt = (header(o) ## header(o + 1)).asUInt
    private def r(x: Bool): Bool = RegNext(x)
    private val versionIhl = byteAt(PF.Ipv4VersionIhl)
    private val tosFull = byteAt(PF.Ipv4Tos)
    private val ethType = u16(PF.EthType)
    private val version = versionIhl(7 downto 4)
    val ipv4Type = r(ethType === PF.EthTypeIpv4)
    val ipv6Type = r(ethType === PF.EthTypeIpv6)
    val ipv6Now = ethType === PF.EthTypeIpv6 && version === 6
    val ipv4 = ipv4Type && r(version === 4)
    val ipv6 = ipv6Type && r(version === 6)
    val ihl5 = r(versionIhl(3 downto 0) === 5)
    // RFC 791: MF set or a non-zero offset is a fragment; only the first one carries UDP, none is trusted.
    private val fragment = r((u16(PF.Ipv4FlagsFragment) & (PF.Ipv4MoreFragments | PF.Ipv4FragmentOffsetMask)) =/= 0)
    val udp4 = ipv4 && ihl5 && !fragment && r(byteAt(PF.Ipv4Protocol) === PF.ProtocolUdp)
    val udp6 = ipv6 && r(byteAt(PF.Ipv6NextHeader) === PF.ProtocolUdp)
    private val transport4 = udp4 && r(u16(PF.Ipv4UdpOffset + PF.UdpDstPort) === csr.udpPort)
    private val transport6 = udp6 && r(u16(PF.Ipv6UdpOffset + PF.UdpDstPort) === csr.udpPort)
    val transport = transport4 || transport6
    private def controlFlags(o: Int): Bool = r((byteAt(o + PF.TpFlags) & PF.ControlFlags) =/= 0)
    val control = (transport4 && controlFlags(PF.Ipv4TransportOffset)) || (transport6 && controlFlags(PF.Ipv6TransportOffset))
    // IPv6: ECN in bits 5:4 of the same byte.
    val ecnCapable = (ipv4 && r(tosFull(1 downto 0) =/= PF.EcnNotEct)) || (ipv6 && r(tosFull(5 downto 4) =/= PF.EcnNotEct))
    // RFC 1624 for a CE mark: HC' = ~(~HC + ~m + m'), m the word of version/IHL and TOS. First half here.
    private val oldWord = header(PF.Ipv4VersionIhl) ## header(PF.Ipv4Tos)
    val ceHalfSum = RegNext(onesAdd(~u16(PF.Ipv4Checksum), (~oldWord).asUInt))
    val ceWord = RegNext((oldWord | B(PF.EcnCe, 16 bits)).asUInt)
  }
  private def onesAdd(a: UInt, b: UInt): UInt = { val s = a.resize(17) + b.resize(17); (s(15 downto 0) + s(16).asUInt).resize(16) }

  /**
   * RFC 791 / RFC 1071: the 20-byte IPv4 header sums to 0xFFFF. The words of each beat are added
   * in groups of at most four as the beat enters s1; the groups are added beside s2 and folded
   * beside s3.
   */
  val ipv4Check = new Area {
    private val words = (PF.EthHeaderBytes until PF.Ipv4UdpOffset by 2) // even offsets: a word never straddles a beat
    private val groups = words.groupBy(_ / W).toSeq.sortBy(_._1).flatMap { case (b, ws) => ws.grouped(4).map(b -> _) }
    val partial = groups.map { case (b, ws) =>
      val r = Reg(UInt(18 bits)) init (0)
      when(s0.valid && s0.index === b) {
        r := ws.map(o => (lane(s0.beat.data, o) ## lane(s0.beat.data, o + 1)).asUInt.resize(18)).reduceBalancedTree(_ + _)
      }
      r
    }
    val total = RegNext(partial.map(_.resize(20)).reduceBalancedTree(_ + _))
    private val folded = total(15 downto 0).resize(17) + total(19 downto 16) // <= 0x1000E: all ones only without a carry
    val ok = RegNext(folded === 0xFFFF)
  }

  val s3 = new Area {
    val valid = RegNext(s2.valid) init (False)
    val data = RegNext(s2.data)
    val last = RegNext(s2.last) init (False)
    val index = RegNext(s2.index)
    private val lastCountFull = s2.keepCount - 1
    val lastCount = RegNext(lastCountFull(countWidth - 1 downto 0))
    val lastValid = valid && last
  }

  /** The frame's classification, from s2's length and the header fields; registered beside s3. */
  val classify = new Area {
    private val h = headerClass
    private val len = s2.length
    private def r[T <: Data](x: T): T = RegNext(x)
    val length = r(len)
    val wireBytes = r(s2.wireBytes)
    val bad = r(s2.bad)
    val malformed = r(s2.malformed)
    val oversize = r(len > cfg.maxFrameBytes)
    private val runtEth = len < PF.EthHeaderBytes || (h.ipv4Type && len < PF.Ipv4UdpOffset) || (h.ipv6Type && len < PF.Ipv6UdpOffset)
    private val headerLength = Mux(h.ipv6, U(PF.Ipv6AllHeaderBytes, 7 bits), U(PF.Ipv4AllHeaderBytes, 7 bits))
    // A UDP packet must hold its UDP header (else its port would be read from the previous frame's
    // bytes), and a transport packet all its headers.
    private val udpRunt = (h.udp4 && len < PF.Ipv4TransportOffset) || (h.udp6 && len < PF.Ipv6TransportOffset)
    val runt = r(runtEth || udpRunt || (h.transport && len < headerLength))
    val ipv4 = r(h.ipv4)
    val ipv6 = r(h.ipv6)
    val ip = r(h.ipv4 || h.ipv6)
    val transport = r(h.transport)
    val control = r(h.control)
    val controlOversize = r(len > cfg.maxControlBytes)
    val ecnCapable = r(h.ecnCapable)
    val ceChecksum = r((~onesAdd(h.ceHalfSum, h.ceWord)).asBits)
    /** Frames whose IPv4 header checksum is verified: IPv4 with IHL 5 (and not runts, see admit). */
    val ihl5 = r(h.ihl5)
    val beats = r(beatsOf(len, "classify_beats"))
    // The room each queue must have left, so that the admission compares a register with a register.
    val dataBytesRoom = r((U(cfg.capacityBytes, cfg.occupancyWidth + 1 bits) - len).resize(cfg.occupancyWidth + 1))
    val dataBeatsRoom = r(U(cfg.dataBeatLimit, occBeatsWidth(cfg.dataBeatLimit) bits) - beatsOf(len, "dataRoom_beats").resize(occBeatsWidth(cfg.dataBeatLimit)))
    // A control frame longer than the control queue is DROP_CONTROL_OVERSIZE anyway (max-control-bytes <= control-bytes / 2).
    val controlBytesRoom = r((U(cfg.controlBytes, 22 bits) - len.resize(22)).resize(22))
    val controlBeatsRoom = r((U(cfg.controlBeatLimit, occBeatsWidth(cfg.controlBeatLimit) + 1 bits)
      - beatsOf(len, "controlRoom_beats").resize(occBeatsWidth(cfg.controlBeatLimit) + 1)))
  }
  private def occBeatsWidth(limit: Int): Int = scala.math.max(log2Up(limit + 1) + 1, cfg.lengthWidth)

  // ------------------------------------------------------ queue state
  /** Occupancies, changed at admission and when a packet starts to leave. */
  val occ = new Area {
    val dataBytes = Reg(UInt(cfg.occupancyWidth + 1 bits)) init (0)
    val dataBeats = Reg(UInt(occBeatsWidth(cfg.dataBeatLimit) bits)) init (0)
    val dataDescs = Reg(UInt(log2Up(cfg.dataDescriptors + 1) bits)) init (0)
    val controlBytes = Reg(UInt(21 bits)) init (0)
    val controlBeats = Reg(UInt(occBeatsWidth(cfg.controlBeatLimit) bits)) init (0)
    val controlDescs = Reg(UInt(log2Up(cfg.controlDescriptors + 1) bits)) init (0)
    /** dataDescs === dataDescriptors, kept in a register (the admission reads it, not a compare). */
    val dataDescsFull = RegInit(False)
    val trimCount = Reg(UInt(11 bits)) init (0)
    val dataHighWater = Reg(UInt(cfg.occupancyWidth bits)) init (0)
    val controlHighWater = Reg(UInt(21 bits)) init (0)
  }
  csr.dataBytes := occ.dataBytes.resize(cfg.occupancyWidth)
  csr.dataHighWater := occ.dataHighWater
  csr.controlBytes := occ.controlBytes
  csr.controlHighWater := occ.controlHighWater
  csr.trimWaiting := occ.trimCount

  /** The admission decision for the frame whose last beat is in s3 (smartt-reps.txt Sec. 2.1, 3). */
  val admit = new Area {
    private val c = classify
    val end = s3.lastValid
    val dataFits = occ.dataBytes <= c.dataBytesRoom && occ.dataBeats <= c.dataBeatsRoom && !occ.dataDescsFull
    val controlFits = !c.controlBytesRoom.msb && occ.controlBytes.resize(22) <= c.controlBytesRoom &&
      !c.controlBeatsRoom.msb && occ.controlBeats <= c.controlBeatsRoom.resize(occ.controlBeats.getWidth) &&
      occ.controlDescs < cfg.controlDescriptors
    val trimFits = occ.trimCount < cfg.trimEntries
    private val okFrame = !c.bad && !c.oversize && !c.malformed && !c.runt
    /** IPv4 with IHL 5 reached classification: its header checksum is verified. */
    val checked = okFrame && c.ipv4 && c.ihl5
    val badChecksum = checked && !ipv4Check.ok
    val outcome = UInt(4 bits)
    when(c.bad) {
      outcome := Outcome.DROP_BAD_FRAME
    } elsewhen (c.oversize) {
      outcome := Outcome.DROP_OVERSIZE
    } elsewhen (c.malformed) {
      outcome := Outcome.DROP_MALFORMED
    } elsewhen (c.runt) {
      outcome := Outcome.DROP_RUNT
    } elsewhen (c.control) {
      // Control packets (ACK, NACK, trimmed headers) are never trimmed; no room: dropped.
      outcome := Mux(c.controlOversize, U(Outcome.DROP_CONTROL_OVERSIZE, 4 bits),
        Mux(controlFits, U(Outcome.CONTROL, 4 bits), U(Outcome.DROP_CONTROL_FULL, 4 bits)))
    } elsewhen (dataFits) {
      outcome := Outcome.DATA
    } elsewhen (c.transport && !badChecksum) {
      // Sec. 2.1: a data packet that would overflow the queue is trimmed to its headers.
      outcome := Mux(trimFits, U(Outcome.TRIM, 4 bits), U(Outcome.DROP_TRIM_FULL, 4 bits))
    } otherwise {
      // Not the transport (no receiver would understand a trimmed header), or a header not to be trusted.
      outcome := Outcome.DROP_DATA_FULL
    }
    // The same decisions as plain conditions, so that each fits only reaches its own path.
    val commitControl = okFrame && c.control && !c.controlOversize && controlFits
    val commitData = okFrame && !c.control && dataFits
    val toData = end && commitData
    val toControl = end && commitControl
    val toTrim = end && okFrame && !c.control && !dataFits && c.transport && !badChecksum && trimFits
  }

  // ------------------------------------------- RAMs with tentative writes
  private val ramWidth = 8 * W + countWidth + 1
  class PacketRam(depth: Int, maxBeats: Int, commit: Bool) extends Area {
    val ram = Mem(Bits(ramWidth bits), depth)
    val tentative, committed = Reg(UInt(log2Up(depth) bits)) init (0)
    val write = s3.valid && s3.index < maxBeats
    ram.write(tentative, s3.data ## s3.lastCount ## s3.last, write)
    val afterWrite = Mux(write, inc(tentative, depth), tentative)
    tentative := afterWrite
    when(admit.end) {
      // Commit the whole frame, or roll every beat of it back.
      when(commit) { committed := afterWrite } otherwise { tentative := committed }
    }
  }
  val dataRam = new PacketRam(cfg.dataRamBeats, cfg.maxFrameBeats, admit.commitData)
  val controlRam = new PacketRam(cfg.controlRamBeats, cfg.maxControlBeats, admit.commitControl)

  // forFMax: full and empty from registers, so the write enable of the wide descriptor RAM starts at one (3.85 ns otherwise).
  val dataDescriptors = StreamFifo(TrimDataDescriptor(cfg), cfg.dataDescriptors, forFMax = true)
  // Pushed the clock after the admission (registered): the FIFOs' write logic starts at a register.
  private val descriptorNow = TrimDataDescriptor(cfg)
  descriptorNow.length := classify.length
  // A wrong IPv4 header checksum: not trusted as IP, left unchanged (never marked, never dropped as non-ECT).
  descriptorNow.ipv4 := classify.ipv4 && !admit.badChecksum
  descriptorNow.ipv6 := classify.ipv6
  descriptorNow.ecnCapable := classify.ecnCapable
  descriptorNow.ceChecksum := classify.ceChecksum
  descriptorNow.next := dataRam.afterWrite
  dataDescriptors.io.push.valid := RegNext(admit.toData) init (False)
  dataDescriptors.io.push.payload := RegNext(descriptorNow)
  val controlLengths = StreamFifo(UInt(cfg.lengthWidth bits), cfg.controlDescriptors, forFMax = true)
  controlLengths.io.push.valid := RegNext(admit.toControl) init (False)
  controlLengths.io.push.payload := RegNext(classify.length)

  // --------------------------------------------------- trimmed headers
  /**
   * Sec. 2.1 and README (htsim): keep the first max(trim-bytes, headers) bytes, set TRIMMED and
   * TRIM_DSCP, fix the IP and UDP lengths, recompute the IPv4 header checksum and zero the UDP
   * checksum (IPv4) or recompute it (IPv6). Pushed into the trim FIFO one clock after the
   * admission; a frame with a wrong IPv4 header checksum is never trimmed (never launder it).
   */
  val trim = new Area {
    // Built for every frame, from its header window while its last beat is in s2, and pushed only
    // when the frame is trimmed: the build does not wait for the decision.
    val raw = RegNext(header) // the window of the frame whose last beat is in s2
    val ipv6 = headerClass.ipv6
    // The bytes kept, from the frame's length while its last beat is in s1 (registered beside s2).
    private val frameLength = frameSoFar.length
    private val keepTarget = Mux(headerClass.ipv6Now, U(scala.math.max(cfg.trimBytes, PF.Ipv6AllHeaderBytes)), U(cfg.trimBytes))
    val keptFull = Mux(frameLength < keepTarget.resize(cfg.lengthWidth), frameLength, keepTarget.resize(cfg.lengthWidth))
    val kept = RegNext(keptFull(log2Up(cfg.headerBytes + 1) - 1 downto 0)) // at most keptMax
    // Beside s3: which bytes are kept, and the length fields, registered with the window.
    val raw3 = RegNext(raw)
    val keepByte3 = RegNext(Vec((0 until cfg.headerBytes).map(k => kept > k)))
    val kept3 = RegNext(kept)
    val ipv6_3 = RegNext(ipv6)
    private def lengthField(offset: Int): UInt = RegNext((kept - offset).resize(16))
    val ipv4TotalLength3 = lengthField(PF.EthHeaderBytes)
    val ipv4UdpLength3 = lengthField(PF.Ipv4UdpOffset)
    val ipv6Lengths3 = lengthField(PF.Ipv6UdpOffset) // the IPv6 payload length and the UDP length
    // The trimmed header, registered at the admission (the checksums are added as it leaves the FIFO).
    val out = Vec(Bits(8 bits), cfg.headerBytes)
    for (k <- 0 until cfg.headerBytes) out(k) := Mux(keepByte3(k), raw3(k), B(0, 8 bits))
    private def put16(o: Int, value: UInt): Unit = { out(o) := value(15 downto 8).asBits; out(o + 1) := value(7 downto 0).asBits }
    private val dscp = csr.trimDscp
    when(ipv6_3) {
      val tc = dscp.asBits ## raw3(PF.Ipv6TcFlow)(5 downto 4)
      out(PF.Ipv6VersionTc) := raw3(PF.Ipv6VersionTc)(7 downto 4) ## tc(7 downto 4)
      out(PF.Ipv6TcFlow) := tc(3 downto 0) ## raw3(PF.Ipv6TcFlow)(3 downto 0)
      put16(PF.Ipv6PayloadLength, ipv6Lengths3)
      put16(PF.Ipv6UdpOffset + PF.UdpLength, ipv6Lengths3)
      out(PF.Ipv6TransportOffset + PF.TpFlags) := raw3(PF.Ipv6TransportOffset + PF.TpFlags) | B(PF.FlagTrimmed, 8 bits)
      put16(PF.Ipv6UdpOffset + PF.UdpChecksum, U(0, 16 bits))
    } otherwise {
      out(PF.Ipv4Tos) := dscp.asBits ## raw3(PF.Ipv4Tos)(1 downto 0)
      put16(PF.Ipv4TotalLength, ipv4TotalLength3)
      put16(PF.Ipv4Checksum, U(0, 16 bits))
      put16(PF.Ipv4UdpOffset + PF.UdpLength, ipv4UdpLength3)
      put16(PF.Ipv4UdpOffset + PF.UdpChecksum, U(0, 16 bits)) // IPv4: 0 means no UDP checksum (RFC 768)
      out(PF.Ipv4TransportOffset + PF.TpFlags) := raw3(PF.Ipv4TransportOffset + PF.TpFlags) | B(PF.FlagTrimmed, 8 bits)
    }
    val out4 = RegNext(out)
    val kept4 = RegNext(kept3)
    val ipv6Lengths4 = RegNext(ipv6Lengths3)
    /**
     * The header goes into the trim FIFO at the admission, its checksum (RFC 1071 ones'
     * complement sums, pipelined: groups of four 16-bit words, groups of four of those, the total
     * and its first fold, the last fold) into a FIFO beside it `trimBuildClocks` later; a header
     * leaves when both are there.
     */
    private def words(from: Int, until: Int): Seq[UInt] = (from until until by 2).map(o => (out4(o) ## out4(o + 1)).asUInt.resize(24))
    private def sumStage(xs: Seq[UInt]): Seq[UInt] = xs.grouped(4).map(g => RegNext(g.reduceBalancedTree(_ + _))).toSeq
    private def firstFold(xs: Seq[UInt]): UInt = {
      val total = xs.reduceBalancedTree(_ + _)
      RegNext((total(15 downto 0).resize(17) + total(23 downto 16)).resize(17))
    }
    private def lastFold(once: UInt): UInt = (once(15 downto 0) + once(16).asUInt).resize(16)
    val udpLength = ipv6Lengths4.resize(24)
    val ipv4Once = firstFold(sumStage(sumStage(words(PF.EthHeaderBytes, PF.Ipv4UdpOffset))))
    val ipv6Once = firstFold(sumStage(sumStage(words(PF.Ipv6Src, cfg.headerBytes) ++ Seq(udpLength, U(PF.ProtocolUdp, 24 bits)))))
    val pending = Vec(RegInit(False), trimBuildClocks)
    val ipv6Late = Vec(Reg(Bool()), trimBuildClocks)
    pending(0) := admit.toTrim
    ipv6Late(0) := ipv6_3
    for (i <- 1 until trimBuildClocks) { pending(i) := pending(i - 1); ipv6Late(i) := ipv6Late(i - 1) }
    val ipv4Checksum = ~lastFold(ipv4Once)
    val ipv6UdpSum = ~lastFold(ipv6Once)
    val fifo = StreamFifo(TrimSnapshot(cfg), cfg.trimEntries + 1, forFMax = true)
    fifo.io.push.valid := RegNext(admit.toTrim) init (False)
    fifo.io.push.bytes := out4
    fifo.io.push.length := kept4
    /** The header checksum to write, and whether it is IPv6's UDP checksum (else IPv4's header checksum). */
    val checksums = StreamFifo(Bits(17 bits), cfg.trimEntries + 1, forFMax = true)
    checksums.io.push.valid := pending(trimBuildClocks - 1)
    // RFC 768: a computed UDP checksum of 0 is sent as all ones.
    private val ipv6Last = ipv6Late(trimBuildClocks - 1)
    checksums.io.push.payload := ipv6Last ## Mux(ipv6Last, Mux(ipv6UdpSum === 0, U(0xFFFF, 16 bits), ipv6UdpSum), ipv4Checksum)

    // Serialise the waiting headers, back to back.
    val current = Reg(Vec(Bits(8 bits), cfg.headerBytes))
    val active = RegInit(False)
    val beat = Reg(UInt(log2Up(cfg.headerBeats + 1) bits)) init (0)
    val stream = Stream(Fragment(TrimOutBeat(cfg)))
    // The header's last beat and its byte count, and whether the current beat is the last: registers, set at the pop.
    val lastBeat = Reg(UInt(beat.getWidth bits)) init (0)
    val tailBytes = Reg(UInt(countWidth bits)) init (0)
    val isLast = RegInit(False)
    val words = Vec((0 until cfg.headerBeats).map(b => Cat((0 until W).map(j => current(b * W + j))))) // Cat: first = LSB
    stream.valid := active
    stream.fragment.data := words(beat.resize(log2Up(cfg.headerBeats).max(1)))
    stream.fragment.keep := Mux(isLast, (U((BigInt(1) << W) - 1, W bits) >> (U(W - 1, countWidth bits) - tailBytes)).asBits,
      B((BigInt(1) << W) - 1, W bits))
    stream.fragment.queue := queueTrim
    stream.last := isLast
    when(stream.fire) {
      beat := beat + 1
      isLast := beat + 1 === lastBeat
      when(isLast) { active := False }
    }
    /** The beats go to the output through a small FIFO: the output's choice never reaches the header FIFOs' pop. */
    val prefetch = StreamFifo(Fragment(TrimOutBeat(cfg)), 2, latency = 1)
    prefetch.io.push << stream
    val beats = prefetch.io.pop
    // A header with its checksum, through a skid register: the serializer's pop does not reach the FIFOs' pointers.
    val both = StreamJoin(fifo.io.pop, checksums.io.pop).s2mPipe()
    both.ready := !active || (stream.fire && isLast)
    val popped = both.fire
    when(popped) {
      current := both.payload._1.bytes
      val lengthMinusOneFull = both.payload._1.length - 1
      val lastBeatNow = lengthMinusOneFull(lengthMinusOneFull.getWidth - 1 downto log2Up(W)).resize(beat.getWidth)
      lastBeat := lastBeatNow
      tailBytes := lengthMinusOneFull(countWidth - 1 downto 0)
      isLast := lastBeatNow === 0
      val sum = both.payload._2
      for ((o, v6) <- Seq(PF.Ipv4Checksum -> False, PF.Ipv6UdpOffset + PF.UdpChecksum -> True)) {
        when(sum(16) === v6) {
          current(o) := sum(15 downto 8)
          current(o + 1) := sum(7 downto 0)
        }
      }
      active := True
      beat := 0
    }
  }

  // ---------------------------------------------------------- output
  /**
   * RED thresholds (Sec. 3.5), drawn ahead: the k-th data packet's draw is the k-th xorshift32
   * value scaled onto [0, KMAX - KMIN) by a multiply-high (two registered 16 x occupancy-width
   * multiplies), and what the dequeue compares with is KMIN + draw: `occupancy > KMIN + draw`
   * is `occupancy > KMIN && draw < occupancy - KMIN`. A write to KMIN, KMAX or SEED recomputes the
   * thresholds not yet used (from the generator state after the last one used): the data
   * dequeue waits for them, a few clocks.
   */
  val red = new Area {
    private def step(x: UInt): UInt = { val a = x ^ (x |<< 13); val b = a ^ (a |>> 17); b ^ (b |<< 5) }
    val restart = csr.redChange
    val seed = Mux(csr.seed === 0, U(1, 32 bits), csr.seed)
    /** The generator state before the next draw to be used; `ahead`, before the next draw to be computed. */
    val used, ahead = Reg(UInt(32 bits)) init (cfg.prngSeed)
    val depth = 8 // covers the draw pipeline's round trip: one data dequeue a clock
    val thresholds = StreamFifo(UInt(cfg.occupancyWidth + 1 bits), depth, latency = 1)
    val credits = Reg(UInt(log2Up(depth + 1) bits)) init (depth)
    val issue = credits =/= 0 && !restart
    val v1 = RegNext(issue) init (False)
    val r1 = RegNext(step(ahead))
    when(issue) { ahead := step(ahead) }
    val span = RegNext(Mux(csr.kMax > csr.kMin, csr.kMax - csr.kMin, U(0, cfg.occupancyWidth bits)))
    val v2 = RegNext(v1 && !restart) init (False)
    val low = RegNext(r1(15 downto 0) * span)
    val high = RegNext(r1(31 downto 16) * span)
    val productFull = (high.resize(32 + cfg.occupancyWidth) |<< 16) + low.resize(32 + cfg.occupancyWidth)
    val v3 = RegNext(v2 && !restart) init (False)
    val draw = RegNext(productFull(32, cfg.occupancyWidth bits)) // uniform in [0, span)
    thresholds.io.push.valid := v3 && !restart
    thresholds.io.push.payload := csr.kMin.resize(cfg.occupancyWidth + 1) + draw
    thresholds.io.flush := restart
    val take = Bool() // a data packet's dequeue used the head threshold
    thresholds.io.pop.ready := take
    when(take) { used := step(used) }
    credits := credits - issue.asUInt + take.asUInt
    when(restart) {
      val from = Mux(csr.reseed, seed, used)
      used := from
      ahead := from
      credits := depth
    }
  }

  /** What a packet reader does with one packet: read its beats, or skip them (dropped at dequeue). */
  case class ReadCommand(addressWidth: Int) extends Bundle {
    val beats = UInt(cfg.lengthWidth bits)
    val skip = Bool()
    /** RAM address after the packet's last beat. */
    val next = UInt(addressWidth bits)
    val patch = CePatch()
  }
  /** How a packet's beats are patched on their way to the output: CE marked (RFC 3168) or not. */
  case class CePatch() extends Bundle {
    val mark, ipv4, ipv6 = Bool()
    /** The IPv4 header checksum after the mark. */
    val ceChecksum = Bits(16 bits)
  }

  /**
   * Reads packets from a RAM one beat a clock into a prefetch FIFO ahead of the output, as long as
   * the FIFO has a place for every read in flight (credits); a skipped packet costs one clock and
   * no read. Beats of packets marked CE at dequeue are patched on their way in (RFC 3168; the
   * IPv4 header checksum precomputed at admission, RFC 1624).
   */
  class PacketReader(ram: Mem[Bits], depth: Int, queue: Int) extends Area {
    private val aw = log2Up(depth)
    val commands = StreamFifo(ReadCommand(aw), 2, latency = 1)
    private val cmd = commands.io.pop
    val prefetchDepth = 8
    val prefetch = StreamFifo(Fragment(TrimOutBeat(cfg)), prefetchDepth, latency = 1)
    val read = Reg(UInt(aw bits)) init (0)
    val active = RegInit(False)
    val remaining = Reg(UInt(cmd.beats.getWidth bits)) init (0) // beats still to read after the next one
    val index = Reg(UInt(indexWidth bits)) init (0) // beat index of the next read within its packet
    val current = Reg(CePatch())
    val credits = Reg(UInt(log2Up(prefetchDepth + 1) bits)) init (prefetchDepth)
    val issue = active && credits =/= 0
    val issueLast = issue && remaining === 0
    cmd.ready := !active || issueLast
    when(issue) {
      read := inc(read, depth)
      remaining := remaining - 1
      index := Mux(index === cfg.maxFrameBeats + 1, index, index + 1)
      when(remaining === 0) { active := False }
    }
    when(cmd.fire) {
      when(cmd.skip) {
        read := cmd.next
      } otherwise {
        active := True
        remaining := cmd.beats - 1
        index := 0
        current := cmd.patch
      }
    }
    private val creditsLeft = credits - issue.asUInt
    credits := Mux(prefetch.io.pop.fire, creditsLeft + 1, creditsLeft) // the output's pop only reaches a 2:1 select
    // The clock after the read: the RAM word; the clock after that: registered, patched, pushed.
    val word = ram.readSync(read, issue)
    val v1 = RegNext(issue) init (False)
    val patch1 = RegNext(current)
    val index1 = RegNext(index)
    val v2 = RegNext(v1) init (False)
    val word2 = RegNext(word)
    val patch2 = RegNext(patch1)
    val index2 = RegNext(index1)
    private val last = word2(0)
    private val count = word2(countWidth downto 1).asUInt
    private val inData = word2(ramWidth - 1 downto countWidth + 1)
    val outData = Bits(8 * W bits)
    outData := inData
    private val c = patch2
    when(c.mark && c.ipv4) {
      when(index2 === PF.Ipv4Tos / W) { outData(8 * (PF.Ipv4Tos % W), 8 bits) := lane(inData, PF.Ipv4Tos) | B(PF.EcnCe, 8 bits) }
      when(index2 === PF.Ipv4Checksum / W) {
        outData(8 * (PF.Ipv4Checksum % W), 8 bits) := c.ceChecksum(15 downto 8)
        outData(8 * ((PF.Ipv4Checksum + 1) % W), 8 bits) := c.ceChecksum(7 downto 0)
      }
    }
    when(c.mark && c.ipv6 && index2 === PF.Ipv6TcFlow / W) {
      outData(8 * (PF.Ipv6TcFlow % W), 8 bits) := lane(inData, PF.Ipv6TcFlow) | B(PF.EcnCe << 4, 8 bits)
    }
    prefetch.io.push.valid := v2
    prefetch.io.push.fragment.data := outData
    prefetch.io.push.fragment.keep := Mux(last, (U((BigInt(1) << W) - 1, W bits) >> (U(W - 1, countWidth bits) - count)).asBits,
      B((BigInt(1) << W) - 1, W bits))
    prefetch.io.push.fragment.queue := queue
    prefetch.io.push.last := last
    val beats = prefetch.io.pop
  }
  val dataReader = new PacketReader(dataRam.ram, cfg.dataRamBeats, queueData)
  val controlReader = new PacketReader(controlRam.ram, cfg.controlRamBeats, queueControl)

  /**
   * The dequeue, one packet a clock, control first: a packet leaves the byte count and RED
   * decides (Sec. 3.5) when its descriptor is handed to its reader, from the occupancy then: the
   * data queue's instantaneous occupancy at dequeue. A dropped packet's beats are skipped.
   */
  val dequeue = new Area {
    // Full register slices: the dequeue decision reaches the head registers, not the FIFOs' pointers.
    val dataHead = dataDescriptors.io.pop.s2mPipe().m2sPipe()
    val controlHead = controlLengths.io.pop.s2mPipe().m2sPipe()
    val controlStart = controlHead.valid && controlReader.commands.io.push.ready
    val dataStart = !controlStart && dataHead.valid && dataReader.commands.io.push.ready && red.thresholds.io.pop.valid && !red.restart
    controlHead.ready := controlStart
    dataHead.ready := dataStart
    red.take := dataStart
    val desc = dataHead.payload
    val occupancy = occ.dataBytes
    val atKmax = occupancy >= csr.kMax
    // Linear from 0 at KMIN to 1 at KMAX: P(draw < occupancy - KMIN) = (occupancy - KMIN) / (KMAX - KMIN).
    val congested = atKmax || occupancy > red.thresholds.io.pop.payload
    val ip = desc.ipv4 || desc.ipv6
    val mark = congested && ip && desc.ecnCapable
    val drop = csr.dropNonEct && ip && !desc.ecnCapable && atKmax
    val nonEctAboveKmax = ip && !desc.ecnCapable && atKmax

    private val dc = dataReader.commands.io.push
    dc.valid := dataStart
    dc.beats := beatsOf(desc.length, "dataStart_beats")
    dc.skip := drop
    dc.next := desc.next
    dc.patch.mark := mark
    dc.patch.ipv4 := desc.ipv4
    dc.patch.ipv6 := desc.ipv6
    dc.patch.ceChecksum := desc.ceChecksum
    private val cc = controlReader.commands.io.push
    cc.valid := controlStart
    cc.beats := beatsOf(controlHead.payload, "controlStart_beats")
    cc.skip := False
    cc.next := 0
    cc.patch.mark := False
    cc.patch.ipv4 := False
    cc.patch.ipv6 := False
    cc.patch.ceChecksum := 0
  }

  /**
   * Strict priority (Sec. 3) at every packet boundary the output takes: control, then trimmed
   * headers, then data, each from its prefetch FIFO (a queue's packets follow one another).
   */
  val arbiter = new Area {
    val sources = Seq(controlReader.beats, trim.beats, dataReader.beats) // priority order = queue numbers 0, 1, 2
    val busy = RegInit(False) // the output took a packet's first beat and not yet its last
    val locked = Reg(Bits(3 bits)) init (0)
    val choice = Bits(3 bits)
    choice(0) := sources(0).valid
    choice(1) := !sources(0).valid && sources(1).valid
    choice(2) := !sources(0).valid && !sources(1).valid
    val select = Mux(busy, locked, choice)
    val beat = Stream(Fragment(TrimOutBeat(cfg)))
    beat.valid := (0 until 3).map(i => select(i) && sources(i).valid).orR
    beat.payload := sources.zipWithIndex.map { case (s, i) => s.payload.asBits & B(s.payload.asBits.getWidth bits, default -> select(i)) }
      .reduce(_ | _).as(Fragment(TrimOutBeat(cfg)))
    for (i <- 0 until 3) sources(i).ready := beat.ready && select(i)
    when(beat.fire) {
      busy := !beat.last
      locked := select
    }
  }
  // The output register. No skid buffer in front of it: the next packet is chosen only when the
  // output register takes its first beat (issue 14 defect 1), so m_axis_tready reaches the arbiter.
  val output = arbiter.beat.m2sPipe()
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
    /**
     * value - out (when a packet leaves) + in (when one is admitted): the four sums from registers,
     * side by side, then a pick by the two decisions, so the decisions reach only the last LUT. The
     * pick is an AND-OR, not a mux: Yosys' opt_share moves a mux of two adds that share an operand
     * in front of one add, which put the late dequeue decision on the carry chain.
     */
    private def updated(value: UInt, out: UInt, leaves: Bool, in: UInt, admitted: Bool): UInt = {
      val w = value.getWidth
      val (o, i) = (out.resize(w), in.resize(w))
      Seq((!admitted && !leaves) -> value, (!admitted && leaves) -> (value - o),
        (admitted && !leaves) -> (value + i), (admitted && leaves) -> (value - o + i))
        .map { case (sel, sum) => sum.asBits & B(w bits, default -> sel) }.reduce(_ | _).asUInt
    }
    occ.dataBytes := updated(occ.dataBytes, d.desc.length, d.dataStart, c.length, admit.toData)
    occ.dataBeats := updated(occ.dataBeats, beatsOf(d.desc.length, "dataOut_beats"), d.dataStart, c.beats, admit.toData)
    occ.dataDescs := occ.dataDescs + admit.toData.asUInt - d.dataStart.asUInt
    // Full after this clock: full and nothing left without one coming, or one short and one came without one leaving.
    occ.dataDescsFull := (occ.dataDescsFull && !(d.dataStart && !admit.toData)) ||
      (occ.dataDescs === cfg.dataDescriptors - 1 && admit.toData && !d.dataStart)
    occ.controlBytes := updated(occ.controlBytes, d.controlHead.payload, d.controlStart, c.length, admit.toControl)
    occ.controlBeats := updated(occ.controlBeats, beatsOf(d.controlHead.payload, "controlOut_beats"), d.controlStart, c.beats, admit.toControl)
    occ.controlDescs := occ.controlDescs + admit.toControl.asUInt - d.controlStart.asUInt
    occ.trimCount := occ.trimCount + admit.toTrim.asUInt - trim.popped.asUInt
    // From the registered occupancies (one clock later, the same maximum): off the admission path.
    when(occ.dataBytes.resize(cfg.occupancyWidth) > occ.dataHighWater) { occ.dataHighWater := occ.dataBytes.resize(cfg.occupancyWidth) }
    when(occ.controlBytes > occ.controlHighWater) { occ.controlHighWater := occ.controlBytes }
  }

  io.dequeue.valid := RegNext(dequeue.dataStart || dequeue.controlStart || trim.popped) init (False)
  io.dequeue.start := RegNext(dequeue.dataStart || dequeue.controlStart)
  io.dequeue.queue := RegNext(Mux(dequeue.controlStart, U(queueControl, 2 bits), U(queueData, 2 bits)))
  io.dequeue.occupancy := RegNext(dequeue.occupancy.resize(cfg.occupancyWidth))
  io.dequeue.marked := RegNext(dequeue.dataStart && dequeue.mark)
  io.dequeue.dropped := RegNext(dequeue.dataStart && dequeue.drop)
  io.dequeue.trimPop := RegNext(trim.popped)

  // ---------------------------------------------------------- counters
  /** The counters count one clock after their event: every condition is registered first (off the decision paths). */
  val stats = new Area {
    import CsrCounters._
    private def r(x: Bool): Bool = RegNext(x) init (False)
    private val o = admit.outcome
    private val end = admit.end
    private def outcome(x: Int): Bool = r(end && o === x)
    count(csr.IN_PACKETS, r(end))
    when(r(end)) { add(csr.IN_BYTES, RegNext(classify.wireBytes)) }
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
    count(csr.INTERNAL_OVERRUN, r(dataDescriptors.io.push.isStall || controlLengths.io.push.isStall || trim.fifo.io.push.isStall ||
      trim.checksums.io.push.isStall || dataReader.prefetch.io.push.isStall || controlReader.prefetch.io.push.isStall ||
      red.thresholds.io.push.isStall))
    count(csr.NON_IP, r(end && !classify.bad && !classify.oversize && !classify.malformed && !classify.runt && !classify.ip))
    count(csr.BAD_IPV4_CHECKSUM, r(end && admit.badChecksum))
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_trim_queue_regs", "TRIMQ")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "TRIMQ"
}
