// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite.{AxiLite4, AxiLite4Config}
import spinal.lib.bus.amba4.axis.Axi4Stream.Axi4StreamBundle
import uehw.hw.common.{KeyedOp, KeyedStateLoop, ParamCheck, ResetSweep}
import uehw.hw.nscc.{Nscc, NsccConfig, NsccEvent}
import uehw.hw.trim.TrimQueue
import uehw.hw.window.WindowEvent

/**
 * The NIC congestion-management engine, its first wiring with NSCC (docs/nic-engine.md, "The engine").
 *
 * @param dataBytes bytes of the control-frame bus (8..64)
 * @param flows     flows, a multiple of 32 in 64..1024
 * @param credit    grants need credit (RCCC on): PULLs give it
 * @param lawFifo   control events held for the law (its same-flow spacing); an ACK without room bypasses it
 * @param pullBytes bytes one unit of a PULL's cumulative number is worth: the reference counts pulls
 *                  in quanta of 256 B (uec.cpp:33-36, 3044-3059)
 */
case class NicCcConfig(dataBytes: Int = 64, flows: Int = 1024, credit: Boolean = false, lawFifo: Int = 64,
                       pullBytes: Int = 256, linkGbps: Int = 100, mtu: Int = 4150, networkRttPs: Long = 14022720L) {
  ParamCheck(lawFifo >= 8 && lawFifo <= 1024 && isPow2(lawFifo), "law-fifo", s"$lawFifo must be a power of two in 8..1024")
  ParamCheck(pullBytes >= 1 && pullBytes <= 65536 && isPow2(pullBytes), "pull-bytes", s"$pullBytes must be a power of two in 1..65536")
  val rx: NicCcRxConfig = NicCcRxConfig(dataBytes, flows)
  val flowState: NicCcFlowsConfig = NicCcFlowsConfig(flows, credit)
  val nscc: NsccConfig = NsccConfig(flows, log2Up(flows), linkGbps, mtu, networkRttPs)
  val flowIdWidth: Int = log2Up(flows)
}

object NicCc {
  /** Edges from the edge that samples a receiver result to the edge that samples its law event push, credit push and retransmit request. */
  val resultToEvent = 3
}

/** A doorbell: payload bytes queued on a flow; `start` starts the flow (the law's INIT gives its first window). */
case class NicCcDoorbell(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val bytes = UInt(NicCcFlows.counterBits bits)
  val start = Bool()
}

/** A packet for the transport to send again: the NACKed packet's PSN. */
case class NicCcRetransmit(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val psn = UInt(32 bits)
}

/** What the engine does with an accepted law event once the law has updated the window. */
case class NicCcSide() extends Bundle {
  val retired = UInt(NicCcFlows.counterBits bits)
  val resend = UInt(NicCcFlows.counterBits bits)
}

case class NicCcLawEntry(cfg: NicCcConfig) extends Bundle {
  val event = NsccEvent(cfg.nscc)
  val side = NicCcSide()
}

/** An op that does not wait for the law: a PULL's credit or a bypassing ACK's retired bytes. */
case class NicCcDirect(cfg: NicCcConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  val credit = UInt(NicCcFlows.counterBits bits)
  val retired = UInt(NicCcFlows.counterBits bits)
}

class NicCcIo(cfg: NicCcConfig) extends Bundle {
  /** Control frames from the MAC (never waits). */
  val rx = slave(Flow(Axi4StreamBundle(TrimQueue.axisConfig(cfg.rx.ingress))))
  val doorbell = slave(Stream(NicCcDoorbell(cfg)))
  val grant = master(Stream(NicCcGrant(cfg.flowState)))
  /** NACKed packets to send again (a Flow: the transport takes one a clock). */
  val retransmit = master(Flow(NicCcRetransmit(cfg)))
  /** Free-running time in ns (the RTT's clock and the law's). */
  val now = in UInt (32 bits)
  val udpPort = in UInt (16 bits)
  val mss = in UInt (NicCcFlows.bytesBits bits)
  val overhead = in UInt (8 bits)
  /** The law's CSRs (docs/nscc.md). */
  val lawCtrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Control events dropped because the law's FIFO was full; PULLs dropped because the credit FIFO was full. */
  /** ACKs the law did not see because its FIFO was nearly full: their bytes retire at once (a direct op). */
  val acksBypassed = out UInt (32 bits)
  /** NACKs dropped because the law's FIFO was full. */
  val nacksDropped = out UInt (32 bits)
  /** Direct ops (a PULL's credit, a bypassing ACK's retired bytes) dropped because their FIFO was full. */
  val directDrops = out UInt (32 bits)
  /** Results of the receiver per reason (NicCcRx.Reason), a pulse each. */
  val rxResult = master(Flow(UInt(4 bits)))
  /** The law's and the flow state's sweeps are done. */
  val ready = out Bool ()
}

