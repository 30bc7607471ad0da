// SPDX-License-Identifier: Apache-2.0
package uehw.hw.reps

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

case class RepsSendRequest(cfg: RepsConfig) extends Bundle {
  val conn = UInt(cfg.connIdWidth bits)
}

case class RepsAck(cfg: RepsConfig) extends Bundle {
  val conn = UInt(cfg.connIdWidth bits)
  /** The echoed EV; absent in mode ops, which recycles nothing. */
  val ev = cfg.usesAckEv generate UInt(cfg.evWidth bits)
  val ecn = Bool()
  val trimmed = Bool()
}

case class RepsFailure(cfg: RepsConfig) extends Bundle {
  val conn = UInt(cfg.connIdWidth bits)
}

case class RepsSendResult(cfg: RepsConfig) extends Bundle {
  val conn = UInt(cfg.connIdWidth bits)
  val ev = UInt(cfg.evWidth bits)
  /** A random (reps, ops) or round-robin (reps-lite) EV was explored. */
  val explored = Bool()
  /** reps only: freezing mode replayed a cached EV that was no longer valid (Alg. 2 l.7-9). */
  val replayed = Bool()
  /** The connection id was >= N: no state was touched and ev is 0. */
  val outOfRange = Bool()
}

class RepsIo(cfg: RepsConfig) extends Bundle {
  val send = slave(Stream(RepsSendRequest(cfg)))
  val ack = slave(Stream(RepsAck(cfg)))
  val failure = slave(Stream(RepsFailure(cfg)))
  /** Free-running time base of the host (suggested: ns); compared modulo 2^timeWidth. Mode reps only. */
  val now = cfg.usesTime generate (in UInt (cfg.timeWidth bits))
  /** One result per accepted send, exactly `Reps.latency` clocks after it was accepted, in order. */
  val result = master(Flow(RepsSendResult(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low while the post-reset sweep initialises every connection and one clock after (N + 1 clocks). */
  val initDone = out Bool()
}

/**
 * Per-connection control word of mode `reps` (reps.txt Alg. 1 l.1-3, Table 1). The valid bits
 * are not stored: the valid entries are always the numberValidEVs entries before head (an ACK
 * extends that run at head, a send consumes its oldest), so entry i is valid iff
 * (head - 1 - i) mod B < numValid.
 */
case class RepsConnState(cfg: RepsConfig) extends Bundle {
  val head = UInt(cfg.headWidth bits)
  /** numberValidEVs (Alg. 1 l.3). */
  val numValid = UInt(cfg.filledWidth bits)
  /** Freezing replay pointer, wraps at `filled` (htsim buffer_reps.cpp remove_frozen). */
  val replay = UInt(cfg.headWidth bits)
  /** Entries written since init, saturating at B; 0 is Alg. 2's repsBuffer.isEmpty(). */
  val filled = UInt(cfg.filledWidth bits)
  val freezing = Bool()
  val exitFreezing = UInt(cfg.timeWidth bits)
  val explore = UInt(cfg.exploreWidth bits)
}

/** Per-connection control word of mode `reps-lite` (smartt-reps.txt Alg. 4 l.1-3). */
case class LiteConnState(cfg: RepsConfig) extends Bundle {
  val cached = UInt(cfg.evWidth bits)
  val next = UInt(cfg.evWidth bits)
  /** next_entropy has wrapped: "all entropies tried" (Alg. 4 l.5). */
  val triedAll = Bool()
  /** Packets sent since init, saturating: Alg. 4's p.seqnum. */
  val sent = UInt(cfg.exploreWidth bits)
}

/** One cached-EV write: entry `index` of connection `addr`. */
case class RepsEvWrite(cfg: RepsConfig) extends Bundle {
  val valid = Bool()
  val addr = UInt(cfg.connAddrWidth bits)
  val index = UInt(cfg.headWidth bits)
  val ev = UInt(cfg.evWidth bits)
}

object CtrlKind extends SpinalEnum(binarySequential) {
  val ACK, FAILURE, INIT = newElement()
}

/** The operations accepted in one clock (a control event and a send) as they move down the pipeline. */
case class RepsOps(cfg: RepsConfig) extends Bundle {
  val ctrlValid = Bool()
  val ctrlKind = CtrlKind()
  val ctrlConn = UInt(cfg.connIdWidth bits)
  val ctrlInRange = Bool()
  val ackEv = cfg.usesAckEv generate UInt(cfg.evWidth bits)
  val ackMarked = Bool()
  val sendValid = Bool()
  val sendConn = UInt(cfg.connIdWidth bits)
  val sendInRange = Bool()
  /** Both ports address one connection: the control event applies first, one write. */
  val merged = Bool()
  /** An ACK that is not marked: its EV is cached (reps, reps-lite). */
  val ackRecycles = Bool()
  val now = cfg.usesTime generate UInt(cfg.timeWidth bits)

  /** The control event, in range, decoded one-hot in stage 0 (registers for the update stage). */
  val isAck = Bool()
  val isFailure = Bool()
  val isInit = Bool()

  def ctrlOk: Bool = ctrlValid && ctrlInRange
  def sendOk: Bool = sendValid && sendInRange

  /** The same operations one clock later. */
  def stage(): RepsOps = {
    val r = RegNext(this)
    for (flag <- Seq(r.ctrlValid, r.sendValid, r.isAck, r.isFailure, r.isInit, r.ackRecycles, r.merged)) flag.init(False)
    r
  }
}

/** What the update stage decided for one clock's operations, carried to the result. */
case class RepsOutcome(cfg: RepsConfig) extends Bundle {
  /** A random (reps, ops) or round-robin (reps-lite) EV was explored. */
  val explored = Bool()
  val replayed = Bool()
  val freezeEnter = Bool()
  val freezeExit = Bool()
}

object Reps {
  /** Clocks from a send's acceptance (valid && ready) to its result. */
  val latency = 5
  /** PRNG bits a random EV is scaled from (the top ones): one 27 x 18 DSP (uehw.model.reps.RepsModel.DRAW_BITS). */
  val drawBits = 25
}

/**
 * REPS entropy cache: one send and one control event (ACK, failure or init) per clock, for
 * any connection mix, the same connection included. Stages:
 *  0. arbitration; the state and EV RAMs are read; which in-flight writes the reads miss is decided;
 *  1. the RAMs' output registers;
 *  2. update: the control event and then the send (the same connection in the same clock sees the
 *     ACK first) on the forwarded state; the PRNG draws for an exploring send;
 *  3. write-back; the cached EV is selected from the forwarded EV word; the draw enters the DSP;
 *  4. the DSP product and the cached EV are registered; the result register follows.
 */
class Reps(val cfg: RepsConfig) extends Component with RegisterDocs {
  val io = new RepsIo(cfg)
  setDefinitionName("uehw_reps")
  AxiLite4SpecRenamer(io.ctrl)

  private val N = cfg.connections
  private val B = cfg.bufferEntries
  private val hasState = cfg.hasState

  private def inRange(conn: UInt): Bool =
    if (BigInt(N) >= (BigInt(1) << cfg.connIdWidth)) True else conn < U(N, cfg.connIdWidth bits)
  private def addrOf(conn: UInt): UInt = conn.resize(cfg.connAddrWidth)

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    private val modeCode = RepsMode.all.indexOf(cfg.mode)
    // Register and field names are given explicitly: they are the C header's and the docs' names.
    // Fixed addresses: the map is the same in every mode (SEED is absent in reps-lite). INFO (0x00)
    // and VERSION (0xFC) come from the shared prologue (CsrBank): the block id, then the mode, B
    // and e as INFO's fields.
    val busif = CsrBank(io.ctrl, "REPS", 0x52, "Block id 0x52 ('R')",
      InfoField("MODE", 4, modeCode, "Mode: 0 reps, 1 reps-lite, 2 ops"),
      InfoField("BUFFER_ENTRIES", 6, B, "Buffer entries B"),
      InfoField("EV_WIDTH", 5, cfg.evWidth, "EV width e"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)

    RegisterDocs.constField(reg("CONNECTIONS", 0x04, "Number of connections N (read-only)"), Bits(17 bits), BigInt(N), "N; connection ids >= N are counted and ignored", "N")

    val freezingTimeout = reg("FREEZING_TIMEOUT", 0x08, "FREEZING_TIMEOUT (reps.txt Alg. 1 l.24)")
      .field(UInt(cfg.timeWidth bits), AccessType.RW, BigInt(cfg.freezingTimeout), doc = "Freezing duration in `now` units")(SymbolName("VALUE"))
    val numPktsBdp = reg("NUM_PKTS_BDP", 0x0C, "NUM_PKTS_BDP: sends explored after init or after leaving freezing (Alg. 1 l.17)")
      .field(UInt(cfg.exploreWidth bits), AccessType.RW, BigInt(cfg.numPktsBdp), doc = "Packets")(SymbolName("VALUE"))
    val evsSize = reg("EVS_SIZE", 0x10, "EVS_SIZE: explored EVs are uniform in [0, EVS_SIZE); 0 or > 2^e act as 2^e")
      .field(UInt(cfg.evsSizeWidth bits), AccessType.RW, BigInt(cfg.evsSizeDefault), doc = "Entropy space size")(SymbolName("VALUE"))
    private val hasPrng = cfg.hasPrng
    private val seedReg = hasPrng generate reg("SEED", 0x14, "PRNG seed: writing reloads the xorshift32 state (0 loads 1)")
    val seed = hasPrng generate seedReg.field(UInt(32 bits), AccessType.RW, BigInt(cfg.prngSeed), doc = "Seed")(SymbolName("VALUE"))
    val reseed = hasPrng generate (RegNext(seedReg.hitDoWrite) init (False))

    private val initReg = reg("INIT_CONN", 0x18, "Per-connection init: writing a connection id re-initialises it; an id >= N is counted in OOR_CTRL and ignored")
    // All 32 bits: a wider value must not alias a connection by losing its high bits.
    val initField = initReg.field(UInt(32 bits), AccessType.RW, 0, doc = "Connection id")(SymbolName("CONN"))
    val initPending = RegInit(False)
    val initWrite = RegNext(initReg.hitDoWrite) init (False)
    // The pending init keeps the id of its own write: a second write on the next clock (AXI4-Lite
    // takes one a clock) changes the field before the first is granted (found by make mutants).
    val initConn = RegNextWhen(initField.resize(cfg.connIdWidth), initWrite) init (0)
    val initInRange = RegNextWhen(initField < U(N, 32 bits), initWrite) init (True)

    private val statusReg = reg("STATUS", 0x1C, "Status")
    val statusInitDone = statusReg.field(Bool(), AccessType.RO, doc = "Post-reset sweep finished")(SymbolName("INIT_DONE"))
    val statusInitPending = statusReg.field(Bool(), AccessType.RO, doc = "A per-connection init is waiting for its slot")(SymbolName("INIT_PENDING"))

    private val counters = new CsrCounters(busif, 0x20)
    import counters.counter
    val SENDS = counter("Sends accepted for connections < N")
    val SENDS_EXPLORED = counter("Sends that explored an EV")
    val SENDS_RECYCLED = counter("Sends that reused a cached EV (including freezing replays)")
    val SENDS_REPLAYED = counter("Sends that replayed a cached EV in freezing mode")
    val ACKS = counter("ACKs accepted for connections < N")
    val ACKS_RECYCLED = counter("ACKs whose EV was cached")
    val ACKS_MARKED = counter("ACKs not recycled because ECN-marked or trimmed")
    val FAILURES = counter("Failure events accepted for connections < N")
    val FREEZE_ENTER = counter("Freezing mode entries")
    val FREEZE_EXIT = counter("Freezing mode exits")
    val INITS = counter("Per-connection inits applied")
    val OOR_SEND = counter("Sends with a connection id >= N")
    val OOR_CTRL = counter("ACKs, failures and inits with a connection id >= N (ignored)")
    val INIT_OVERRUN = counter("CSR init writes that replaced a still-pending init")
  }

  // ------------------------------------------------- post-reset sweep
  val sweep = new ResetSweep(N, cfg.connAddrWidth, enabled = hasState)
  /** The ports open the clock after the sweep's last write: a register of its own (low fanout). */
  val open = RegNext(!sweep.active) init (False)
  io.initDone := open
  csr.statusInitDone := open
  csr.statusInitPending := csr.initPending

  // ------------------------------------------- stage 0: arbitration
  // Control port: a CSR init goes first; a failure and an ACK waiting together alternate, so a
  // failure storm cannot hold ACKs (and so the end of freezing) back. A waiting event sees ready
  // low; nothing is dropped.
  val stage0 = new Area {
    val initGrant = open && csr.initPending
    /** Whose turn it is when a failure and an ACK wait together. */
    val ackFirst = RegInit(False)
    val contended = io.failure.valid && io.ack.valid
    io.failure.ready := open && !csr.initPending && !(contended && ackFirst)
    io.ack.ready := open && !csr.initPending && (!io.failure.valid || ackFirst)
    when(open && !csr.initPending && contended) { ackFirst := !ackFirst }
    io.send.ready := open

    /** A CSR init written while the previous one still waits replaces it (counted). */
    val initOverrun = csr.initWrite && csr.initPending && !initGrant
    when(csr.initWrite) {
      csr.initPending := True
    } elsewhen (initGrant) {
      csr.initPending := False
    }

    val ops = RepsOps(cfg)
    // Range checks and the same-connection compare are made on each source and then selected
    // by the grant, in parallel with the arbitration.
    val initConn = csr.initConn.resize(cfg.connIdWidth)
    val ctrlSameAsSend = Bool()
    ops.ctrlValid := initGrant || io.failure.fire || io.ack.fire
    when(initGrant) {
      ops.ctrlKind := CtrlKind.INIT; ops.ctrlConn := initConn
      ops.ctrlInRange := csr.initInRange
      ctrlSameAsSend := initConn === io.send.conn
    } elsewhen (io.failure.fire) {
      ops.ctrlKind := CtrlKind.FAILURE; ops.ctrlConn := io.failure.conn
      ops.ctrlInRange := inRange(io.failure.conn)
      ctrlSameAsSend := io.failure.conn === io.send.conn
    } otherwise {
      ops.ctrlKind := CtrlKind.ACK; ops.ctrlConn := io.ack.conn
      ops.ctrlInRange := inRange(io.ack.conn)
      ctrlSameAsSend := io.ack.conn === io.send.conn
    }
    if (cfg.usesAckEv) ops.ackEv := io.ack.ev
    ops.ackMarked := io.ack.ecn || io.ack.trimmed
    ops.sendValid := io.send.fire
    ops.sendConn := io.send.conn
    ops.sendInRange := inRange(io.send.conn)
    ops.merged := Bool(hasState) && ops.ctrlOk && ops.sendOk && ctrlSameAsSend
    ops.isAck := ops.ctrlOk && ops.ctrlKind === CtrlKind.ACK
    ops.isFailure := ops.ctrlOk && ops.ctrlKind === CtrlKind.FAILURE
    ops.isInit := ops.ctrlOk && ops.ctrlKind === CtrlKind.INIT
    ops.ackRecycles := Bool(hasState) && ops.isAck && !ops.ackMarked
    if (cfg.usesTime) ops.now := io.now
  }
  /** ops(k): the operations in stage k (stage 4 carries only the send, below). */
  val ops: Seq[RepsOps] = Iterator.iterate(stage0.ops)(_.stage()).take(4).toSeq

  private val evsSizeClamped = {
    val s = csr.evsSize
    Mux(s === 0 || s > (BigInt(1) << cfg.evWidth), U(BigInt(1) << cfg.evWidth, cfg.evsSizeWidth bits), s)
  }

  // ------------------------------------------- stage 2: the update
  val s2 = ops(2)
  val outcome = RepsOutcome(cfg)
  outcome.freezeEnter := False

  // reps-lite explores round-robin and has no PRNG. The PRNG advances in stage 3 for an exploring
  // send (from registers); stage 2 takes the value after that draw when the send one ahead draws.
  val prng = cfg.hasPrng generate new Xorshift32(cfg.prngSeed)
  val draws3 = cfg.hasPrng generate Bool()
  // A SEED write cuts the draws cleanly (docs/reps.md, "CSR writes"): the send that took its
  // word in stage 2 before the reload does not advance the reloaded state in stage 3.
  val reseeded = cfg.hasPrng generate (RegNext(csr.reseed) init (False))
  val advances3 = cfg.hasPrng generate (draws3 && !reseeded)
  if (cfg.hasPrng) {
    prng.reseed := csr.reseed
    prng.seedValue := csr.seed
    prng.draw := advances3
  }

  val stateRam = hasState generate new XorBankedState(cfg.ctrlWidth, N)
  if (hasState) {
    stateRam.ctrlReadAddr := addrOf(stage0.ops.ctrlConn)
    stateRam.sendReadAddr := addrOf(stage0.ops.sendConn)
    stateRam.ctrlWrites := stage0.ops.ctrlOk
    stateRam.sendWrites := stage0.ops.sendOk && !stage0.ops.merged
    stateRam.sweepWrite := sweep.active
    stateRam.sweepAddr := sweep.addr
  }

  private def decode[T <: Bundle](bits: Bits, make: => T): T = { val t = make; t.assignFromBits(bits); t }
  /** The send's input: the control event's result when both address one connection (control first). */
  private def sendInput[T <: Bundle](afterCtrl: T, make: => T): T = Mux(s2.merged, afterCtrl, decode(stateRam.sendValue, make))
  /** Each port writes its result; a merged pair writes once, through the control port. */
  private def writeBack[T <: Bundle](afterCtrl: T, afterSend: T): Unit = {
    stateRam.ctrlResult := Mux(s2.merged, afterSend, afterCtrl).asBits
    stateRam.sendResult := afterSend.asBits
  }

  /** Stage 3: the EV of a send that did not draw (cached, replayed or reps-lite's). */
  val cachedEv3 = UInt(cfg.evWidth bits)

  // ------------------------------------------------ mode: reps
  val repsLogic = (cfg.mode == RepsMode.Reps) generate new Area {
    def initState: RepsConnState = {
      val s = RepsConnState(cfg)
      s.head := 0; s.numValid := 0; s.replay := 0; s.filled := 0
      s.freezing := False; s.exitFreezing := 0
      s.explore := csr.numPktsBdp // a new connection explores its first BDP
      s
    }
    stateRam.sweepData := initState.asBits

    // Control event: Alg. 1.
    val before = decode(stateRam.ctrlValue, RepsConnState(cfg))
    /**
     * now > exitFreezingMode modulo 2^timeWidth (Alg. 1 l.15): exitFreezingMode - now is negative,
     * one carry chain with no zero test; computed on each forwarding candidate.
     */
    val exitPassed = stateRam.ctrlDerived(b => (decode(b, RepsConnState(cfg)).exitFreezing - s2.now).msb)
    /** Alg. 1 l.9-11: the entry at head is invalid unless all B are valid (then it is the oldest). */
    val numValidGrows = s2.ackRecycles && before.numValid =/= B
    val afterCtrl = RepsConnState(cfg)
    afterCtrl := before
    when(s2.isInit) {
      afterCtrl := initState
    }
    when(s2.isFailure) {
      // Alg. 1 l.22-24: freeze unless already frozen or still exploring.
      when(!before.freezing && before.explore === 0) {
        afterCtrl.freezing := True
        afterCtrl.exitFreezing := s2.now + csr.freezingTimeout
        outcome.freezeEnter := True
      }
    }
    when(s2.ackRecycles) {
      // Alg. 1 l.6-8: an ECN-marked (or trimmed) ACK returns before touching the buffer.
      // Alg. 1 l.9-14: cache the EV at head (the EV RAM write, stage 3), mark it valid, advance head.
      // Alg. 1 l.9-11: the entry at head is invalid unless all B are valid (then it is the oldest).
      when(numValidGrows) { afterCtrl.numValid := before.numValid + 1 }
      afterCtrl.head := before.head + 1
      when(before.filled =/= B) { afterCtrl.filled := before.filled + 1 }
    }
    // Alg. 1 l.15-18: leave freezing once now > exitFreezingMode (modulo 2^timeWidth), explore a BDP.
    val exits = s2.ackRecycles && before.freezing && exitPassed
    outcome.freezeExit := exits
    val afterExit = RepsConnState(cfg)
    afterExit := afterCtrl
    afterExit.freezing.allowOverride := False
    afterExit.explore.allowOverride := csr.numPktsBdp

    /**
     * The decrement and the zero test of the numValid a send starts from: for a merged pair they
     * are found from the state before the ACK, beside the ACK's increment, so that the one-clock
     * loop has no increment and decrement in series.
     */
    case class ValidCount(minus1: UInt, zero: Bool)
    def ownCount(st: RepsConnState) = ValidCount(st.numValid - 1, st.numValid === 0)
    /** The count after the control event, from the count before it. */
    val countAfterCtrl = ValidCount(Mux(numValidGrows, before.numValid, before.numValid - 1),
      s2.isInit || (!s2.ackRecycles && before.numValid === 0))

    /** Alg. 2 on the connection state `st` (its numValid's decrement and zero test as `count`): the state after the send and what the send takes. */
    case class SendStep(st: RepsConnState, count: ValidCount) {
      val after = RepsConnState(cfg)
      after := st
      val numValid = st.numValid
      // Alg. 2 l.15: explore when empty, when nothing is valid outside freezing, or while exploring.
      val explore = st.filled === 0 || (count.zero && !st.freezing) || st.explore =/= 0
      /** The entry a send that does not explore takes: the oldest valid one (Alg. 2 l.4). */
      val evIndex = (st.head - numValid.resize(cfg.headWidth)).resize(cfg.headWidth)
      val replayed = False
      when(explore) {
        when(st.explore =/= 0) { after.explore := st.explore - 1 } // Alg. 2 l.17
      } elsewhen (!count.zero) {
        // Alg. 2 l.3-6: the oldest valid EV, then invalidate it.
        after.numValid := count.minus1
      } otherwise {
        // Alg. 2 l.7-9, freezing with no valid EV: replay the cached EVs round-robin.
        evIndex := st.replay
        replayed := True
        after.replay := Mux(st.replay.resize(cfg.filledWidth) + 1 === st.filled, U(0), st.replay + 1)
      }
    }
    // Send: Alg. 2, applied after the control event when both address the same connection. The
    // send is evaluated on both outcomes of the freezing-exit compare (a 32-bit carry chain), which
    // then only selects.
    private val sendAlone = decode(stateRam.sendValue, RepsConnState(cfg))
    private val sendCount = ownCount(sendAlone)
    val stays = SendStep(Mux(s2.merged, afterCtrl, sendAlone),
      ValidCount(Mux(s2.merged, countAfterCtrl.minus1, sendCount.minus1), Mux(s2.merged, countAfterCtrl.zero, sendCount.zero)))
    val leaves = SendStep(afterExit, countAfterCtrl)
    val sendAfterExit = s2.merged && exits
    val afterSend = Mux(sendAfterExit, leaves.after, stays.after)
    val evIndex = Mux(sendAfterExit, leaves.evIndex, stays.evIndex)
    outcome.explored := Mux(sendAfterExit, leaves.explore, stays.explore)
    outcome.replayed := Mux(sendAfterExit, leaves.replayed, stays.replayed)
    stateRam.ctrlResult := Mux(s2.merged, afterSend, Mux(exits, afterExit, afterCtrl)).asBits
    stateRam.sendResult := afterSend.asBits

    /**
     * EV store: written only by recycled ACKs (stage 3), read only by sends (stage 0); one word of
     * B entries per connection, written one entry at a time. The read misses the writes of the
     * three clocks ahead; they are forwarded per entry in stage 2.
     */
    val evs = new Area {
      val mem = Mem(Bits(cfg.evWordWidth bits), N)
      val write3 = RepsEvWrite(cfg)
      write3.valid := ops(3).ackRecycles
      write3.addr := addrOf(ops(3).ctrlConn)
      write3.index := RegNext(before.head)
      write3.ev := ops(3).ackEv
      mem.write(write3.addr, write3.ev.asBits #* B, write3.valid, UIntToOh(write3.index, B).asBits)
      // The entry and EV of the writes one and two clocks older (their hits are decided in stage 0).
      val written4 = (RegNext(write3.index), RegNext(write3.ev))
      val written5 = (RegNext(written4._1), RegNext(written4._2))

      val sendAddr0 = addrOf(stage0.ops.sendConn)
      /** Whether the ACK j = 1, 2, 3 clocks ahead writes the connection read now (decided in stage 0). */
      val hits1 = (1 to 3).map(j => RegNext(ops(j).ackRecycles && addrOf(ops(j).ctrlConn) === sendAddr0) init (False))
      val hits2 = hits1.map(h => RegNext(h) init (False))
      val stored2 = RegNext(mem.readSync(sendAddr0))
      // Stage 2: the writes one, two and three ahead are in stages 3, 4 and 5.
      val inFlight = Seq((write3.index, write3.ev), written4, written5)
      val current2 = Vec((0 until B).map { i =>
        val stored = stored2(i * cfg.evWidth, cfg.evWidth bits).asUInt
        inFlight.zip(hits2).foldRight(stored) { case (((index, ev), hit), older) => Mux(hit && index === i, ev, older) }
      })
      val current3 = RegNext(current2)
      val index3 = RegNext(evIndex)
      // Stage 3: the ACK of the same clock on the same connection wrote its entry first.
      val ownAck = ops(3).merged && write3.valid && write3.index === index3
      cachedEv3 := Mux(ownAck, write3.ev, current3(index3))
    }
  }

  // ------------------------------------------- mode: reps-lite
  val liteLogic = (cfg.mode == RepsMode.Lite) generate new Area {
    val initState = LiteConnState(cfg).getZero
    stateRam.sweepData := initState.asBits

    // EVS_SIZE - 1 (the last entropy; EVS_SIZE >= 1) and EVS_SIZE - 2, in registers of their own.
    val lastEvFull = evsSizeClamped - 1 // < 2^e: the top bit is dropped by design
    val lastEvMinus1Full = evsSizeClamped - 2 // used only when EVS_SIZE >= 2
    val lastEv = RegNext(lastEvFull.resize(cfg.evWidth))
    val lastEvMinus1 = RegNext(lastEvMinus1Full.resize(cfg.evWidth))
    val oneEntropy = RegNext(evsSizeClamped === 1)

    /**
     * Alg. 4 l.6/l.14, next_entropy++ % num_entropies (wrapping means all were tried), once and
     * twice from `x`, in parallel: a marked ACK and an exploring send of the same connection in
     * one clock advance twice, and the second step must not wait for the first.
     */
    case class Advance(x: UInt) {
      val wraps1 = x >= lastEv
      val next1 = Mux(wraps1, U(0, cfg.evWidth bits), x + 1)
      // The second step starts from 0 (first wrapped) or from x + 1 < EVS_SIZE (so EVS_SIZE >= 2).
      val wraps2 = Mux(wraps1, oneEntropy, x >= lastEvMinus1)
      val next2 = Mux(wraps1, Mux(oneEntropy, U(0, cfg.evWidth bits), U(1, cfg.evWidth bits)),
        Mux(x >= lastEvMinus1, U(0, cfg.evWidth bits), x + U(2 % (1 << cfg.evWidth), cfg.evWidth bits))) // e = 1: x + 2 = x mod 2
    }

    val before = decode(stateRam.ctrlValue, LiteConnState(cfg))
    val ctrlAdvance = Advance(before.next)
    val afterCtrl = LiteConnState(cfg)
    afterCtrl := before
    when(s2.isInit) { afterCtrl := initState }
    when(s2.isAck) {
      when(s2.ackMarked) {
        afterCtrl.cached := before.next // Alg. 4 l.13-14: marked, move on to the next entropy
        afterCtrl.next := ctrlAdvance.next1
        when(ctrlAdvance.wraps1) { afterCtrl.triedAll := True }
      } otherwise {
        afterCtrl.cached := s2.ackEv // Alg. 4 l.16: cache the EV of the clean ACK
      }
    }

    // The send's step of next_entropy, selected: from the stored state, or after the control event.
    val sendAdvance = Advance(decode(stateRam.sendValue, LiteConnState(cfg)).next)
    val stepNext = UInt(cfg.evWidth bits)
    val stepWraps = Bool()
    when(!s2.merged) {
      stepNext := sendAdvance.next1; stepWraps := sendAdvance.wraps1
    } elsewhen (s2.isInit) {
      stepNext := Mux(oneEntropy, U(0, cfg.evWidth bits), U(1, cfg.evWidth bits)); stepWraps := oneEntropy
    } elsewhen (s2.isAck && s2.ackMarked) {
      stepNext := ctrlAdvance.next2; stepWraps := ctrlAdvance.wraps2
    } otherwise {
      stepNext := ctrlAdvance.next1; stepWraps := ctrlAdvance.wraps1
    }

    val st = sendInput(afterCtrl, LiteConnState(cfg))
    val afterSend = LiteConnState(cfg)
    afterSend := st
    val explore = st.sent < csr.numPktsBdp && !st.triedAll // Alg. 4 l.5
    outcome.explored := explore
    outcome.replayed := False
    outcome.freezeExit := False
    when(st.sent =/= st.sent.maxValue) { afterSend.sent := st.sent + 1 }
    val ev = UInt(cfg.evWidth bits)
    when(explore) {
      ev := st.next // Alg. 4 l.6
      afterSend.next := stepNext
      when(stepWraps) { afterSend.triedAll := True }
    } otherwise {
      ev := st.cached // Alg. 4 l.8
    }
    writeBack(afterCtrl, afterSend)
    cachedEv3 := RegNext(ev)
  }

  // ------------------------------------------------- mode: ops
  val opsLogic = (cfg.mode == RepsMode.Ops) generate new Area {
    outcome.explored := True
    outcome.replayed := False
    outcome.freezeExit := False
    cachedEv3 := 0
  }

  // ------------------------------------------- stages 3-4: the EV
  val outcome3 = RegNext(outcome)
  // a register of its own (an exploring send in stage 3): it selects the 25-bit word the DSP takes
  if (cfg.hasPrng) draws3 := RegNext(s2.sendOk && outcome.explored) init (False)
  /**
   * A draw r becomes an EV in [0, EVS_SIZE) by multiply-high of its top 25 bits, one 27 x 18
   * DSP with its input and output registers: ((r >> 7) * EVS_SIZE) >> 25.
   */
  val scale = cfg.hasPrng generate new Area {
    // The value this send draws: the next one, or the one after if the send in stage 3 draws now.
    val drawWordFull = Mux(advances3, prng.valueAfterNext, prng.value) // its low bits are dropped by design
    val draw3 = RegNext(drawWordFull(31 downto 32 - Reps.drawBits))
    // EVS_SIZE through one register more than stage 2 reads it: the same edge as reps-lite's registered last EV.
    val size3 = RegNext(RegNext(evsSizeClamped))
    val product4 = RegNext(draw3 * size3)
    product4.setName("draw_scaledProduct") // the lint waiver names it: the low bits are dropped by design
    val ev4 = product4(Reps.drawBits, cfg.evWidth bits)
  }
  val cachedEv4 = RegNext(cachedEv3)
  val explored4 = RegNext(outcome3.explored)
  val replayed4 = RegNext(outcome3.replayed)
  val send4 = new Area {
    val valid = RegNext(ops(3).sendValid) init (False)
    val conn = RegNext(ops(3).sendConn)
    val inRange = RegNext(ops(3).sendInRange)
  }

  val result = Flow(RepsSendResult(cfg))
  result.valid := send4.valid
  result.conn := send4.conn
  private val ev4 = if (cfg.hasPrng) Mux(explored4, scale.ev4, cachedEv4) else cachedEv4
  result.ev := Mux(send4.inRange, ev4, U(0))
  result.explored := send4.inRange && explored4
  result.replayed := send4.inRange && replayed4
  result.outOfRange := !send4.inRange
  io.result := RegNext(result)
  io.result.valid.init(False)

  // ---------------------------------------------------- counters
  // Counted in stage 3, from registers.
  val stats = new Area {
    import CsrCounters.count
    val o = ops(3)
    count(csr.SENDS, o.sendOk)
    count(csr.SENDS_EXPLORED, o.sendOk && outcome3.explored)
    count(csr.SENDS_RECYCLED, o.sendOk && !outcome3.explored)
    count(csr.SENDS_REPLAYED, o.sendOk && outcome3.replayed)
    count(csr.ACKS, o.isAck)
    count(csr.ACKS_RECYCLED, o.ackRecycles)
    count(csr.ACKS_MARKED, o.isAck && o.ackMarked)
    count(csr.FAILURES, o.isFailure)
    count(csr.FREEZE_ENTER, outcome3.freezeEnter)
    count(csr.FREEZE_EXIT, outcome3.freezeExit)
    count(csr.INITS, o.isInit)
    count(csr.OOR_SEND, o.sendValid && !o.sendInRange)
    count(csr.OOR_CTRL, o.ctrlValid && !o.ctrlInRange)
    count(csr.INIT_OVERRUN, stage0.initOverrun)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_reps_regs", "REPS")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "REPS"
}
