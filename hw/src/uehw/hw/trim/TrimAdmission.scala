// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._
import uehw.hw.common._

/** The ports of TrimAdmission. */
class TrimAdmissionIo(cfg: TrimQueueConfig) extends Bundle {
  import TrimQueue._
  private val dataAddressWidth = log2Up(cfg.dataRamBeats)
  private val controlAddressWidth = log2Up(cfg.controlRamBeats)

  val beat = slave(Flow(TrimRamBeat(cfg)))
  val verdict = slave(Flow(TrimVerdict(cfg)))
  /** The decision and what the counters count of the frame, valid with the verdict. */
  val admitted = master(Flow(TrimAdmitted()))
  /** The frame is trimmed: its header goes to the trim queue. */
  val toTrim = out Bool()
  val dataDescriptors = master(Stream(TrimDataDescriptor(cfg)))
  val controlLengths = master(Stream(UInt(cfg.lengthWidth bits)))
  val dataRead = slave(RamReadPort(dataAddressWidth, ramWidth(cfg)))
  val controlRead = slave(RamReadPort(controlAddressWidth, ramWidth(cfg)))
  /** Packets leaving (their dequeue), and trimmed headers leaving the trim queue. */
  val dataLeaves = slave(Flow(UInt(cfg.lengthWidth bits)))
  val controlLeaves = slave(Flow(UInt(cfg.lengthWidth bits)))
  val trimPopped = in Bool()
  val dataBytes = out UInt (cfg.occupancyWidth + 1 bits)
  val dataHighWater = out UInt (cfg.occupancyWidth bits)
  val controlBytes = out UInt (21 bits)
  val controlHighWater = out UInt (21 bits)
  val trimWaiting = out UInt (11 bits)
  /** A descriptor FIFO was pushed while full (the admission prevents it). */
  val overrun = out Bool()
}

/**
 * The trimming queue's admission and descriptors (docs/trimming-queue.md, "Sub-blocks";
 * smartt-reps.txt Sec. 2.1, 3): the queues' occupancies, the decision for the frame whose verdict
 * is in s3 (uehw.model.trim.TrimRules.admit), the data and control RAMs with their tentative
 * writes (every beat is written; at the decision the frame is committed to its queue or rolled
 * back), the descriptor FIFOs, and the occupancies' bookkeeping as packets are admitted and leave.
 */
class TrimAdmission(val cfg: TrimQueueConfig) extends Component {
  import TrimQueue._
  val io = new TrimAdmissionIo(cfg)

  /**
   * A count whose changes reach it a clock late, so that no decision reaches its adder: `now` is
   * the count (the registered base plus the last clock's registered changes), the value a register
   * updated by `in` and `out` would hold.
   */
  class LateCount(width: Int) extends Area {
    val in, out = Bool()
    val base = Reg(UInt(width bits)) init (0)
    private val inLast = RegNext(in) init (False)
    private val outLast = RegNext(out) init (False)
    val now = base + inLast.asUInt - outLast.asUInt
    base := now
  }

  /** Occupancies, changed at admission and when a packet starts to leave. */
  val occ = new Area {
    val dataBytes = Reg(UInt(cfg.occupancyWidth + 1 bits)) init (0)
    val dataBeats = Reg(UInt(occBeatsWidth(cfg, cfg.dataBeatLimit) bits)) init (0)
    val dataDescs = new LateCount(log2Up(cfg.dataDescriptors + 1))
    val controlBytes = Reg(UInt(21 bits)) init (0)
    val controlBeats = Reg(UInt(occBeatsWidth(cfg, cfg.controlBeatLimit) bits)) init (0)
    val controlDescs = new LateCount(log2Up(cfg.controlDescriptors + 1))
    /** dataDescs === dataDescriptors, kept in a register (the admission reads it, not a compare); likewise for control and the trim queue. */
    val dataDescsFull = RegInit(False)
    val controlDescsFull = RegInit(False)
    val trimCount = new LateCount(11)
    val trimFull = RegInit(False)
    val dataHighWater = Reg(UInt(cfg.occupancyWidth bits)) init (0)
    val controlHighWater = Reg(UInt(21 bits)) init (0)
  }
  io.dataBytes := occ.dataBytes
  io.dataHighWater := occ.dataHighWater
  io.controlBytes := occ.controlBytes
  io.controlHighWater := occ.controlHighWater
  io.trimWaiting := occ.trimCount.now

