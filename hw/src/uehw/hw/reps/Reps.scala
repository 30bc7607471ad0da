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
  /** Low while the post-reset sweep initialises every connection (N clocks). */
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

object Reps {
  /** Clocks from a send's acceptance (valid && ready) to its result. */
  val latency = 2
}

/**
 * REPS entropy cache: one send and one control event (ACK, failure or init) per clock, for
 * any connection mix. Stage 0 arbitrates and reads the state RAMs; stage 1 bypasses the write
 * of the previous clock, applies the control event and then the send (the same connection in
 * the same clock sees the ACK first), writes back and registers the result.
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
    val busif = AxiLite4BusInterface(io.ctrl, SizeMapping(0, 256), "REPS")
    private val modeCode = RepsMode.all.indexOf(cfg.mode)
    // Register and field names are given explicitly: they are the C header's and the docs' names.
    // Fixed addresses: the map is the same in every mode (SEED is absent in reps-lite).
    private def reg(name: String, address: Int, doc: String) = busif.newRegAt(address, doc = doc)(SymbolName(name))
    private val info = reg("INFO", 0x00, "Generation parameters (read-only)")
    info.field(Bits(8 bits), AccessType.ROV, BigInt(0x52), doc = "Block id 0x52 ('R')")(SymbolName("ID"))
    info.field(Bits(4 bits), AccessType.ROV, BigInt(modeCode), doc = "Mode: 0 reps, 1 reps-lite, 2 ops")(SymbolName("MODE"))
    info.field(Bits(6 bits), AccessType.ROV, BigInt(B), doc = "Buffer entries B")(SymbolName("BUFFER_ENTRIES"))
    info.field(Bits(5 bits), AccessType.ROV, BigInt(cfg.evWidth), doc = "EV width e")(SymbolName("EV_WIDTH"))
    reg("CONNECTIONS", 0x04, "Number of connections N (read-only)")
      .field(Bits(17 bits), AccessType.ROV, BigInt(N), doc = "N; connection ids >= N are counted and ignored")(SymbolName("N"))

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
    val initConn = initReg.field(UInt(32 bits), AccessType.RW, 0, doc = "Connection id")(SymbolName("CONN"))
    val initInRange = RegNext(initConn < U(N, 32 bits)) init (True)
    val initPending = RegInit(False)
    val initWrite = RegNext(initReg.hitDoWrite) init (False)

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
  val sweep = new Area {
    val active = RegInit(Bool(hasState))
    val addr = Reg(UInt(cfg.connAddrWidth bits)) init (0)
    when(active) {
      addr := addr + 1
      when(addr === N - 1) { active := False }
    }
  }
  io.initDone := !sweep.active
  csr.statusInitDone := !sweep.active
  csr.statusInitPending := csr.initPending

  // ------------------------------------------- stage 0: arbitration
  // Control port: a CSR init goes first; a failure and an ACK waiting together alternate, so a
  // failure storm cannot hold ACKs (and so the end of freezing) back. A waiting event sees ready
  // low; nothing is dropped.
  val stage0 = new Area {
    val open = !sweep.active
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

    val ctrlValid = initGrant || io.failure.fire || io.ack.fire
    val ctrlKind = CtrlKind()
    val ctrlConn = UInt(cfg.connIdWidth bits)
    val ctrlInRange = Bool()
    ctrlInRange := inRange(ctrlConn)
    when(initGrant) {
      ctrlKind := CtrlKind.INIT; ctrlConn := csr.initConn.resize(cfg.connIdWidth)
      ctrlInRange := csr.initInRange
    } elsewhen (io.failure.fire) {
      ctrlKind := CtrlKind.FAILURE; ctrlConn := io.failure.conn
    } otherwise {
      ctrlKind := CtrlKind.ACK; ctrlConn := io.ack.conn
    }
  }

  // -------------------------------------------- stage 1 registers
  val s1 = new Area {
    val ctrlValid = RegNext(stage0.ctrlValid) init (False)
    val ctrlKind = RegNext(stage0.ctrlKind)
    val ctrlConn = hasState generate RegNext(stage0.ctrlConn)
    val ctrlInRange = RegNext(stage0.ctrlInRange)
    val ackEv = cfg.usesAckEv generate RegNext(io.ack.ev)
    val ackMarked = RegNext(io.ack.ecn || io.ack.trimmed)
    val sendValid = RegNext(io.send.fire) init (False)
    val sendConn = RegNext(io.send.conn)
    val sendInRange = RegNext(inRange(io.send.conn))
    val now = cfg.usesTime generate RegNext(io.now)
    val ctrlOk = ctrlValid && ctrlInRange
    val sendOk = sendValid && sendInRange
    val merged = hasState generate (ctrlOk && sendOk && ctrlConn === sendConn)
    val isAck = ctrlOk && ctrlKind === CtrlKind.ACK
    val isFailure = ctrlOk && ctrlKind === CtrlKind.FAILURE
    val isInit = ctrlOk && ctrlKind === CtrlKind.INIT
  }

  private val evsSizeClamped = {
    val s = csr.evsSize
    Mux(s === 0 || s > (BigInt(1) << cfg.evWidth), U(BigInt(1) << cfg.evWidth, cfg.evsSizeWidth bits), s)
  }
  // Outputs of the mode logic, stage 1; the events default to "did not happen".
  val chosenEv = UInt(cfg.evWidth bits)
  val explored = Bool()
  val replayed = False
  val ackRecycled = False
  val freezeEnter = False
  val freezeExit = False

  // reps-lite explores round-robin and has no PRNG.
  val prng = cfg.hasPrng generate new Xorshift32(cfg.prngSeed)
  val randomEv = cfg.hasPrng generate prng.scaled(evsSizeClamped, cfg.evWidth)
  if (cfg.hasPrng) {
    prng.reseed := csr.reseed
    prng.seedValue := csr.seed
    prng.draw := s1.sendOk && explored
  }

  val stateRam = hasState generate new XorBankedState(cfg.ctrlWidth, N)
  if (hasState) {
    stateRam.ctrlReadAddr := addrOf(stage0.ctrlConn)
    stateRam.sendReadAddr := addrOf(io.send.conn)
    stateRam.sweepWrite := sweep.active
    stateRam.sweepAddr := sweep.addr
    stateRam.ctrlWrite := s1.ctrlOk
    stateRam.sendWrite := s1.sendOk && !s1.merged
  }

  /** Stage 1 state plumbing shared by the stateful modes. */
  private def decode[T <: Bundle](bits: Bits, make: => T): T = { val t = make; t.assignFromBits(bits); t }
  /** The send's input: the control event's result when both address one connection (control first). */
  private def sendInput[T <: Bundle](afterCtrl: T, make: => T): T = Mux(s1.merged, afterCtrl, decode(stateRam.sendValue, make))
  /** Each port writes its result; a merged pair writes once, through the control port. */
  private def writeBack[T <: Bundle](afterCtrl: T, afterSend: T): Unit = {
    stateRam.ctrlWriteData := Mux(s1.merged, afterSend, afterCtrl).asBits
    stateRam.sendWriteData := afterSend.asBits
  }

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

    // EV store: written only by recycled ACKs, read only by sends; one masked word per connection.
    val evMem = Mem(Bits(cfg.evWordWidth bits), N)
    val evWrite = RepsEvWrite(cfg)
    val lastEvWrite = RegNext(evWrite)
    lastEvWrite.valid.init(False)
    val evRead = evMem.readSync(addrOf(io.send.conn))
    val evReadAddr = RegNext(addrOf(io.send.conn))
    val evs = Vec(UInt(cfg.evWidth bits), B)
    for (i <- 0 until B) {
      val stored = evRead(i * cfg.evWidth, cfg.evWidth bits).asUInt
      val bypassLast = lastEvWrite.valid && lastEvWrite.addr === evReadAddr && lastEvWrite.index === i
      val bypassNow = s1.merged && evWrite.valid && evWrite.index === i
      evs(i) := Mux(bypassNow, evWrite.ev, Mux(bypassLast, lastEvWrite.ev, stored))
    }
    evMem.write(evWrite.addr, evWrite.ev.asBits #* B, evWrite.valid, UIntToOh(evWrite.index, B).asBits)

    // Control event: Alg. 1.
    val before = decode(stateRam.ctrlValue, RepsConnState(cfg))
    val afterCtrl = RepsConnState(cfg)
    afterCtrl := before
    evWrite.valid := False
    evWrite.addr := addrOf(s1.ctrlConn)
    evWrite.index := before.head
    evWrite.ev := s1.ackEv
    when(s1.isInit) {
      afterCtrl := initState
    }
    when(s1.isFailure) {
      // Alg. 1 l.22-24: freeze unless already frozen or still exploring.
      when(!before.freezing && before.explore === 0) {
        afterCtrl.freezing := True
        afterCtrl.exitFreezing := s1.now + csr.freezingTimeout
        freezeEnter := True
      }
    }
    when(s1.isAck && !s1.ackMarked) {
      // Alg. 1 l.6-8: an ECN-marked (or trimmed) ACK returns before touching the buffer.
      // Alg. 1 l.9-14: cache the EV at head, mark it valid, advance head.
      ackRecycled := True
      evWrite.valid := True
      // Alg. 1 l.9-11: the entry at head is invalid unless all B are valid (then it is the oldest).
      when(before.numValid =/= B) { afterCtrl.numValid := before.numValid + 1 }
      afterCtrl.head := before.head + 1
      when(before.filled =/= B) { afterCtrl.filled := before.filled + 1 }
      // Alg. 1 l.15-18: leave freezing once now > exitFreezingMode (modulo 2^timeWidth), explore a BDP.
      when(before.freezing && (s1.now - before.exitFreezing).asSInt > 0) {
        afterCtrl.freezing := False
        afterCtrl.explore := csr.numPktsBdp
        freezeExit := True
      }
    }

    // Send: Alg. 2, applied after the control event when both address the same connection.
    val st = sendInput(afterCtrl, RepsConnState(cfg))
    val afterSend = RepsConnState(cfg)
    afterSend := st
    val numValid = st.numValid
    // Alg. 2 l.15: explore when empty, when nothing is valid outside freezing, or while exploring.
    val explore = st.filled === 0 || (numValid === 0 && !st.freezing) || st.explore =/= 0
    val oldest = (st.head - numValid.resize(cfg.headWidth)).resize(cfg.headWidth) // Alg. 2 l.4
    explored := explore
    chosenEv := randomEv
    when(explore) {
      when(st.explore =/= 0) { afterSend.explore := st.explore - 1 } // Alg. 2 l.17
    } elsewhen (numValid =/= 0) {
      chosenEv := evs(oldest) // Alg. 2 l.3-6: oldest valid EV, then invalidate it
      afterSend.numValid := st.numValid - 1
    } otherwise {
      // Alg. 2 l.7-9, freezing with no valid EV: replay the cached EVs round-robin.
      chosenEv := evs(st.replay)
      replayed := True
      afterSend.replay := Mux(st.replay.resize(cfg.filledWidth) + 1 === st.filled, U(0), st.replay + 1)
    }

    writeBack(afterCtrl, afterSend)
  }

  // ------------------------------------------- mode: reps-lite
  val liteLogic = (cfg.mode == RepsMode.Lite) generate new Area {
    val initState = LiteConnState(cfg).getZero
    stateRam.sweepData := initState.asBits

    /** Alg. 4 l.6/l.14: next_entropy++ % num_entropies; wrapping means all were tried. */
    def advance(s: LiteConnState, out: LiteConnState): Unit = {
      val wraps = s.next.resize(cfg.evsSizeWidth) + 1 >= evsSizeClamped
      out.next := Mux(wraps, U(0), s.next + 1)
      when(wraps) { out.triedAll := True }
    }

    val before = decode(stateRam.ctrlValue, LiteConnState(cfg))
    val afterCtrl = LiteConnState(cfg)
    afterCtrl := before
    when(s1.isInit) { afterCtrl := initState }
    when(s1.isAck) {
      when(s1.ackMarked) {
        afterCtrl.cached := before.next // Alg. 4 l.13-14: marked, move on to the next entropy
        advance(before, afterCtrl)
      } otherwise {
        afterCtrl.cached := s1.ackEv // Alg. 4 l.16: cache the EV of the clean ACK
        ackRecycled := True
      }
    }

    val st = sendInput(afterCtrl, LiteConnState(cfg))
    val afterSend = LiteConnState(cfg)
    afterSend := st
    val explore = st.sent < csr.numPktsBdp && !st.triedAll // Alg. 4 l.5
    explored := explore
    when(st.sent =/= st.sent.maxValue) { afterSend.sent := st.sent + 1 }
    when(explore) {
      chosenEv := st.next // Alg. 4 l.6
      advance(st, afterSend)
    } otherwise {
      chosenEv := st.cached // Alg. 4 l.8
    }

    writeBack(afterCtrl, afterSend)
  }

  // ------------------------------------------------- mode: ops
  val opsLogic = (cfg.mode == RepsMode.Ops) generate new Area {
    chosenEv := randomEv
    explored := True
  }

  // ----------------------------------------------------- result
  val result = Flow(RepsSendResult(cfg))
  result.valid := s1.sendValid
  result.conn := s1.sendConn
  result.ev := Mux(s1.sendInRange, chosenEv, U(0))
  result.explored := s1.sendInRange && explored
  result.replayed := s1.sendInRange && replayed
  result.outOfRange := !s1.sendInRange
  io.result := RegNext(result)
  io.result.valid.init(False)

  // ---------------------------------------------------- counters
  val stats = new Area {
    import CsrCounters.count
    count(csr.SENDS, s1.sendOk)
    count(csr.SENDS_EXPLORED, s1.sendOk && explored)
    count(csr.SENDS_RECYCLED, s1.sendOk && !explored)
    count(csr.SENDS_REPLAYED, s1.sendOk && replayed)
    count(csr.ACKS, s1.isAck)
    count(csr.ACKS_RECYCLED, s1.isAck && ackRecycled)
    count(csr.ACKS_MARKED, s1.isAck && s1.ackMarked)
    count(csr.FAILURES, s1.isFailure)
    count(csr.FREEZE_ENTER, freezeEnter)
    count(csr.FREEZE_EXIT, freezeExit)
    count(csr.INITS, s1.isInit)
    count(csr.OOR_SEND, s1.sendValid && !s1.sendInRange)
    count(csr.OOR_CTRL, s1.ctrlValid && !s1.ctrlInRange)
    count(csr.INIT_OVERRUN, stage0.initOverrun)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_reps_regs", "REPS")
}
