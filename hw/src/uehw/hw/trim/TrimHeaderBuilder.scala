// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import uehw.hw.common.{PacketFormat => PF}

/** The ports of TrimHeaderBuilder. */
class TrimHeaderBuilderIo(cfg: TrimQueueConfig) extends Bundle {

  val tap = in(TrimHeaderTap(cfg))
  /** TRIM_DSCP. */
  val dscp = in UInt (6 bits)
  /** The frame whose verdict is in s3 is trimmed. */
  val push = in Bool()
  /** The trimmed headers' beats, for the output. */
  val beats = master(Stream(Fragment(TrimOutBeat(cfg))))
  /** A header left the trim queue (for its occupancy). */
  val popped = out Bool()
  /** A FIFO was pushed while full (the admission's room check prevents it). */
  val overrun = out Bool()
}

/**
 * The trimmed-header builder (docs/trimming-queue.md, "Sub-blocks"; Sec. 2.1 and README (htsim)):
 * keep the first max(trim-bytes, headers) bytes, set TRIMMED and TRIM_DSCP, fix the IP and UDP
 * lengths, recompute the IPv4 header checksum and zero the UDP checksum (IPv4) or recompute it
 * (IPv6); the model is uehw.model.trim.TrimHeaders.trimmed. Built for every frame from the
 * ingress's header tap while its last beat is in s2, and pushed into the trim FIFO only when the
 * admission trims it (`push`, with the frame's verdict in s3): the build does not wait for the
 * decision. The checksums follow `trimBuildClocks` later through a pipeline of their own; a
 * header leaves, serialised back to back, when both are there.
 */
class TrimHeaderBuilder(val cfg: TrimQueueConfig) extends Component {
  import TrimQueue._
  val io = new TrimHeaderBuilderIo(cfg)
  private val W = cfg.W
  private val countWidth = TrimQueue.countWidth(cfg)

  val trim = new Area {
    val raw = RegNext(io.tap.header) // the window of the frame whose last beat is in s2
    val ipv6 = io.tap.ipv6
    // The bytes kept, from the frame's length while its last beat is in s1 (registered beside s2).
    private val frameLength = io.tap.frameLength
    private val keepTarget = Mux(io.tap.ipv6Now, U(scala.math.max(cfg.trimBytes, PF.Ipv6AllHeaderBytes)), U(cfg.trimBytes))
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
    private val dscp = io.dscp
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
    pending(0) := io.push
    ipv6Late(0) := ipv6_3
    for (i <- 1 until trimBuildClocks) { pending(i) := pending(i - 1); ipv6Late(i) := ipv6Late(i - 1) }
    val ipv4Checksum = ~lastFold(ipv4Once)
    val ipv6UdpSum = ~lastFold(ipv6Once)
    val fifo = StreamFifo(TrimSnapshot(cfg), cfg.trimEntries + 1, forFMax = true)
    fifo.io.push.valid := RegNext(io.push) init (False)
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
    stream.fragment.keep := keepOf(isLast, tailBytes, W)
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
  io.beats << trim.prefetch.io.pop
  io.popped := trim.popped
  io.overrun := trim.fifo.io.push.isStall || trim.checksums.io.push.isStall
}
