// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.amba4.axis._

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
  val axisConfig = TrimQueue.axisConfig(cfg)
  /** Frames from the switch fabric; tuser has one bit per byte lane, any set bit on any beat marks the frame bad (e.g. FCS error). */
  val s_axis = slave(Axi4Stream(axisConfig))
  /** Frames to the MAC; tuser is 0. */
  val m_axis = master(Axi4Stream(axisConfig))
  val dequeue = master(Flow(TrimQueueDequeue(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
}

/** A beat to the output, with the queue it came from. */
case class TrimOutBeat(cfg: TrimQueueConfig) extends Bundle {
  val data = Bits(8 * cfg.W bits)
  val keep = Bits(cfg.W bits)
  val queue = UInt(2 bits)
}

/** An input beat as the RAMs take it (s3): its bytes, its byte count - 1, last, and its index in the frame. */
case class TrimRamBeat(cfg: TrimQueueConfig) extends Bundle {
  val data = Bits(8 * cfg.W bits)
  val lastCount = UInt(TrimQueue.countWidth(cfg) bits)
  val last = Bool()
  val index = UInt(TrimQueue.indexWidth(cfg) bits)
}

/**
 * The ingress's verdict on a frame (one a frame, with its last beat in s3): its length and wire
 * bytes, what is wrong with it, its headers' classes, its IPv4 header checksum's check, and the room
 * each queue must have left for it (so that the admission compares registers with registers).
 */
case class TrimVerdict(cfg: TrimQueueConfig) extends Bundle {
  val length = UInt(cfg.lengthWidth bits)
  val wireBytes = UInt(32 bits)
  val bad, malformed, oversize, runt = Bool()
  val ipv4, ipv6, ip, transport, control, controlOversize, ecnCapable = Bool()
  /** The IPv4 header checksum after a CE mark (RFC 1624). */
  val ceChecksum = Bits(16 bits)
  /** IPv4 with IHL 5: the header checksum is verified. */
  val ihl5 = Bool()
  /** The 20-byte IPv4 header sums to 0xFFFF (RFC 791 / RFC 1071). */
  val ipv4ChecksumOk = Bool()
  val beats = UInt(cfg.lengthWidth bits)
  val dataBytesRoom = UInt(cfg.occupancyWidth + 1 bits)
  val dataBeatsRoom = UInt(TrimQueue.occBeatsWidth(cfg, cfg.dataBeatLimit) bits)
  val controlBytesRoom = UInt(22 bits)
  val controlBeatsRoom = UInt(TrimQueue.occBeatsWidth(cfg, cfg.controlBeatLimit) + 1 bits)
}

/** What the admission reports of each frame, for the counters: its outcome (TrimQueue.Outcome), its wire bytes, whether it is non-IP or has a wrong IPv4 header checksum. */
case class TrimAdmitted() extends Bundle {
  val outcome = UInt(4 bits)
  val wireBytes = UInt(32 bits)
  /** Classified (not bad, oversize, malformed or a runt) and not IPv4/IPv6. */
  val nonIp = Bool()
  /** The IPv4 header checksum was checked and is wrong. */
  val badChecksum = Bool()
}

/**
 * What the trimmed-header builder takes from the ingress while a frame's last beat is in s1: the
 * header window, whether it is IPv6 (combinational, and registered beside s2) and the frame's length.
 */
case class TrimHeaderTap(cfg: TrimQueueConfig) extends Bundle {
  val header = Vec(Bits(8 bits), cfg.headerBytes)
  val ipv6Now = Bool()
  val ipv6 = Bool()
  val frameLength = UInt(cfg.lengthWidth bits)
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

/** How a packet's beats are patched on their way to the output: CE marked (RFC 3168) or not. */
case class CePatch() extends Bundle {
  val mark, ipv4, ipv6 = Bool()
  /** The IPv4 header checksum after the mark. */
  val ceChecksum = Bits(16 bits)
}

/** What a packet reader does with one packet: read its beats, or skip them (dropped at dequeue). */
case class ReadCommand(lengthWidth: Int, addressWidth: Int) extends Bundle {
  val beats = UInt(lengthWidth bits)
  val skip = Bool()
  /** RAM address after the packet's last beat. */
  val next = UInt(addressWidth bits)
  val patch = CePatch()
}

/** A synchronous RAM read port across a block boundary: the address and enable out, the word one clock later. */
case class RamReadPort(addressWidth: Int, dataWidth: Int) extends Bundle with IMasterSlave {
  val address = UInt(addressWidth bits)
  val enable = Bool()
  val data = Bits(dataWidth bits)
  override def asMaster(): Unit = { out(address, enable); in(data) }
}
