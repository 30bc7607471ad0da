// SPDX-License-Identifier: Apache-2.0
package uehw.hw.rccc

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.regif._
import uehw.hw.common._

/** One input event: a pull target, a pull request, or a connection opened or closed. */
case class RcccPacerEvent(cfg: RcccPacerConfig) extends Bundle {
  /** RcccPacer.Kind: 0 target, 1 request, 2 open, 3 close. */
  val kind = UInt(2 bits)
  val conn = UInt(cfg.connIdWidth bits)
  /** Target: the cumulative pull target (256 B quanta, modulo 2^32); open: the initial pull number. */
  val number = UInt(32 bits)
}

/** One PULL to send: the connection, its cumulative pull number, and whether it is a slow pull. */
case class RcccPacerPull(cfg: RcccPacerConfig) extends Bundle {
  val conn = UInt(cfg.connIdWidth bits)
  val number = UInt(32 bits)
  val slow = Bool()
}

class RcccPacerIo(cfg: RcccPacerConfig) extends Bundle {
  val event = slave(Stream(RcccPacerEvent(cfg)))
  /** The pacer's PULLs, one at a time (held until taken). */
  val pulls = master(Stream(RcccPacerPull(cfg)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low during the post-reset sweep (N clocks). */
  val initDone = out(Bool())
  /** With `oversubscribed-cc`: the packets arriving at the receiver, at most one a clock (else null). */
  val arrival = if (cfg.oversubscribedCc) slave(Flow(RcccArrival())) else null
}

object RcccPacer {
  object Kind { val TARGET = 0; val REQUEST = 1; val OPEN = 2; val CLOSE = 3 }
  /** Ops of the state loop: the four input kinds, and the engine's two ticks. */
  object Op { val TARGET = 0; val REQUEST = 1; val OPEN = 2; val CLOSE = 3; val TICK_ACTIVE = 4; val TICK_IDLE = 5 }
  val psPerQuantumBits = 24
  val clockPsBits = 16
  val creditBits = 12
  val maxwndBits = 20
  /** The pacer's lead (ps the next event is ahead of now), signed. */
  val leadBits = 40
  /** The lead never falls below -2^32 ps (4.3 ms): a longer stall of the PULL port is forgotten, not repaid. */
  val lagLimit: Long = 1L << 32
  /** A zero grant still waits this many quanta (uec.cpp:3122-3128: 1024 >> 8). */
  val zeroGrantQuanta = 4
  /** Clocks the engine is busy with one tick or open: it starts again `engineClocks` after it started. */
  val engineClocks = 11
  /** The engine's op enters the state loop this many clocks after it started. */
  val engineSlot = 3
  /** From a tick's start to its PULL's valid. */
  val pullLatency = 8
  /** From an op's entry to the state loop to its list append being visible to the engine. */
  val appendLatency = 4
}

/**
 * RCCC's receiver pull pacer: per connection the highest pull target, the latest pull and on-list
 * bits; an active list served round robin and an idle list served with slow pulls; one event at a
 * time, the next due the granted quanta x PS_PER_QUANTUM after the one before (uec.cpp:3044-3175).
 * The rules are uehw.model.rccc.RcccPacerRules', the clocks uehw.model.rccc.RcccPacerModel's, bit
 * and clock for clock.
 *
 * Two parts share one state loop (a KeyedStateLoop of 3 stages over the highest target and the
 * bits): the input side, one event a clock, and the engine, one tick (or open) at a time: E0 pop a
 * list, E1 read the latest pull, E2 add the credit, E3 the tick in the loop (the input waits one
 * clock), E6 the new latest pull and grant, E7 written, the PULL loaded, E8-E9 the DSP product
 * quanta x PS_PER_QUANTUM, E10 added to the lead.
 */
class RcccPacer(val cfg: RcccPacerConfig) extends Component with RegisterDocs {
  val io = new RcccPacerIo(cfg)
  setDefinitionName("uehw_rccc_pacer")
  AxiLite4SpecRenamer(io.ctrl)
  import RcccPacer._
  private val N = cfg.connections
  private val A = cfg.connAddrWidth

  val csr = new Area {
    val busif = CsrBank(io.ctrl, "RCCC", 0x52, "Block id 0x52 ('R', RCCC pacer)",
      InfoField("CONN_ID_BITS", 8, cfg.connIdWidth, "Connection id bits"),
      InfoField("OVERSUBSCRIBED_CC", 1, if (cfg.oversubscribedCc) 1 else 0, "The oversubscription controller is built"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)

    RegisterDocs.constField(reg("CONNECTIONS", 0x04, "N (read-only)"), Bits(17 bits), BigInt(N), "Connections", "VALUE")
    val psPerQuantum = reg("PS_PER_QUANTUM", 0x08, "ps a 256-byte quantum takes at the pacer's rate (100 Gb/s x 0.99: 20686)")
      .field(UInt(psPerQuantumBits bits), AccessType.RW, cfg.psPerQuantum, doc = "ps")(SymbolName("VALUE"))
    val clockPs = reg("CLOCK_PS", 0x0C, "The clock period in ps (250 MHz: 4000)")
      .field(UInt(clockPsBits bits), AccessType.RW, cfg.clockPs, doc = "ps")(SymbolName("VALUE"))
    val creditPerPull = reg("CREDIT_PER_PULL", 0x10, "Quanta one pull grants at most (16 KiB: 64)")
      .field(UInt(creditBits bits), AccessType.RW, cfg.creditPerPull, doc = "quanta")(SymbolName("VALUE"))
    val maxwndQuanta = reg("MAXWND_QUANTA", 0x14, "Slow pulls stop this many quanta beyond a connection's target")
      .field(UInt(maxwndBits bits), AccessType.RW, cfg.maxwndQuanta, doc = "quanta")(SymbolName("VALUE"))
    private val status = reg("STATUS", 0x18, "Status")
    val statusInitDone = status.field(Bool(), AccessType.RO, doc = "Post-reset sweep finished")(SymbolName("INIT_DONE"))
    val activeCount = reg("ACTIVE_COUNT", 0x1C, "Connections on the active list (read-only)")
      .field(UInt(A + 1 bits), AccessType.RO, doc = "Entries")(SymbolName("VALUE"))
    val idleCount = reg("IDLE_COUNT", 0x20, "Connections on the idle list (read-only)")
      .field(UInt(A + 1 bits), AccessType.RO, doc = "Entries")(SymbolName("VALUE"))
    private val counters = new CsrCounters(busif, 0x40, oneReadMux = true)
    import counters.counter
    val TARGETS = counter("Target events of open connections")
    val STALE_TARGETS = counter("Target events not ahead of the connection's highest target (no effect)")
    val REQUESTS = counter("Request events of open connections")
    val OPENS = counter("Open events (in range)")
    val CLOSES = counter("Close events of open connections")
    val NOT_OPEN = counter("Target, request and close events of closed connections (no effect)")
    val OUT_OF_RANGE = counter("Events with a connection id >= N (no effect)")
    val JOINS = counter("Connections a target or request put on the active list")
    val PULLS = counter("PULLs sent")
    val SLOW_PULLS = counter("Slow PULLs sent (of PULLS)")
    val ZERO_PULLS = counter("PULLs of the active list that granted nothing (of PULLS)")
    val QUANTA = counter("Quanta granted, sum over PULLS")
    val DROPPED = counter("List entries of closed connections dropped by the engine (no PULL)")
    val PULL_STALLS = counter("Clocks a PULL waited for the pull port's ready")
    val LAG_CLAMPS = counter("Clocks the lead was clamped at -2^32 ps (a longer stall is forgotten)")
    /** With `oversubscribed-cc`: its settings, status and counters (else none of them). */
    val occ = if (!cfg.oversubscribedCc) null else new Area {
      import RcccOversubscribedCc._
      val periodClocks = reg("OCC_PERIOD_CLOCKS", 0x24, "Oversubscription controller: 1.5 network RTTs in clocks (below 512 taken as 512)")
        .field(UInt(periodBits bits), AccessType.RW, cfg.occPeriodClocks, doc = "clocks")(SymbolName("VALUE"))
      val minRate = reg("OCC_MIN_RATE", 0x28, "Oversubscription controller: the rate's floor in 2^-30 (0 taken as 1)")
        .field(UInt(rateBits bits), AccessType.RW, cfg.occMinRate, doc = "2^-30")(SymbolName("VALUE"))
      val rate = reg("OCC_RATE", 0x2C, "Oversubscription controller: the rate in 2^-30 (read-only)")
        .field(UInt(rateBits bits), AccessType.RO, doc = "2^-30")(SymbolName("VALUE"))
      val g = reg("OCC_G", 0x30, "Oversubscription controller: the marked fraction's average in 2^-30 (read-only)")
        .field(UInt(rateBits bits), AccessType.RO, doc = "2^-30")(SymbolName("VALUE"))
      val psPerQuantum = reg("OCC_PS_PER_QUANTUM", 0x34, "The time per quantum in use: PS_PER_QUANTUM x 2^30 / OCC_RATE (read-only)")
        .field(UInt(psPerQuantumBits bits), AccessType.RO, doc = "ps")(SymbolName("VALUE"))
      val OCC_ARRIVALS = counter("Oversubscription controller: packets arrived")(SymbolName("OCC_ARRIVALS"))
      val OCC_MARKED = counter("Oversubscription controller: untrimmed packets arrived ECN-marked")(SymbolName("OCC_MARKED"))
      val OCC_TRIMMED_LAST_HOP = counter("Oversubscription controller: trimmed packets arrived, trimmed at the last hop")(SymbolName("OCC_TRIMMED_LAST_HOP"))
      val OCC_TRIMMED_OTHER = counter("Oversubscription controller: trimmed packets arrived, trimmed before the last hop")(SymbolName("OCC_TRIMMED_OTHER"))
      val OCC_DECISIONS = counter("Oversubscription controller: rates decided (one per interval)")(SymbolName("OCC_DECISIONS"))
    }
  }

  val sweep = new ResetSweep(N, A)
  io.initDone := !sweep.active
  csr.statusInitDone := !sweep.active
  private val portsOpen = RegNext(!sweep.active) init (False)

  private def inRangeOf(conn: UInt): Bool = if (isPow2(N) && cfg.connIdWidth == A) True else conn < N
  private def wrap(x: UInt): UInt = if (isPow2(N)) x + 1 else Mux(x === N - 1, U(0, A bits), x + 1)
  /** x is ahead of y in serial-number arithmetic (RFC 1982): (x - y) mod 2^32 in 1 .. 2^31 - 1. */
  private def ahead(x: UInt, y: UInt): Bool = { val d = x - y; !d.msb && d =/= 0 }

  /** A list of connection ids (each on it at most once, so N entries never overflow). */
  class ConnList extends Area {
    val ram = Mem(UInt(A bits), N)
    val head = Reg(UInt(A bits)) init (0)
    val tail = Reg(UInt(A bits)) init (0)
    val count = Reg(UInt(A + 1 bits)) init (0)
    val push = Bool()
    val pushConn = UInt(A bits)
    val pop = Bool()
    ram.write(tail, pushConn, push)
    when(push) { tail := wrap(tail) }
    when(pop) { head := wrap(head) }
    count := count + push.asUInt.resize(A + 1) - pop.asUInt.resize(A + 1)
    /** The popped entry, a clock after `pop`. */
    val popped = ram.readSync(head, pop)
    val nonEmpty = count =/= 0
  }
  val activeList = new ConnList
  val idleList = new ConnList
  csr.activeCount := activeList.count
  csr.idleCount := idleList.count

  /** Per connection, in the state loop: the highest pull target, open, and on which lists it is. */
  case class HighState() extends Bundle {
    val highest = UInt(32 bits)
    val open = Bool()
    val onActive = Bool()
    val onIdle = Bool()
  }

  /** An op of the state loop. */
  case class LoopOp() extends Bundle {
    val valid = Bool()
    val op = UInt(3 bits)
    /** The connection's address (its id's low bits; the id's range is checked at s0). */
    val conn = UInt(A bits)
    val inRange = Bool()
    /** Target and open: the event's pull; a tick: the latest pull + credit. */
    val value = UInt(32 bits)
    /** A tick: the latest pull. */
    val latest = UInt(32 bits)
    /** A tick: the latest pull + credit - MAXWND_QUANTA. */
    val floor = UInt(32 bits)
  }

  /** The engine: one tick or open at a time, `engineClocks` clocks each. */
  val engine = new Area {
    val stage = Reg(UInt(4 bits)) init (0)
    val idle = stage === 0
    val due = RegInit(True)             // lead <= 0 (registered beside the lead, below)
    // an open goes first: a pacer that is always due (the engine its limit) must not starve it
    val openStarts = idle && portsOpen && io.event.valid && io.event.kind === Kind.OPEN && inRangeOf(io.event.conn)
    val tickStarts = idle && portsOpen && due && (activeList.nonEmpty || idleList.nonEmpty) && !io.pulls.valid && !openStarts
    val starts = tickStarts || openStarts
    when(starts) { stage := 1 } elsewhen (!idle) { stage := Mux(stage === engineClocks - 1, U(0, 4 bits), stage + 1) }

    val isOpen = Reg(Bool()) init (False)
    val fromActive = Reg(Bool())
    val openConn = Reg(UInt(A bits))
    val openPull = Reg(UInt(32 bits))
    activeList.pop := tickStarts && activeList.nonEmpty
    idleList.pop := tickStarts && !activeList.nonEmpty
    when(starts) {
      isOpen := openStarts
      fromActive := activeList.nonEmpty
      openConn := io.event.conn.resize(A)
      openPull := io.event.number
    }

    // E1: the connection (popped, or the open's) and its latest pull read
    val lRam = Mem(UInt(32 bits), N)
    val connE1 = Mux(isOpen, openConn, Mux(fromActive, activeList.popped, idleList.popped))
    val conn = RegNextWhen(connE1, stage === 1)
    val latestRead = lRam.readSync(connE1, stage === 1)

    // E2: the credit added (CSRs sampled here); E3: the op in the loop
    val credit = RegNextWhen(csr.creditPerPull, stage === 2)
    val maxwnd = RegNextWhen(csr.maxwndQuanta, stage === 2)
    val latest = RegNextWhen(latestRead, stage === 2)
    val plusCredit = RegNextWhen(latestRead + csr.creditPerPull.resize(32), stage === 2)
    /** E3: latest + credit - maxwnd, the slow pulls' limit (into the loop's s1 register). */
    val floor = plusCredit - maxwnd.resize(32)
    /** E3, a register (stage 2 goes to 3): the state loop's key select then starts at a flip-flop. */
    val inLoop = RegNext(stage === engineSlot - 1) init (False)
  }

  val input = new Area {
    private val kind = io.event.kind
    private val waitsForEngine = kind === Kind.OPEN && inRangeOf(io.event.conn)
    // the input waits while the engine's op takes the loop (E3), and while an open is on its way to it
    // (E1, E2: the events after it must see it)
    private val blocked = engine.inLoop || (engine.isOpen && (engine.stage === 1 || engine.stage === 2))
    io.event.ready := portsOpen && !blocked && (!waitsForEngine || engine.openStarts)
    val entersLoop = io.event.fire && !waitsForEngine
  }

  val s0 = new Area {
    val op = LoopOp()
    op.valid := engine.inLoop || input.entersLoop
    when(engine.inLoop) {
      op.op := Mux(engine.isOpen, U(Op.OPEN, 3 bits), Mux(engine.fromActive, U(Op.TICK_ACTIVE, 3 bits), U(Op.TICK_IDLE, 3 bits)))
      op.conn := engine.conn
      op.inRange := True
      op.value := Mux(engine.isOpen, engine.openPull, engine.plusCredit)
    } otherwise {
      op.op := io.event.kind.resize(3)
      op.conn := io.event.conn.resize(A)
      op.inRange := inRangeOf(io.event.conn)
      op.value := io.event.number
    }
    op.latest := engine.latest
    op.floor := engine.floor
  }
  val s1 = new Area { val op = RegNext(s0.op); op.valid init (False) }
  val s2 = new Area { val op = RegNext(s1.op); op.valid init (False) }

  /** The state loop: read at s0, the value at s2 (the ops one and two ahead forwarded), written from s3. */
  val loop = new KeyedStateLoop(HighState(), N, A, 3, 1, sweep,
    key = s0.op.conn, twoBeforeW = KeyedOp(s1.op.valid && s1.op.inRange, s1.op.conn))

  /** s2: the op's rules (RcccPacerRules), on the current state. */
  val rules = new Area {
    import s2.op
    val st = loop.read.state
    private def is(k: Int) = op.valid && op.inRange && op.op === k
    // each compare on every forwarding candidate, then one select (KeyedStateLoop.stateOf)
    val targetAhead = loop.read.stateOf(x => ahead(op.value, x.highest))     // target > highest (uec.cpp:2558)
    val backlogLeft = loop.read.stateOf(x => ahead(x.highest, op.value))     // highest > latest + credit (uec.cpp:3084: backlog left)
    val targetAboveLatest = loop.read.stateOf(x => ahead(x.highest, op.latest))
    val withinMaxwnd = loop.read.stateOf(x => ahead(x.highest, op.floor))    // latest + credit - highest < maxwnd (uec.cpp:3108-3109)
    val next = HighState()
    next := st
    val joinActive, pushActive, pushIdle, dropped = False
    when(is(Op.TARGET) && st.open && targetAhead) {
      next.highest := op.value
      when(!st.onActive) { next.onActive := True; joinActive := True }
    }
    when(is(Op.REQUEST) && st.open && !st.onActive) { next.onActive := True; joinActive := True }  // uec.cpp:2784-2792, 3157
    when(is(Op.OPEN)) { next.open := True; next.highest := op.value }
    when(is(Op.CLOSE)) { next.open := False }
    when(is(Op.TICK_ACTIVE)) {
      when(!st.open) { next.onActive := False; dropped := True }
        .elsewhen(backlogLeft) { pushActive := True }                                 // uec.cpp:3084-3085
        .otherwise {                                                                   // uec.cpp:3086-3090
          next.onActive := False
          when(!st.onIdle) { next.onIdle := True; pushIdle := True }
        }
    }
    when(is(Op.TICK_IDLE)) {
      when(!st.open) { next.onIdle := False; dropped := True }
        .elsewhen(!backlogLeft && withinMaxwnd) { pushIdle := True }                  // uec.cpp:3105-3112
        .otherwise { next.onIdle := False }
    }
    loop.write(op.valid && op.inRange, op.conn, next, init = HighState().getZero)
  }

  /** s3: the appends written to the lists, the engine's op's results to E6. */
  val s3 = new Area {
    val valid = RegNext(s2.op.valid) init (False)
    val op = RegNext(s2.op.op)
    val inRange = RegNext(s2.op.inRange)
    val conn = RegNext(s2.op.conn)
    val pushActive = RegNext(rules.joinActive || rules.pushActive) init (False)
    val pushIdle = RegNext(rules.pushIdle) init (False)
    val open = RegNext(rules.st.open)
    val highest = RegNext(rules.st.highest)
    val backlogLeft = RegNext(rules.backlogLeft)
    val targetAboveLatest = RegNext(rules.targetAboveLatest)
    val targetAhead = RegNext(rules.targetAhead)
    val joined = RegNext(rules.joinActive) init (False)
    val dropped = RegNext(rules.dropped) init (False)
    activeList.push := pushActive
    activeList.pushConn := conn
    idleList.push := pushIdle
    idleList.pushConn := conn
  }

  /** E6: the new latest pull and the grant (uec.cpp:2930-2936 pull(), 3097-3101 slow pull). */
  val grant = new Area {
    private val e = engine
    private val at = e.stage === 6
    private val belowTarget = (s3.highest(creditBits - 1 downto 0) - e.latest(creditBits - 1 downto 0))
    private val sends = !e.isOpen && s3.open
    private val quantaGranted = Mux(!e.fromActive || s3.backlogLeft, e.credit,
      Mux(s3.targetAboveLatest, belowTarget, U(0, creditBits bits)))
    private val latestNew = Mux(e.isOpen, e.openPull,
      Mux(!e.fromActive || s3.backlogLeft, e.plusCredit, Mux(s3.targetAboveLatest, s3.highest, e.latest)))
    // E7
    val write = RegNext(at && (e.isOpen || sends)) init (False)
    val emit = RegNext(at && sends) init (False)
    val latest = RegNext(latestNew)
    val quanta = RegNext(quantaGranted)
    /** The quanta the next event waits for: 4 for a zero grant (uec.cpp:3122-3128), a register right at the DSP's input. */
    val quantaForTime = RegNext(Mux(quantaGranted === 0, U(zeroGrantQuanta, creditBits bits), quantaGranted))
    val slow = RegNext(!e.fromActive)
    val conn = RegNext(e.conn)
    e.lRam.write(Mux(sweep.active, sweep.addr, conn), Mux(sweep.active, U(0, 32 bits), latest), sweep.active || write)
  }

  val output = new Area {
    val valid = RegInit(False)
    val conn = Reg(UInt(cfg.connIdWidth bits))
    val pull = Reg(UInt(32 bits))
    val slow = Reg(Bool())
    when(io.pulls.fire) { valid := False }
    when(grant.emit) { valid := True; conn := grant.conn.resize(cfg.connIdWidth); pull := grant.latest; slow := grant.slow }
    io.pulls.valid := valid
    io.pulls.conn := conn
    io.pulls.number := pull
    io.pulls.slow := slow
  }

  /**
   * The lead: ps from now to the next event's due time. Every clock it falls by CLOCK_PS; a PULL adds
   * its quanta (4 for none) x PS_PER_QUANTUM at E10, so that the next event is due that long after this
   * one was (not after it ran: the rate is the configured one whatever the clock). With nothing to do
   * it stops at 0 (the next event runs at once, uec.cpp:3157-3170); it never falls below -2^32.
   */
  /** The oversubscription controller (option): its time per quantum replaces PS_PER_QUANTUM at the DSP. */
  val oversubscribedCc = if (!cfg.oversubscribedCc) null else new Area {
    val controller = new RcccOversubscribedCc(cfg.occSeed, cfg.psPerQuantum)
    controller.io.start := portsOpen
    controller.io.arrival << io.arrival
    controller.io.periodClocks := csr.occ.periodClocks
    controller.io.minRate := csr.occ.minRate
    controller.io.basePsPerQuantum := csr.psPerQuantum
    csr.occ.rate := controller.io.rate
    csr.occ.g := controller.io.g
    csr.occ.psPerQuantum := controller.io.psPerQuantum
  }
  private val psPerQuantumInUse = if (cfg.oversubscribedCc) oversubscribedCc.controller.io.psPerQuantum else csr.psPerQuantum

  val lead = new Area {
    val product = RegNext(RegNext(grant.quantaForTime * psPerQuantumInUse))   // a DSP's M and P registers (E8, E9)
    private val addsAtE9 = RegNext(RegNext(grant.emit) init (False)) init (False)
    val delta = RegNext(Mux(addsAtE9, product.resize(leadBits).asSInt, S(0, leadBits bits)) - csr.clockPs.resize(leadBits).asSInt)
    val value = Reg(SInt(leadBits bits)) init (0)
    val stopped = (engine.idle || engine.isOpen) && !activeList.nonEmpty && !idleList.nonEmpty
    private val sum = value + delta
    val clamped = sum < S(-lagLimit, leadBits bits)
    private val nextValue = Mux(sum.msb && stopped, S(0, leadBits bits), Mux(clamped, S(-lagLimit, leadBits bits), sum))
    value := nextValue
    // due next clock: the new lead <= 0, which is the sum's sign or zero (a clamp or the stop keeps it <= 0),
    // so that the lists' counts stay off this path
    engine.due := sum.msb || sum === 0
  }

  val stats = new Area {
    import CsrCounters.{count, add}
    private def is(k: Int) = s3.valid && s3.inRange && s3.op === k
    count(csr.TARGETS, is(Op.TARGET) && s3.open)
    count(csr.STALE_TARGETS, is(Op.TARGET) && s3.open && !s3.targetAhead)
    count(csr.REQUESTS, is(Op.REQUEST) && s3.open)
    count(csr.OPENS, is(Op.OPEN))
    count(csr.CLOSES, is(Op.CLOSE) && s3.open)
    count(csr.NOT_OPEN, (is(Op.TARGET) || is(Op.REQUEST) || is(Op.CLOSE)) && !s3.open)
    count(csr.OUT_OF_RANGE, s3.valid && !s3.inRange)
    count(csr.JOINS, s3.joined)
    count(csr.DROPPED, s3.dropped)
    count(csr.PULLS, grant.emit)
    count(csr.SLOW_PULLS, grant.emit && grant.slow)
    count(csr.ZERO_PULLS, grant.emit && !grant.slow && grant.quanta === 0)
    when(grant.emit) { add(csr.QUANTA, grant.quanta) }
    count(csr.PULL_STALLS, io.pulls.valid && !io.pulls.ready)
    count(csr.LAG_CLAMPS, lead.clamped && !lead.stopped)
    if (cfg.oversubscribedCc) {
      val a = io.arrival
      count(csr.occ.OCC_ARRIVALS, a.valid)
      count(csr.occ.OCC_MARKED, a.valid && !a.trimmed && a.ecn)
      count(csr.occ.OCC_TRIMMED_LAST_HOP, a.valid && a.trimmed && a.lastHop)
      count(csr.occ.OCC_TRIMMED_OTHER, a.valid && a.trimmed && !a.lastHop)
      count(csr.occ.OCC_DECISIONS, oversubscribedCc.controller.io.decided)
    }
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_rccc_pacer_regs", "RCCC")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "RCCC"
}
