// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import uehw.hw.common.{KeyedOp, KeyedStateLoop, ParamCheck, ResetSweep}

/**
 * The NIC engine's flow state and grant path (docs/nic-engine.md, "Flow state and grants").
 *
 * @param flows       flows, a multiple of 32 in 64..4096 (the picker's range)
 * @param credit      grants need positive credit (RCCC on, uec.cpp:1770-1786)
 * @param pickerDepth the grant picker's snapshot queue
 * @param grantFifo   grants held for a stalled `grant` output (at least 8: the five picks in the path and the FIFO stay at most 6 before a pick, so one grant a clock needs one FIFO entry)
 * @param pacing      a granted flow waits for its release (`io.release`, the pacer's word that its pacing time has come) before its next grant
 * @param messageEnds message ends a flow holds that its grants have not reached (1, 2 or 4; 0: no message boundaries): an op's
 *                    `end` marks its queued count as a message's end; a grant's bytes stop there and it says `last`
 */
case class NicCcFlowsConfig(flows: Int = 1024, credit: Boolean = false, pickerDepth: Int = 5, grantFifo: Int = 8, pacing: Boolean = false,
                            messageEnds: Int = 2) {
  /** Without pacing, with the default message ends (Java callers). */
  def this(flows: Int, credit: Boolean, pickerDepth: Int, grantFifo: Int) = this(flows, credit, pickerDepth, grantFifo, false, 2)
  /** With the default message ends (Java callers). */
  def this(flows: Int, credit: Boolean, pickerDepth: Int, grantFifo: Int, pacing: Boolean) = this(flows, credit, pickerDepth, grantFifo, pacing, 2)
  ParamCheck(Seq(0, 1, 2, 4).contains(messageEnds), "message-ends", s"$messageEnds is not 0, 1, 2 or 4")
  /** Doorbells and grants carry message boundaries. */
  val messages: Boolean = messageEnds > 0
  /** The cumulative count of message ends written (the op port's tail) and passed (the grant path's head), mod 2 x messageEnds. */
  val endCountBits: Int = log2Up(messageEnds max 1) + 1
  ParamCheck(flows >= 64 && flows <= 4096 && flows % 32 == 0, "flows", s"$flows must be a multiple of 32 in 64..4096")
  ParamCheck(grantFifo >= 8 && grantFifo <= 64, "grant-fifo", s"$grantFifo is outside 8..64")
  val picker: NicCcPickerConfig = NicCcPickerConfig(flows, 2, pickerDepth)
  val flowIdWidth: Int = log2Up(flows)
}

object NicCcFlows {
  /** The cumulative byte counters and the window: 32 bits, differences read as signed (mod 2^32). */
  val counterBits = 32
  /** A packet's payload bytes (MSS at most). */
  val bytesBits = 16
  /** Clock edges from an op's acceptance to the RAM write that the grants and the checks read (stage W). */
  val opToWrite = 3
  /** Edges from a write to the check's picker update that samples it: read one edge later, three stages. */
  val writeToUpdate = 5
  /** Edges from a taken pick to its state write and its push into the grant FIFO (registered, read, three stages). */
  val takeToWrite = 5
}

/**
 * One change of a flow's state: bytes added to its four cumulative counters (each may be 0) and
 * optionally a new window. The engine's top makes one per doorbell, ACK, NACK, PULL or timeout.
 */
case class NicCcFlowOp(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** Payload bytes the host queued (a doorbell). */
  val queued = UInt(NicCcFlows.counterBits bits)
  /** Wire bytes no longer in flight (newly ACKed, or a NACKed or timed-out packet). */
  val retired = UInt(NicCcFlows.counterBits bits)
  /** Payload bytes to send again (a NACKed or timed-out packet's). */
  val resend = UInt(NicCcFlows.counterBits bits)
  /** Wire bytes of credit (a PULL, RCCC); with `credit` only. */
  val credit = if (cfg.credit) UInt(NicCcFlows.counterBits bits) else null
  val setWindow = Bool()
  /** The law's window in wire bytes (with setWindow). */
  val window = UInt(NicCcFlows.counterBits bits)
  /**
   * A timeout (`io.timeout`'s candidate): it applies only if the flow's retired count is still
   * `expect` at the op's sums (no progress since the scan read it); else it does nothing.
   */
  val timeout = Bool()
  val expect = UInt(NicCcFlows.counterBits bits)
  /** With message boundaries: the queued count after this op ends a message (a doorbell's last). */
  val end = if (cfg.messages) Bool() else null
}

