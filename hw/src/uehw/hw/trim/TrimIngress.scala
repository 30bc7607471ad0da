// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axis._
import spinal.lib.bus.amba4.axis.Axi4Stream.Axi4StreamBundle
import uehw.hw.common.{PacketFormat => PF}

/** The ports of TrimIngress. */
class TrimIngressIo(cfg: TrimQueueConfig) extends Bundle {
  import TrimQueue._

  /** The beats the input took (the input never waits: store and forward into the RAMs). */
  val input = slave(Flow(Axi4StreamBundle(axisConfig(cfg))))
  /** UDP_PORT: the transport's destination port. */
  val udpPort = in UInt (16 bits)
  /** The beat in s3, for the RAMs. */
  val beat = master(Flow(TrimRamBeat(cfg)))
  /** One verdict a frame, valid with its last beat in s3. */
  val verdict = master(Flow(TrimVerdict(cfg)))
  /** The header window and its class, while a frame's last beat is in s1 (for the trimmed-header builder). */
  val tap = out(TrimHeaderTap(cfg))
}

/**
 * The trimming queue's ingress and classification (docs/trimming-queue.md, "Sub-blocks"): the
 * taken input beats run down four beat registers, s0 to s3, one clock each, and a frame's verdict
 * is out when its last beat sits in s3 (TrimQueue.admissionClocks after its tlast was taken): s1
 * has the beat's byte count and checks, s2 the frame's length so far, s3 the classification. The
 * beat leaves from s3 for the RAMs, so the next frame's beats only follow its frame's decision.
 * The IPv4 header checksum (RFC 791) is verified here; the model is uehw.model.trim.TrimClassifier.
 */
class TrimIngress(val cfg: TrimQueueConfig) extends Component {
  import TrimQueue._
  val io = new TrimIngressIo(cfg)
  private val W = cfg.W
  private val countWidth = TrimQueue.countWidth(cfg)
  private val indexWidth = TrimQueue.indexWidth(cfg)
  private def lane(data: Bits, o: Int): Bits = TrimQueue.lane(data, o, W)

  val s0 = new Area {
    val valid = RegNext(io.input.valid) init (False)
    val beat = RegNext(io.input.payload)
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
    private val transport4 = udp4 && r(u16(PF.Ipv4UdpOffset + PF.UdpDstPort) === io.udpPort)
    private val transport6 = udp6 && r(u16(PF.Ipv6UdpOffset + PF.UdpDstPort) === io.udpPort)
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
    /** Frames whose IPv4 header checksum is verified: IPv4 with IHL 5 (and not runts, see the admission). */
    val ihl5 = r(h.ihl5)
    val beats = r(beatsOf(cfg, len, "classify_beats"))
    // The room each queue must have left, so that the admission compares a register with a register.
    val dataBytesRoom = r((U(cfg.capacityBytes, cfg.occupancyWidth + 1 bits) - len).resize(cfg.occupancyWidth + 1))
    val dataBeatsRoom = r(U(cfg.dataBeatLimit, occBeatsWidth(cfg, cfg.dataBeatLimit) bits) -
      beatsOf(cfg, len, "dataRoom_beats").resize(occBeatsWidth(cfg, cfg.dataBeatLimit)))
    // A control frame longer than the control queue is DROP_CONTROL_OVERSIZE anyway (max-control-bytes <= control-bytes / 2).
    val controlBytesRoom = r((U(cfg.controlBytes, 22 bits) - len.resize(22)).resize(22))
    val controlBeatsRoom = r((U(cfg.controlBeatLimit, occBeatsWidth(cfg, cfg.controlBeatLimit) + 1 bits)
      - beatsOf(cfg, len, "controlRoom_beats").resize(occBeatsWidth(cfg, cfg.controlBeatLimit) + 1)))
  }

  io.beat.valid := s3.valid
  io.beat.data := s3.data
  io.beat.lastCount := s3.lastCount
  io.beat.last := s3.last
  io.beat.index := s3.index

  io.verdict.valid := s3.lastValid
  private val v = io.verdict.payload
  private val c = classify
  v.length := c.length; v.wireBytes := c.wireBytes
  v.bad := c.bad; v.malformed := c.malformed; v.oversize := c.oversize; v.runt := c.runt
  v.ipv4 := c.ipv4; v.ipv6 := c.ipv6; v.ip := c.ip; v.transport := c.transport; v.control := c.control
  v.controlOversize := c.controlOversize; v.ecnCapable := c.ecnCapable; v.ceChecksum := c.ceChecksum; v.ihl5 := c.ihl5
  v.ipv4ChecksumOk := ipv4Check.ok
  v.beats := c.beats
  v.dataBytesRoom := c.dataBytesRoom; v.dataBeatsRoom := c.dataBeatsRoom
  v.controlBytesRoom := c.controlBytesRoom; v.controlBeatsRoom := c.controlBeatsRoom

  io.tap.header := header
  io.tap.ipv6Now := headerClass.ipv6Now
  io.tap.ipv6 := headerClass.ipv6
  io.tap.frameLength := frameSoFar.length
}
