// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import uehw.hw.common.{PacketFormat => PF}

/** The ports of RingPacketReader: `aw` address bits of its ring RAM. */
class RingPacketReaderIo(cfg: TrimQueueConfig, aw: Int) extends Bundle {
  import TrimQueue._

  val commands = slave(Stream(ReadCommand(cfg.lengthWidth, aw)))
  val ram = master(RamReadPort(aw, ramWidth(cfg)))
  val beats = master(Stream(Fragment(TrimOutBeat(cfg))))
  /** The prefetch FIFO was pushed while full (the credits prevent it). */
  val overrun = out Bool()
}

/**
 * A ring-RAM packet reader with patching (docs/trimming-queue.md, "Sub-blocks"), one a queue:
 * reads each commanded packet's beats from a ring RAM of `depth` words (a beat's bytes, its byte
 * count - 1 and its last flag a word), one beat a clock, into a prefetch FIFO ahead of the output,
 * as long as the FIFO has a place for every read in flight (credits); a skipped packet (dropped at
 * dequeue) costs one clock and no read: the read pointer jumps past it. The beats of a packet marked
 * CE at dequeue are patched on their way in (RFC 3168; the IPv4 header checksum precomputed at
 * admission, RFC 1624; the model is uehw.model.trim.TrimHeaders.markCe). Latency: a command taken
 * at edge k has its first beat in the prefetch FIFO at edge k + 3.
 */
class RingPacketReader(val cfg: TrimQueueConfig, val depth: Int, val queue: Int) extends Component {
  import TrimQueue._
  private val aw = log2Up(depth)
  private val W = cfg.W
  private val countWidth = TrimQueue.countWidth(cfg)
  private val indexWidth = TrimQueue.indexWidth(cfg)
  val io = new RingPacketReaderIo(cfg, aw)

  val commands = StreamFifo(ReadCommand(cfg.lengthWidth, aw), 2, latency = 1)
  commands.io.push << io.commands
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
  io.ram.address := read
  io.ram.enable := issue
  val word = io.ram.data
  val v1 = RegNext(issue) init (False)
  val patch1 = RegNext(current)
  val index1 = RegNext(index)
  val v2 = RegNext(v1) init (False)
  val word2 = RegNext(word)
  val patch2 = RegNext(patch1)
  val index2 = RegNext(index1)
  private val last = word2(0)
  private val count = word2(countWidth downto 1).asUInt
  private val inData = word2(ramWidth(cfg) - 1 downto countWidth + 1)
  val outData = Bits(8 * W bits)
  outData := inData
  private val c = patch2
  private def lane(data: Bits, o: Int): Bits = TrimQueue.lane(data, o, W)
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
  prefetch.io.push.fragment.keep := keepOf(last, count, W)
  prefetch.io.push.fragment.queue := queue
  prefetch.io.push.last := last
  io.beats << prefetch.io.pop
  io.overrun := prefetch.io.push.isStall
}