  /** The admission decision for the frame whose last beat is in s3 (smartt-reps.txt Sec. 2.1, 3). */
  val admit = new Area {
    private val c = io.verdict.payload
    val end = io.verdict.valid
    // The compares on the carry chains, and what is known from registers alone beside them, so that
    // each decision is one LUT after its compares (the decisions drive every occupancy and pointer).
    val bytesFit = occ.dataBytes <= c.dataBytesRoom
    val beatsFit = occ.dataBeats <= c.dataBeatsRoom
    val dataFits = bytesFit && beatsFit && !occ.dataDescsFull
    val controlBytesFit = occ.controlBytes.resize(22) <= c.controlBytesRoom
    val controlBeatsFit = occ.controlBeats <= c.controlBeatsRoom.resize(occ.controlBeats.getWidth)
    /** What the control queue's fit needs of registers alone: rooms not negative, a descriptor free. */
    private val controlRoom = !c.controlBytesRoom.msb && !c.controlBeatsRoom.msb && !occ.controlDescsFull
    val controlFits = controlRoom && controlBytesFit && controlBeatsFit
    val trimFits = !occ.trimFull
    val okFrame = !c.bad && !c.oversize && !c.malformed && !c.runt
    /** IPv4 with IHL 5 reached classification: its header checksum is verified. */
    val checked = okFrame && c.ipv4 && c.ihl5
    val badChecksum = checked && !c.ipv4ChecksumOk
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
    // The same decisions as plain conditions, so that each fits only reaches its own path: the
    // frame's part from registers (kept), then one LUT with the compares.
    private val dataFrame = Kept(end && okFrame && !c.control && !occ.dataDescsFull)
    private val controlFrame = Kept(end && okFrame && c.control && !c.controlOversize && controlRoom)
    val toData = Kept(dataFrame && bytesFit && beatsFit)
    val toControl = Kept(controlFrame && controlBytesFit && controlBeatsFit)
    val toTrim = end && okFrame && !c.control && !dataFits && c.transport && !badChecksum && trimFits
  }
  io.admitted.valid := admit.end
  io.admitted.outcome := admit.outcome
  io.admitted.wireBytes := io.verdict.wireBytes
  io.admitted.nonIp := admit.okFrame && !io.verdict.ip
  io.admitted.badChecksum := admit.badChecksum
  io.toTrim := admit.toTrim

  // ------------------------------------------- RAMs with tentative writes
  class PacketRam(depth: Int, maxBeats: Int, commit: Bool, port: RamReadPort) extends Area {
    val ram = Mem(Bits(ramWidth(cfg) bits), depth)
    val tentative, committed = Reg(UInt(log2Up(depth) bits)) init (0)
    private val b = io.beat
    val write = b.valid && b.index < maxBeats
    ram.write(tentative, b.data ## b.lastCount ## b.last, write)
    val afterWrite = Mux(write, inc(tentative, depth), tentative)
    tentative := afterWrite
    when(admit.end) {
      // Commit the whole frame, or roll every beat of it back.
      when(commit) { committed := afterWrite } otherwise { tentative := committed }
    }
    port.data := ram.readSync(port.address, port.enable)
  }
  // (committed under admit.end: the decisions, which include it)
  val dataRam = new PacketRam(cfg.dataRamBeats, cfg.maxFrameBeats, admit.toData, io.dataRead)
  val controlRam = new PacketRam(cfg.controlRamBeats, cfg.maxControlBeats, admit.toControl, io.controlRead)