/**
 * Control frames in, grants out (docs/nic-engine.md, "The engine"): the receiver (NicCcRx), the
 * per-flow ACK state (last cumulative bytes, latest pull: a keyed read-modify-write), the law
 * (NSCC, behind a FIFO), its window updates paired with what the event retires and resends, and
 * the flow state (NicCcFlows) that grants.
 */
class NicCc(val cfg: NicCcConfig) extends Component {
  val io = new NicCcIo(cfg)
  private val N = cfg.flows
  private val A = cfg.flowIdWidth
  private val W = NicCcFlows.counterBits

  val rx = new NicCcRx(cfg.rx)
  rx.io.input << io.rx
  rx.io.udpPort := io.udpPort
  io.rxResult.valid := rx.io.result.valid
  io.rxResult.payload := rx.io.result.reason

  val flows = new NicCcFlows(cfg.flowState)
  flows.io.mss := io.mss
  flows.io.overhead := io.overhead
  io.grant << flows.io.grant

  val law = new Nscc(cfg.nscc)
  law.io.now := io.now
  law.io.ctrl <> io.lawCtrl
  law.io.cwndQuery.valid := False
  law.io.cwndQuery.payload := 0
  io.ready := law.io.initDone && flows.io.ready

  /** The law's events wait here (the law's same-flow spacing holds its input). */
  val lawFifo = StreamFifo(NicCcLawEntry(cfg), cfg.lawFifo)

  /** Per flow: the last cumulative received bytes (ACK) and the latest pull number (PULL). */
  case class AckState() extends Bundle {
    val received = UInt(32 bits)
    val pulls = UInt(32 bits)
  }