/** A flow the timeout scan found without progress for RTO: its oldest packet to retire and resend. */
case class NicCcTimeoutCandidate(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** Wire bytes retired: min(bytes in flight, MSS + overhead). */
  val bytes = UInt(NicCcFlows.bytesBits + 1 bits)
  /** Payload bytes to resend: bytes - overhead (0 if not above). */
  val resend = UInt(NicCcFlows.bytesBits + 1 bits)
  /** The retired count the scan read. */
  val expect = UInt(NicCcFlows.counterBits bits)
}

/** A timeout the op port applied. */
case class NicCcTimedOut(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val bytes = UInt(NicCcFlows.bytesBits + 1 bits)
}

/** One packet a flow may send now. */
case class NicCcGrant(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** The PSN of a new packet (the flow's count of new packets granted, mod 2^32); a resend's is the flow's next new PSN. */
  val psn = UInt(32 bits)
  /** Payload bytes: min(what is queued, MSS); a resend: min(the resend bytes left, MSS). */
  val bytes = UInt(NicCcFlows.bytesBits bits)
  /** The packet resends NACKed or timed-out bytes (the transport picks them from its own queue). */
  val resend = Bool()
  /** With message boundaries: the packet's bytes end a message (a new packet only; an empty message's packet has 0 bytes). */
  val last = if (cfg.messages) Bool() else null
}

/**
 * The counters the op port writes (cumulative, mod 2^32) and the window; credit only with RCCC on;
 * with message boundaries `tail`, the count of message ends written (the ends themselves, a ring of
 * messageEnds queued counts, are RAMs of their own beside each copy: NicCcFlows.ops.endsMirror).
 */
case class NicCcFlowOwn(cfg: NicCcFlowsConfig) extends Bundle {
  val queued = UInt(NicCcFlows.counterBits bits)
  val retired = UInt(NicCcFlows.counterBits bits)
  val resend = UInt(NicCcFlows.counterBits bits)
  val credit = if (cfg.credit) UInt(NicCcFlows.counterBits bits) else null
  val window = UInt(NicCcFlows.counterBits bits)
  val tail = if (cfg.messages) UInt(cfg.endCountBits bits) else null
}

/** The counters the grant path writes (cumulative, mod 2^32); the PSN only in the grant path's own copy; with pacing, its toggle; with messages, the ends passed. */
case class NicCcFlowSent(withPsn: Boolean = true, withPacing: Boolean = false, endCountBits: Int = 0) extends Bundle {
  /** New payload bytes granted. */
  val granted = UInt(NicCcFlows.counterBits bits)
  /** Resent payload bytes granted. */
  val resent = UInt(NicCcFlows.counterBits bits)
  /** Wire bytes granted (payload + overhead each packet). */
  val sent = UInt(NicCcFlows.counterBits bits)
  /** New packets granted: the next PSN. */
  val psn = if (withPsn) UInt(NicCcFlows.counterBits bits) else null
  /** With pacing: flips at each grant; the flow is held while it differs from the released toggle. */
  val paced = if (withPacing) Bool() else null
  /** With message boundaries: the count of message ends the grants passed (a grant with `last` adds one). */
  val head = if (endCountBits > 0) UInt(endCountBits bits) else null
}

/** With message boundaries: a grant with `last` as its state is written, and the flow's count of ends passed after it. */
case class NicCcEnded(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val head = UInt(cfg.endCountBits bits)
}

/** With pacing: a grant the pacer is to time (the grant path's write). */
case class NicCcPaceSent(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** The packet's wire bytes (payload + overhead). */
  val wire = UInt(NicCcFlows.bytesBits + 1 bits)
  /** The flow's paced toggle after this grant: its release carries it back. */
  val paced = Bool()
}

/** With pacing: a flow whose pacing time has come; its next grant may go. */
case class NicCcPaceRelease(cfg: NicCcFlowsConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** The toggle of the grant released (NicCcPaceSent.paced). */
  val paced = Bool()
}

class NicCcFlowsIo(cfg: NicCcFlowsConfig) extends Bundle {
  val op = slave(Stream(NicCcFlowOp(cfg)))
  val grant = master(Stream(NicCcGrant(cfg)))
  /** Payload bytes a packet carries at most (1..65535); quasi-static: change it with no flow eligible. */
  val mss = in UInt (NicCcFlows.bytesBits bits)
  /** Wire bytes a packet adds to its payload (headers, FCS); quasi-static like mss. */
  val overhead = in UInt (8 bits)
  /** A taken pick the grant path refused (the flow's state changed after its bit was set): a pulse. */
  val refused = out Bool ()
  /** The post-reset sweep is done (op ready follows). */
  val ready = out Bool ()
  /** A flow whose bytes in flight `inFlight` gives two edges after the edge that samples it. */
  val inFlightFlow = in UInt (cfg.flowIdWidth bits)
  /** Bytes in flight (sent - retired, below zero 0) of the flow sampled two edges before, as the RAMs held it then. */
  val inFlight = out UInt (NicCcFlows.counterBits bits)
  /** Time in ns, mod 2^32 (the timers'). */
  val now = in UInt (32 bits)
  /** The retransmission timeout in ns; 0: none. Quasi-static. */
  val rto = in UInt (32 bits)
  /** The timeout scan's candidate, for the op port (as an op with `timeout`). */
  val timeout = master(Stream(NicCcTimeoutCandidate(cfg)))
  /** High: the scan takes no new candidate (its user still works on the last timeout). */
  val timeoutHold = in Bool ()
  /** A timeout op that applied (a pulse), sampled at edge a + 3 for the op taken at edge a. */
  val timedOut = master(Flow(NicCcTimedOut(cfg)))
  /** The flow the timeout scan reads at the next edge (0 at the first edge after the post-reset sweep, then one more a clock). */
  val timeoutScan = out UInt (cfg.flowIdWidth bits)
  /** With pacing: each grant as its state is written (a pulse, sampled at edge g + 5 for the pick taken at g). */
  val sent = if (cfg.pacing) master(Flow(NicCcPaceSent(cfg))) else null
  /** With pacing: a granted flow released, written at the edge that samples it; its check reads from the next edge. */
  val release = if (cfg.pacing) slave(Flow(NicCcPaceRelease(cfg))) else null
  /** With message boundaries: each grant with `last` as its state is written (a pulse, at edge g + 5 for the pick taken at g). */
  val ended = if (cfg.messages) master(Flow(NicCcEnded(cfg))) else null
}

/**
 * The admission check, three register stages after the two states arrive (d0): what the flow's next
 * packet is and whether the window, less the bytes in flight, admits it (uec.cpp:1130-1135: cwnd >=
 * in_flight + packet, wire bytes), and, with `credit`, whether the credit is positive
 * (uec.cpp:1770-1786). A resend goes before new bytes (uec.cpp's rtx queue is served first). With
 * pacing a flow whose last grant is not yet released (its paced toggle differs) is not admitted.
 * With message boundaries a new packet's bytes stop at the flow's next message end when one is
 * written and not yet passed (then it may be 0: an empty message's one packet), and it says `last`
 * when it reaches that end.
 */
class NicCcAdmit(cfg: NicCcFlowsConfig, validIn: Bool, flowIn: UInt, own: NicCcFlowOwn, ends: Seq[UInt], sentIn: NicCcFlowSent, released: Bool,
                 mss: UInt, overhead: UInt, carry: Boolean) extends Area {
  private val W = NicCcFlows.counterBits
  private val K = cfg.messageEnds
  /** With `carry` (the grant path) the counters it writes travel along; a check carries none. */
  case class Carried() extends Bundle {
    val granted, resent, psn, sentPlusOverhead = UInt(W bits)
    val paced = if (cfg.pacing) Bool() else null
    val head = if (cfg.messages) UInt(cfg.endCountBits bits) else null
  }
  private def carried(c: Carried): Carried = if (carry) RegNext(c) else null
  val c1 = new Area {
    val valid = RegNext(validIn) init (False)
    val flow = RegNext(flowIn)
    val sent: Carried = if (carry) {
      val c = Carried()
      c.granted := sentIn.granted; c.resent := sentIn.resent; c.psn := sentIn.psn
      c.sentPlusOverhead := sentIn.sent + overhead
      if (cfg.pacing) c.paced := sentIn.paced
      if (cfg.messages) c.head := sentIn.head
      RegNext(c)
    } else null
    /** With messages: an end written that the grants have not passed, its slot, and the bytes to each slot's end. */
    val endValid = if (cfg.messages) RegNext(own.tail =/= sentIn.head) else null
    val headSlot = if (K > 1) RegNext(sentIn.head(log2Up(K) - 1 downto 0)) else null
    val toEnd = if (cfg.messages) Vec(ends.map(e => RegNext(e - sentIn.granted))) else null
    /** With pacing: a grant not yet released (its pacing time not come) holds the flow. */
    val held = if (cfg.pacing) RegNext(sentIn.paced =/= released) else null
    // differences kept unsigned, read as signed 32-bit numbers
    val inFlight = RegNext(sentIn.sent - own.retired)
    val queued = RegNext(own.queued - sentIn.granted)
    val resend = RegNext(own.resend - sentIn.resent)
    val creditPositive = if (cfg.credit) RegNext((own.credit - sentIn.sent).asSInt > 0) else null
    // the window less the overhead, signed (W + 1 bits)
    val windowLessOverhead = RegNext((own.window.resize(W + 1) - overhead.resize(W + 1)).asSInt)
  }
  val c2 = new Area {
    val valid = RegNext(c1.valid) init (False)
    val flow = RegNext(c1.flow)
    val sent: Carried = carried(c1.sent)
    private val mssS = mss.resize(W + 1).asSInt
    val hasResend = RegNext(c1.resend.asSInt > 0)
    /** The new bytes the next packet may take: to the next message end when one is pending, else all queued. */
    private val pending: UInt = if (!cfg.messages) c1.queued
      else Mux(c1.endValid, if (K > 1) c1.toEnd(c1.headSlot) else c1.toEnd(0), c1.queued)
    val hasQueued = RegNext(pending.asSInt > 0 || (if (cfg.messages) c1.endValid else False))
    val resendBig = RegNext(c1.resend.asSInt.resize(W + 1) >= mssS)
    val queuedBig = RegNext(pending.asSInt.resize(W + 1) >= mssS)
    val resendLow = RegNext(c1.resend(NicCcFlows.bytesBits - 1 downto 0))
    val queuedLow = RegNext(pending(NicCcFlows.bytesBits - 1 downto 0))
    /** A new packet would reach the pending message end (at most MSS to it). */
    val ending = if (carry && cfg.messages) RegNext(c1.endValid && !(pending.asSInt.resize(W + 1) > mssS)) else null
    // a negative in-flight count (more retired than sent) counts as none
    private val inFlight = Mux(c1.inFlight.msb, U(0, W bits), c1.inFlight)
    val room = RegNext(c1.windowLessOverhead.resize(W + 2) - inFlight.resize(W + 2).asSInt)
    val creditPositive = if (cfg.credit) RegNext(c1.creditPositive) else null
    val held = if (cfg.pacing) RegNext(c1.held) else null
    /** Nothing was in flight (the grant path: this packet starts the flow's timer). */
    val idle = if (carry) RegNext(c1.inFlight.msb || c1.inFlight === 0) else null
  }
  val c3 = new Area {
    private val bytesNow = Mux(c2.hasResend, Mux(c2.resendBig, mss, c2.resendLow), Mux(c2.queuedBig, mss, c2.queuedLow))
    private val admitNow = (c2.hasResend || c2.hasQueued) && c2.room >= bytesNow.resize(W + 2).asSInt &&
      (if (cfg.credit) c2.creditPositive else True) && (if (cfg.pacing) !c2.held else True)
    val valid = RegNext(c2.valid) init (False)
    // the grant path's flow (a check's goes to the picker from stage 2)
    val flow = if (carry) RegNext(c2.flow) else null
    val sent: Carried = carried(c2.sent)
    val admit = RegNext(admitNow)
    /** A check's clear of the flow's picker bit (valid and not admitted), a register of its own (the picker's updateClears). */
    val clear = if (carry) null else RegNext(c2.valid && !admitNow) init (False)
    val bytes = if (carry) RegNext(bytesNow) else null
    val resend = if (carry) RegNext(c2.hasResend) else null
    val idle = if (carry) RegNext(c2.idle) else null
    val last = if (carry && cfg.messages) RegNext(!c2.hasResend && c2.ending) else null
  }
}

/**
 * Per flow: four cumulative counters and the window written by the op port, four written by the
 * grant path, a picker bit. An op is a keyed read-modify-write (KeyedStateLoop, one a clock, any
 * flows); a taken pick reads both states, checks (NicCcAdmit) and, when admitted, writes its
 * counters and pushes the grant. Each write is followed by a check of its flow that sets or clears
 * the picker bit: the last check of a flow reads all its writes, so a bit never stays wrong.
 */
class NicCcFlows(val cfg: NicCcFlowsConfig) extends Component {
  val io = new NicCcFlowsIo(cfg)
  private val N = cfg.flows
  private val A = cfg.flowIdWidth
  private def zeroOwn: NicCcFlowOwn = { val z = NicCcFlowOwn(cfg); z.assignFromBits(B(0, z.getBitsWidth bits)); z }
  private def sentState(withPsn: Boolean): NicCcFlowSent = NicCcFlowSent(withPsn, cfg.pacing, if (cfg.messages) cfg.endCountBits else 0)
  private def zeroSent(withPsn: Boolean): NicCcFlowSent = { val z = sentState(withPsn); z.assignFromBits(B(0, z.getBitsWidth bits)); z }

  val sweep = new ResetSweep(N, A)
  io.ready := !sweep.active

  /** The op port: stage 0 (accept, the RAM read), stage 1, stage 2 (the sums), W (the write). */
  val ops = new Area {
    io.op.ready := !sweep.active
    val s1 = new Area {
      val valid = RegNext(io.op.fire) init (False)
      val op = RegNext(io.op.payload)
      val now = RegNext(io.now)
      val retires = RegNext(io.op.retired =/= 0)
    }
    val s2 = new Area {
      val valid = RegNext(s1.valid) init (False)
      val op = RegNext(s1.op)
      val now = RegNext(s1.now)
      val retires = RegNext(s1.retires)
    }
    val loop = new KeyedStateLoop(NicCcFlowOwn(cfg), N, A, 3, 1, sweep,
      key = io.op.flow, twoBeforeW = KeyedOp(s1.valid, s1.op.flow))
    private val now = loop.read.state
    private val next = NicCcFlowOwn(cfg)
    // a timeout applies only if nothing was retired since the scan read the flow
    val cancel = s2.op.timeout && now.retired =/= s2.op.expect
    next.queued := now.queued + s2.op.queued
    // (the compare beside the sums, the choice after them)
    next.retired := Mux(cancel, now.retired, now.retired + s2.op.retired)
    next.resend := Mux(cancel, now.resend, now.resend + s2.op.resend)
    if (cfg.credit) next.credit := now.credit + s2.op.credit
    next.window := Mux(s2.op.setWindow, s2.op.window, now.window)
    // a message end: the queued count after the op goes into the ring's slot `tail` (endsMirror)
    if (cfg.messages) next.tail := now.tail + s2.op.end.asUInt.resize(cfg.endCountBits)
    loop.write(s2.valid, s2.op.flow, next, zeroOwn)
    /** The time of the flow's last op that retired bytes (its timer's restart), written with the op's state. */
    val retiredAt = Mem(UInt(32 bits), N).setName("retiredAtRam")
    sweep.write(retiredAt, RegNext(s2.op.flow), RegNext(s2.now), RegNext(s2.valid && s2.retires && !cancel) init (False), U(0, 32 bits))
    /** A timeout op that applied, registered after its sums: sampled at a + 3 for the op taken at a. */
    io.timedOut.valid := RegNext(s2.valid && s2.op.timeout && !cancel) init (False)
    io.timedOut.flow := RegNext(s2.op.flow)
    io.timedOut.bytes := RegNext(s2.op.retired.resize(NicCcFlows.bytesBits + 1))
    /** A timeout op between its acceptance and its result. */
    val timeoutInFlight = (s1.valid && s1.op.timeout) || (s2.valid && s2.op.timeout) || io.timedOut.valid
    /** The copy of the op port's state each reader has (one read port a RAM). */
    def mirror(name: String): Mem[NicCcFlowOwn] = {
      val m = Mem(NicCcFlowOwn(cfg), N).setName(name)
      m.write(loop.ramWrite.addr, loop.ramWrite.state, loop.ramWrite.enable)
      m
    }
    /**
     * With messages: the op's end and its ring slot, registered beside the loop's written state, so
     * the end is written with the op's words (the written queued count, no mux after the sums).
     */
    val endWrite = cfg.messages generate new Area {
      val valid = RegNext(s2.valid && s2.op.end) init (False)
      val slot = if (cfg.messageEnds > 1) RegNext(now.tail.resize(log2Up(cfg.messageEnds))) else null
    }
    /** A reader's copy of the ring: one RAM a slot, written with the op's words (0 in the sweep). */
    def endsMirror(name: String): Seq[Mem[UInt]] = if (!cfg.messages) Nil else (0 until cfg.messageEnds).map { k =>
      val m = Mem(UInt(NicCcFlows.counterBits bits), N).setName(s"${name}$k")
      val slotHit = if (cfg.messageEnds > 1) endWrite.slot === k else True
      m.write(loop.ramWrite.addr, loop.ramWrite.state.queued, sweep.active || (loop.ramWrite.enable && endWrite.valid && slotHit))
      m
    }
  }

  val picker = new NicCcPicker(cfg.picker)

  /**
   * With pacing: each reader's copy of the released toggle (the grant path, the two checks), written
   * at the edge that samples `io.release`. A flow is held while its paced toggle (the grant path's)
   * differs: from its grant until the pacer releases it.
   */
  val released = cfg.pacing generate new Area {
    val rams = Seq("grantReleasedRam", "opCheckReleasedRam", "grantCheckReleasedRam").map { n =>
      val m = Mem(Bool(), N).setName(n)
      sweep.write(m, io.release.flow, io.release.paced, io.release.valid, False)
      m
    }
  }
  private def releasedRead(k: Int, flow: UInt, enable: Bool): Bool = if (cfg.pacing) released.rams(k).readSync(flow, enable) else null

  /** The grant path: a taken pick registered (p0), both states read (d0), NicCcAdmit's three stages, then the write and the push. */
  val grants = new Area {
    val fifo = StreamFifo(NicCcGrant(cfg), cfg.grantFifo, latency = 1)
    io.grant << fifo.io.pop
    private val ownRam = ops.mirror("grantOwnRam")
    private val endsRams = ops.endsMirror("grantEndsRam")
    val sentRam = Mem(sentState(withPsn = true), N).setName("grantSentRam")
    /** The checks' copies: without the PSN, which only the grant needs. */
    val checkSentRams = Seq("opCheckSentRam", "grantCheckSentRam").map(n => Mem(sentState(withPsn = false), N).setName(n))
    // the pick registered first (the picker's offer is combinational from its head), then the RAM reads
    private val p0Valid = RegNext(picker.io.grant.fire) init (False)
    private val p0Flow = RegNext(picker.io.grant.payload)
    private val d0Valid = RegNext(p0Valid) init (False)
    private val d0Flow = RegNext(p0Flow)
    val check = new NicCcAdmit(cfg, d0Valid, d0Flow, ownRam.readSync(p0Flow, p0Valid), endsRams.map(_.readSync(p0Flow, p0Valid)),
      sentRam.readSync(p0Flow, p0Valid), releasedRead(0, p0Flow, p0Valid), io.mss, io.overhead, carry = true)
    private val c3 = check.c3
    val writes = c3.valid && c3.admit
    io.refused := c3.valid && !c3.admit
    val next = sentState(withPsn = true)
    next.granted := c3.sent.granted + Mux(c3.resend, U(0, NicCcFlows.bytesBits bits), c3.bytes).resize(NicCcFlows.counterBits)
    next.resent := c3.sent.resent + Mux(c3.resend, c3.bytes, U(0, NicCcFlows.bytesBits bits)).resize(NicCcFlows.counterBits)
    next.sent := c3.sent.sentPlusOverhead + c3.bytes
    next.psn := c3.sent.psn + (!c3.resend).asUInt.resize(NicCcFlows.counterBits)
    if (cfg.pacing) next.paced := !c3.sent.paced
    if (cfg.messages) {
      next.head := c3.sent.head + c3.last.asUInt.resize(cfg.endCountBits)
      io.ended.valid := writes && c3.last
      io.ended.flow := c3.flow
      io.ended.head := next.head
    }
    sweep.write(sentRam, c3.flow, next, writes, zeroSent(true))
    private val nextSeen = sentState(withPsn = false)
    nextSeen.granted := next.granted; nextSeen.resent := next.resent; nextSeen.sent := next.sent
    if (cfg.messages) nextSeen.head := next.head
    if (cfg.pacing) {
      nextSeen.paced := next.paced
      io.sent.valid := writes
      io.sent.flow := c3.flow
      io.sent.wire := c3.bytes +^ io.overhead
      io.sent.paced := next.paced
    }
    checkSentRams.foreach(m => sweep.write(m, c3.flow, nextSeen, writes, zeroSent(false)))
    /** The time a packet left with nothing in flight before it (its timer's start). */
    val startedAt = Mem(UInt(32 bits), N).setName("startedAtRam")
    sweep.write(startedAt, c3.flow, io.now, writes && c3.idle, U(0, 32 bits))
    fifo.io.push.valid := writes
    fifo.io.push.flow := c3.flow
    fifo.io.push.psn := c3.sent.psn
    fifo.io.push.bytes := c3.bytes
    fifo.io.push.resend := c3.resend
    if (cfg.messages) fifo.io.push.last := c3.last
    // Picks in the path (p0..c3) and grants in the FIFO, before this edge; ready at edge e holds
    // when they were at most grantFifo - 2 before edge e - 1: picks at e - 1 and e then fit.
    private val held = fifo.io.occupancy +^ CountOne(Seq(p0Valid, d0Valid, check.c1.valid, check.c2.valid, c3.valid))
    val open = RegNext(!sweep.active && held <= cfg.grantFifo - 2) init (False)
    picker.io.grant.ready := open
  }

  /** The in-flight query: copies of `retired` and `sent` alone, read at the query's edge, the difference a clock later. */
  val inFlightQuery = new Area {
    private val retiredRam = Mem(UInt(NicCcFlows.counterBits bits), N)
    retiredRam.write(ops.loop.ramWrite.addr, ops.loop.ramWrite.state.retired, ops.loop.ramWrite.enable)
    private val sentRam = Mem(UInt(NicCcFlows.counterBits bits), N)
    sweep.write(sentRam, grants.check.c3.flow, grants.next.sent, grants.writes, U(0, NicCcFlows.counterBits bits))
    private val difference = (sentRam.readSync(io.inFlightFlow) - retiredRam.readSync(io.inFlightFlow)).asSInt
    io.inFlight := RegNext(Mux(difference.msb, U(0), difference.asUInt))
  }

  /**
   * The timeout scan, one flow a clock in turn: read (t0), the differences (t1), the decision (t2),
   * into the candidate slot. A flow times out when bytes are in flight and both its last retiring
   * op and the first packet after it was idle are at least RTO ago (ages mod 2^32): its oldest
   * packet (min(in flight, MSS + overhead) wire bytes) is retired and its payload resent (uec.cpp:
   * 1297-1304, 2319-2430: one packet an expiry, the timer re-armed), through the op port.
   */
  val timeouts = new Area {
    private val W = NicCcFlows.counterBits
    private val sentCopy = Mem(UInt(W bits), N).setName("timeoutSentRam")
    sweep.write(sentCopy, grants.check.c3.flow, grants.next.sent, grants.writes, U(0, W bits))
    private val retiredCopy = Mem(UInt(W bits), N).setName("timeoutRetiredRam")
    retiredCopy.write(ops.loop.ramWrite.addr, ops.loop.ramWrite.state.retired, ops.loop.ramWrite.enable)
    val index = Reg(UInt(A bits)) init (0)
    index := Mux(index === N - 1 || sweep.active, U(0, A bits), index + 1)
    io.timeoutScan := index
    val t0 = new Area {
      val valid = RegNext(!sweep.active) init (False)
      val flow = RegNext(index)
      val sent = sentCopy.readSync(index)
      val retired = retiredCopy.readSync(index)
      val retiredAt = ops.retiredAt.readSync(index)
      val startedAt = grants.startedAt.readSync(index)
    }
    val t1 = new Area {
      val valid = RegNext(t0.valid) init (False)
      val flow = RegNext(t0.flow)
      val inFlight = RegNext(t0.sent - t0.retired)
      val retiredAge = RegNext(io.now - t0.retiredAt)
      val startedAge = RegNext(io.now - t0.startedAt)
      val expect = RegNext(t0.retired)
    }
    // MSS and overhead (quasi-static) through a register: no adder in front of the compares
    private val B = NicCcFlows.bytesBits + 1
    private val mss = RegNext(io.mss.resize(B))
    private val overhead = RegNext(io.overhead.resize(B))
    private val packet = RegNext(io.mss +^ io.overhead)
    private val dueNow = t1.valid && io.rto =/= 0 && !t1.inFlight.msb && t1.inFlight =/= 0 &&
      t1.retiredAge >= io.rto && t1.startedAge >= io.rto
    private val low = t1.inFlight(B - 1 downto 0)
    private val big = t1.inFlight(W - 2 downto B).orR || low > packet
    private val bytes = Mux(big, packet, low)
    // bytes - overhead: MSS for a whole packet, else what is in flight less the overhead (0 if not above)
    private val resend = Mux(big, mss, Mux(low > overhead, low - overhead, U(0, B bits)))
    /** t2: the decision registered (the compares are not in front of the slot's load). */
    val t2 = new Area {
      val due = RegNext(dueNow) init (False)
      val candidate = Reg(NicCcTimeoutCandidate(cfg))
      candidate.flow := t1.flow
      candidate.bytes := bytes
      candidate.resend := resend
      candidate.expect := t1.expect
    }
    val slot = Reg(NicCcTimeoutCandidate(cfg))
    val slotValid = RegInit(False)
    private val load = t2.due && !slotValid && !io.timeoutHold && !ops.timeoutInFlight
    when(io.timeout.fire) { slotValid := False }
    when(load) {
      slotValid := True
      slot := t2.candidate
    }
    io.timeout.valid := slotValid
    io.timeout.payload := slot
  }

  /** A check of a flow after each write (the op port's on picker port 0, the grant path's on 1). */
  private def recheck(label: String, port: Int, validAtWrite: Bool, flowAtWrite: UInt, sentRam: Mem[NicCcFlowSent]) = new Area {
    // (the grant path reads released copy 0, the checks 1 and 2)
    // read one edge after the write (a read at the write's edge returns the word before it)
    val r0Valid = RegNext(validAtWrite) init (False)
    val r0Flow = RegNext(flowAtWrite)
    private val ownRam = ops.mirror(label + "OwnRam")
    private val endsRams = ops.endsMirror(label + "EndsRam")
    val d0Valid = RegNext(r0Valid) init (False)
    val d0Flow = RegNext(r0Flow)
    val check = new NicCcAdmit(cfg, d0Valid, d0Flow, ownRam.readSync(r0Flow, r0Valid), endsRams.map(_.readSync(r0Flow, r0Valid)), sentRam.readSync(r0Flow, r0Valid),
      releasedRead(port + 1, r0Flow, r0Valid), io.mss, io.overhead, carry = false)
    picker.io.updates(port).valid := check.c3.valid
    // the picker takes the flow a stage before the decision (its clears are then two LUT levels)
    picker.io.updateFlows(port) := check.c2.flow
    picker.io.updates(port).eligible := check.c3.admit
    picker.io.updateClears(port) := check.c3.clear
  }.setName(label)

  val opCheck = recheck("opCheck", 0, ops.loop.written.write && !sweep.active, ops.loop.written.addr, grants.checkSentRams(0))
  // With pacing a grant leaves its flow held: the check follows its release instead (the pick cleared the bit).
  val grantCheck = if (cfg.pacing) recheck("grantCheck", 1, io.release.valid, io.release.flow, grants.checkSentRams(1))
    else recheck("grantCheck", 1, grants.writes, grants.check.c3.flow, grants.checkSentRams(1))
}
