// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of the trimming egress queue (smartt-reps.txt Sec. 2.1, 3 "Required
 * Features", 3.5 "ECN Marking"; docs/trimming-queue.md).
 *
 * @param dataBytes      bytes per AXI4-Stream beat (8, 16, 32, 64: 64 to 512 bits)
 * @param capacityBytes  data queue capacity in bytes (default one BDP: 100 Gb/s x 12 us)
 * @param controlBytes   control queue capacity in bytes
 * @param trimEntries    trimmed headers waiting at most
 * @param trimBytes      bytes a trimmed packet keeps (at least all its headers: 54 over IPv4, 74 over IPv6)
 * @param maxFrameBytes  longest frame accepted; longer ones are dropped
 * @param maxControlBytes longest control packet accepted; longer ones are dropped
 */
case class TrimQueueConfig(dataBytes: Int = 64,
                           capacityBytes: Int = 150000,
                           controlBytes: Int = 8192,
                           trimEntries: Int = 32,
                           trimBytes: Int = 64,
                           maxFrameBytes: Int = 9216,
                           maxControlBytes: Int = 256,
                           udpPort: Int = PacketFormat.TransportUdpPort,
                           trimDscp: Int = 46,
                           prngSeed: Long = 0x7A1D5EEDL) {
  ParamCheck(Seq(8, 16, 32, 64).contains(dataBytes), "data-bytes", s"$dataBytes must be 8, 16, 32 or 64 (64 to 512 bits)")
  ParamCheck(maxFrameBytes >= 64 && maxFrameBytes <= 16383, "max-frame-bytes", s"$maxFrameBytes is outside 64..16383")
  ParamCheck(capacityBytes >= 2 * maxFrameBytes && capacityBytes <= (1 << 24), "capacity-bytes",
    s"$capacityBytes must be in ${2 * maxFrameBytes}..${1 << 24} (at least two frames of max-frame-bytes $maxFrameBytes)")
  ParamCheck(maxControlBytes >= 64 && maxControlBytes <= maxFrameBytes, "max-control-bytes",
    s"$maxControlBytes must be in 64..$maxFrameBytes")
  ParamCheck(controlBytes >= 2 * maxControlBytes && controlBytes <= (1 << 20), "control-bytes",
    s"$controlBytes must be in ${2 * maxControlBytes}..${1 << 20} (at least two control packets of $maxControlBytes)")
  ParamCheck(trimEntries >= 1 && trimEntries <= 1024, "trim-entries", s"$trimEntries is outside 1..1024")
  ParamCheck(trimBytes >= PacketFormat.Ipv4AllHeaderBytes && trimBytes <= 128, "trim-bytes",
    s"$trimBytes must be in ${PacketFormat.Ipv4AllHeaderBytes}..128 (all IPv4 headers at least)")
  ParamCheck(udpPort >= 1 && udpPort <= 65535, "udp-port", s"$udpPort is outside 1..65535")
  ParamCheck(trimDscp >= 0 && trimDscp <= 63, "trim-dscp", s"$trimDscp is outside 0..63")
  ParamCheck(prngSeed >= 1 && prngSeed <= 0xFFFFFFFFL, "prng-seed", s"$prngSeed must be in 1..2^32-1")

  val W: Int = dataBytes
  /** Bytes a trimmed packet keeps at most: the trim length, or all IPv6 headers if more. */
  val keptMax: Int = math.max(trimBytes, PacketFormat.Ipv6AllHeaderBytes)
  /** The header window captured from every packet, whole beats. */
  val headerBytes: Int = (keptMax + W - 1) / W * W
  val headerBeats: Int = headerBytes / W
  val maxFrameBeats: Int = (maxFrameBytes + W - 1) / W
  val maxControlBeats: Int = (maxControlBytes + W - 1) / W
  /**
   * Admission limits besides the bytes: a descriptor per packet (capacity / 64 of them) and the
   * beats the packets take (capacity / W plus a quarter for partial last beats). Both only bind
   * for packets far below 1 KB; the model applies the same three rules.
   */
  val dataDescriptors: Int = math.max(2, capacityBytes / 64)
  val controlDescriptors: Int = math.max(2, controlBytes / 64)
  val dataBeatLimit: Int = (capacityBytes + W - 1) / W * 5 / 4
  val controlBeatLimit: Int = (controlBytes + W - 1) / W * 5 / 4
  /**
   * RAM depth: the admitted beats, one frame being written before its decision, and the frames
   * that left the count at dequeue but whose beats are not all read yet (two in the reader's
   * command FIFO, one being read).
   */
  val dataRamBeats: Int = dataBeatLimit + 4 * maxFrameBeats
  val controlRamBeats: Int = controlBeatLimit + 4 * maxControlBeats
  val lengthWidth: Int = log2Up(maxFrameBytes + W + 1) + 1
  val occupancyWidth: Int = log2Up(capacityBytes + 1)
  val kMinDefault: Long = capacityBytes / 5
  val kMaxDefault: Long = capacityBytes * 4 / 5
}

object TrimQueueConfig {
  private val defaults = TrimQueueConfig()
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("data-bytes", "64", "bytes per beat: 64, 128, 256 or 512-bit AXI4-Stream", 8, 64,
      rangeText = "8, 16, 32 or 64"),
    ParamSpec("capacity-bytes", "150000", "data queue capacity (one BDP: 100 Gb/s x 12 us)", 128, 1 << 24,
      rangeText = s"2 x max-frame-bytes (${2 * defaults.maxFrameBytes} at the default)..2^24"),
    ParamSpec("control-bytes", "8192", "control queue capacity", 128, 1 << 20,
      rangeText = s"2 x max-control-bytes (${2 * defaults.maxControlBytes} at the default)..2^20"),
    ParamSpec("trim-entries", "32", "trimmed headers waiting at most", 1, 1024),
    ParamSpec("trim-bytes", "64", "bytes a trimmed packet keeps (IPv6 packets keep at least their 74 header bytes)", 54, 128),
    ParamSpec("max-frame-bytes", "9216", "longest frame; longer ones are dropped", 64, 16383),
    ParamSpec("max-control-bytes", "256", "longest control packet; longer ones are dropped", 64, 16383,
      rangeText = s"64..max-frame-bytes (${defaults.maxFrameBytes} at the default)"),
    ParamSpec("udp-port", "0xCAFE", "reset value of UDP_PORT, the transport's UDP destination port", 1, 65535),
    ParamSpec("trim-dscp", "46", "reset value of TRIM_DSCP", 0, 63),
    ParamSpec("prng-seed", "0x7A1D5EED", "reset seed of the RED PRNG", 1, 0xFFFFFFFFL, rangeText = "1..2^32-1")
  )

  def fromParams(p: ParamValues): TrimQueueConfig = TrimQueueConfig(
    dataBytes = p.int("data-bytes"), capacityBytes = p.int("capacity-bytes"), controlBytes = p.int("control-bytes"),
    trimEntries = p.int("trim-entries"), trimBytes = p.int("trim-bytes"), maxFrameBytes = p.int("max-frame-bytes"),
    maxControlBytes = p.int("max-control-bytes"), udpPort = p.int("udp-port"), trimDscp = p.int("trim-dscp"),
    prngSeed = p.long("prng-seed"))
}