  /** Stage 0: the receiver's result (taken frames only); stage 2: the sums; stage 3: the event, the credit, the request. */
  val acks = new Area {
    private val r = rx.io.result
    val sweep = new ResetSweep(N, A)
    // frames before the sweep's end are not taken (the result still counts on io.rxResult)
    private val taken = r.valid && r.reason === NicCcRx.Reason.Taken && !sweep.active
    val s1 = new Area {
      val valid = RegNext(taken) init (False)
      val c = RegNext(r.control)
    }
    val s2 = new Area {
      val valid = RegNext(s1.valid) init (False)
      val c = RegNext(s1.c)
    }
    private val writes1 = s1.valid && s1.c.kind =/= NicCcRx.Kind.Nack
    private val s3Pushes = Bool()
    val loop = new KeyedStateLoop(AckState(), N, A, 3, 1, sweep,
      key = r.control.flow, twoBeforeW = KeyedOp(writes1, s1.c.flow))
    flows.io.inFlightFlow := r.control.flow
    private val st = loop.read.state
    private val isAck = s2.c.kind === NicCcRx.Kind.Ack
    private val isPull = s2.c.kind === NicCcRx.Kind.Pull
    // a newer cumulative count moves the state; an older one (reordered) adds nothing (uec.cpp:910-927)
    private val newly = (s2.c.number - st.received).asSInt
    private val newer = !newly.msb && newly =/= 0
    private val pulled = (s2.c.number - st.pulls).asSInt
    private val pullNewer = !pulled.msb && pulled =/= 0
    private val next = AckState()
    next.received := Mux(isAck && newer, s2.c.number, st.received)
    next.pulls := Mux(isPull && pullNewer, s2.c.number, st.pulls)
    private val zero = AckState()
    zero.received := 0
    zero.pulls := 0
    // Room in the law's FIFO for this event, counting the one stage 3 pushes at the next edge: an
    // ACK leaves 8 entries to NACKs; one without room bypasses the law (its newly acknowledged
    // bytes retire at once through the direct ops; the law does not see its RTT and ECN).
    private val ahead = lawFifo.io.occupancy +^ U(s3Pushes)
    val ackRoom = ahead < cfg.lawFifo - 8
    val nackRoom = ahead < cfg.lawFifo
    val merge = s2.valid && isAck && !ackRoom
    loop.write(s2.valid && (isAck || isPull), s2.c.flow, next, zero)

    /** Stage 3: what the frame becomes. */
    val s3 = new Area {
      val valid = RegNext(s2.valid) init (False)
      val c = RegNext(s2.c)
      val newly = RegNext(Mux(isAck && newer, (s2.c.number - st.received), U(0, W bits)))
      val pulls = RegNext(Mux(isPull && pullNewer, (s2.c.number - st.pulls), U(0, W bits)))
      val rtt = RegNext(io.now - s2.c.timestamp)
      val inFlight = RegNext(flows.io.inFlight)
      val toLaw = RegNext(s2.valid && ((isAck && ackRoom) || (s2.c.kind === NicCcRx.Kind.Nack && nackRoom))) init (False)
      val nackDropped = RegNext(s2.valid && s2.c.kind === NicCcRx.Kind.Nack && !nackRoom) init (False)
      val bypass = RegNext(merge) init (False)
    }
    s3Pushes := s3.toLaw
  }

  /** An ACK in stage 2 bypasses the law (no room in its FIFO); for benches. */
  val mergeNow: Bool = acks.merge

  private def sat(x: UInt, bits: Int): UInt = Mux(x(x.getWidth - 1 downto bits).orR, U((BigInt(1) << bits) - 1, bits bits), x(bits - 1 downto 0))

  /** The law's FIFO: events from stage 3 first, a doorbell's INIT when stage 3 pushes none. */
  val lawQueue = new Area {
    val fifo = lawFifo
    private val s3 = acks.s3
    val fromFrame = s3.toLaw
    private val isNack = s3.c.kind === NicCcRx.Kind.Nack
    private val frameEntry = NicCcLawEntry(cfg)
    frameEntry.event.flow := s3.c.flow.resized
    frameEntry.event.kind := Mux(isNack, U(WindowEvent.NACK, 2 bits), U(WindowEvent.ACK, 2 bits))
    // NACK: the number field carries the trimmed packet's wire bytes
    frameEntry.event.bytes := sat(Mux(isNack, s3.c.number, s3.newly), Nscc.windowBits)
    frameEntry.event.rtt := Mux(isNack, U(0, Nscc.windowBits bits), sat(s3.rtt, Nscc.windowBits))
    frameEntry.event.ecn := s3.c.ecnEcho
    frameEntry.event.lastHop := isNack && s3.c.lastHop
    frameEntry.event.rcvWndPen := Mux(isNack, U(255, 8 bits), s3.c.rcvWndPen)
    frameEntry.event.inFlight := sat(s3.inFlight, Nscc.windowBits)
    frameEntry.side.retired := Mux(isNack, s3.c.number, s3.newly)
    frameEntry.side.resend := Mux(isNack && s3.c.number > io.overhead, s3.c.number - io.overhead, U(0, W bits))
    private val initEntry = NicCcLawEntry(cfg)
    initEntry.assignFromBits(B(0, initEntry.getBitsWidth bits))
    initEntry.event.allowOverride()
    initEntry.event.flow := io.doorbell.flow.resized
    initEntry.event.kind := WindowEvent.INIT
    initEntry.event.rcvWndPen := 255
    val initEntryValue = initEntry
    val frameEntryValue = frameEntry
    val bypassed = Reg(UInt(32 bits)) init (0)
    when(s3.bypass && bypassed =/= bypassed.maxValue) { bypassed := bypassed + 1 }
    io.acksBypassed := bypassed
    val nackDrops = Reg(UInt(32 bits)) init (0)
    when(s3.nackDropped && nackDrops =/= nackDrops.maxValue) { nackDrops := nackDrops + 1 }
    io.nacksDropped := nackDrops

    // into the law, the side part into the pairing FIFO (one update per event, in order: WindowUnit)
    val side = StreamFifo(NicCcSide(), 64)
    law.io.event.valid := fifo.io.pop.valid && side.io.push.ready
    law.io.event.payload := fifo.io.pop.event
    fifo.io.pop.ready := law.io.event.ready && side.io.push.ready
    side.io.push.valid := law.io.event.fire
    side.io.push.payload := fifo.io.pop.side
    side.io.pop.ready := law.io.update.valid
  }