  // forFMax: full and empty from registers, so the write enable of the wide descriptor RAM starts at one (3.85 ns otherwise).
  val dataDescriptors = StreamFifo(TrimDataDescriptor(cfg), cfg.dataDescriptors, forFMax = true)
  // Pushed the clock after the admission (registered): the FIFOs' write logic starts at a register.
  private val descriptorNow = TrimDataDescriptor(cfg)
  private val v = io.verdict.payload
  descriptorNow.length := v.length
  // A wrong IPv4 header checksum: not trusted as IP, left unchanged (never marked, never dropped as non-ECT).
  descriptorNow.ipv4 := v.ipv4 && !admit.badChecksum
  descriptorNow.ipv6 := v.ipv6
  descriptorNow.ecnCapable := v.ecnCapable
  descriptorNow.ceChecksum := v.ceChecksum
  descriptorNow.next := dataRam.afterWrite
  dataDescriptors.io.push.valid := RegNext(admit.toData) init (False)
  dataDescriptors.io.push.payload := RegNext(descriptorNow)
  val controlLengths = StreamFifo(UInt(cfg.lengthWidth bits), cfg.controlDescriptors, forFMax = true)
  controlLengths.io.push.valid := RegNext(admit.toControl) init (False)
  controlLengths.io.push.payload := RegNext(v.length)
  io.dataDescriptors << dataDescriptors.io.pop
  io.controlLengths << controlLengths.io.pop
  io.overrun := dataDescriptors.io.push.isStall || controlLengths.io.push.isStall

  // ----------------------------------------------- occupancy bookkeeping
  val bookkeeping = new Area {
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
    private val d = io.dataLeaves
    private val ctl = io.controlLeaves
    occ.dataBytes := updated(occ.dataBytes, d.payload, d.valid, v.length, admit.toData)
    occ.dataBeats := updated(occ.dataBeats, beatsOf(cfg, d.payload, "dataOut_beats"), d.valid, v.beats, admit.toData)
    /** A count's full flag after this clock: full and nothing left without one coming, or one short and one came without one leaving. */
    private def fullAfter(full: Bool, count: LateCount, limit: Int, in: Bool, out: Bool): Bool =
      (full && !(out && !in)) || (count.now === limit - 1 && in && !out)
    occ.dataDescs.in := admit.toData
    occ.dataDescs.out := d.valid
    // admit reads the full flags, not the counts: no decision reaches a count's adder (LateCount)
    occ.dataDescsFull := fullAfter(occ.dataDescsFull, occ.dataDescs, cfg.dataDescriptors, admit.toData, d.valid)
    occ.controlBytes := updated(occ.controlBytes, ctl.payload, ctl.valid, v.length, admit.toControl)
    occ.controlBeats := updated(occ.controlBeats, beatsOf(cfg, ctl.payload, "controlOut_beats"), ctl.valid, v.beats, admit.toControl)
    occ.controlDescs.in := admit.toControl
    occ.controlDescs.out := ctl.valid
    occ.controlDescsFull := fullAfter(occ.controlDescsFull, occ.controlDescs, cfg.controlDescriptors, admit.toControl, ctl.valid)
    occ.trimCount.in := admit.toTrim
    occ.trimCount.out := io.trimPopped
    occ.trimFull := fullAfter(occ.trimFull, occ.trimCount, cfg.trimEntries, admit.toTrim, io.trimPopped)
    // From the registered occupancies (one clock later, the same maximum): off the admission path.
    when(occ.dataBytes.resize(cfg.occupancyWidth) > occ.dataHighWater) { occ.dataHighWater := occ.dataBytes.resize(cfg.occupancyWidth) }
    when(occ.controlBytes > occ.controlHighWater) { occ.controlHighWater := occ.controlBytes }
  }
}