  /** PULLs' credit and bypassing ACKs' retired bytes, waiting for a clock the law's updates leave. */
  val credits = new Area {
    val fifo = StreamFifo(NicCcDirect(cfg), 16)
    private val s3 = acks.s3
    private val isPull = s3.valid && s3.c.kind === NicCcRx.Kind.Pull && s3.pulls =/= 0
    private val wanted = isPull || (s3.bypass && s3.newly =/= 0)
    fifo.io.push.valid := wanted
    fifo.io.push.flow := s3.c.flow
    fifo.io.push.credit := Mux(isPull, (s3.pulls << log2Up(cfg.pullBytes)).resize(W), U(0, W bits))
    fifo.io.push.retired := Mux(isPull, U(0, W bits), s3.newly)
    val drops = Reg(UInt(32 bits)) init (0)
    when(wanted && !fifo.io.push.ready && drops =/= drops.maxValue) { drops := drops + 1 }
    io.directDrops := drops
  }

  /** Ops into the flow state: the law's update (with what its event retires and resends) first, then credits, then doorbells. */
  val opMerge = new Area {
    private val upd = law.io.update
    private val side = lawQueue.side.io.pop.payload
    private val op = flows.io.op
    val creditTurn = !upd.valid && credits.fifo.io.pop.valid
    val doorbellTurn = !upd.valid && !credits.fifo.io.pop.valid
    // a doorbell's INIT goes into the law's FIFO at a clock the frames leave
    // and leaves the 8 + 2 entries a frame may still need (stages 2 and 3)
    private val initOk = !io.doorbell.start || (!lawQueue.fromFrame && lawQueue.fifo.io.occupancy < cfg.lawFifo - 10)
    io.doorbell.ready := doorbellTurn && op.ready && law.io.initDone && initOk
    val doorbellFire = io.doorbell.fire
    lawQueue.fifo.io.push.valid := lawQueue.fromFrame || (doorbellFire && io.doorbell.start)
    lawQueue.fifo.io.push.payload := Mux(lawQueue.fromFrame, lawQueue.frameEntryValue, lawQueue.initEntryValue)
    op.valid := upd.valid || credits.fifo.io.pop.valid || doorbellFire
    op.flow := Mux(upd.valid, upd.flow.resize(A), Mux(creditTurn, credits.fifo.io.pop.flow, io.doorbell.flow))
    op.queued := Mux(doorbellTurn, io.doorbell.bytes, U(0, W bits))
    op.retired := Mux(upd.valid, side.retired, Mux(creditTurn, credits.fifo.io.pop.retired, U(0, W bits)))
    op.resend := Mux(upd.valid, side.resend, U(0, W bits))
    op.credit := Mux(creditTurn, credits.fifo.io.pop.credit, U(0, W bits))
    op.setWindow := upd.valid
    op.window := upd.cwnd.resize(W)
    credits.fifo.io.pop.ready := creditTurn && op.ready
  }

  /** A NACK's retransmit request, at stage 3. */
  io.retransmit.valid := acks.s3.valid && acks.s3.c.kind === NicCcRx.Kind.Nack
  io.retransmit.flow := acks.s3.c.flow
  io.retransmit.psn := acks.s3.c.psn
}
