// SPDX-License-Identifier: Apache-2.0
package uehw.hw.window

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

/** What the skeleton reads of a law's event: the flow and the kind. */
trait WindowEvent {
  def flow: UInt
  /** 0 ACK, 1 NACK of a trimmed packet, 2 timeout, 3 INIT (new flow). */
  def kind: UInt
}

object WindowEvent {
  val ACK = 0; val NACK = 1; val TIMEOUT = 2; val INIT = 3
}

/** A packet to send again (NACK or timeout), passed to the transport. */
case class WindowRetransmit(flowIdWidth: Int) extends Bundle {
  val flow = UInt(flowIdWidth bits)
  val timeout = Bool()
}

/** The answer to a window query. */
case class WindowCwnd(flowIdWidth: Int, cwndWidth: Int) extends Bundle {
  val flow = UInt(flowIdWidth bits)
  val cwnd = UInt(cwndWidth bits)
}

/**
 * What a law is, before any hardware: its event, state and update formats, its sizes and where its
 * update loop starts. `build` then plugs the law's hardware into a unit (docs/window-unit.md).
 */
abstract class WindowLawSpec[E <: Bundle with WindowEvent, S <: Bundle, U <: Bundle] {
  /** Verilog module name, e.g. "uehw_smartt". */
  def definitionName: String
  /** Register-map name, e.g. "SMARTT". */
  def busName: String
  /** INFO bits 7:0 (docs/integration.md). */
  def blockId: Int
  /** INFO's other 8-bit fields: name, value, description. */
  def infoFields: Seq[(String, Int, String)]
  def flows: Int
  def flowIdWidth: Int
  def timeWidth: Int
  /** RAM address width (at least one bit: a one-flow unit has a two-word RAM). */
  def flowAddrWidth: Int = scala.math.max(1, log2Up(flows))
  /** RAM words: N, or 2 for N = 1. */
  def ramWords: Int = scala.math.max(2, flows)
  def eventType: HardType[E]
  def stateType: HardType[S]
  def updateType: HardType[U]
  /** Width of the window the query port answers with. */
  def queryWidth: Int
  /**
   * The stage S1 where the update loop starts: stages 1..S1-1 compute what depends only on the
   * event and the CSRs, the state is read at S1-2 and its data is there at S1-1.
   */
  def loopStart: Int
  /** Stages of the update loop, S1..S4. */
  def loopLength: Int = 4
  /**
   * Clocks between two events of one flow entering stage 1, at least: the loop's length, or more
   * when the law finds something of the window an event writes after the loop, for the next event.
   */
  def sameFlowSpacing: Int = loopLength
  def build(unit: WindowUnit[E, S, U]): WindowLaw[S, U]
}

/**
 * A law's hardware (an Area built inside the unit): its CSRs, what it derives from them, its event
 * stages and its update loop.
 */
abstract class WindowLaw[S <: Bundle, U <: Bundle] extends Area {
  /** Events wait while this is high (e.g. a divider rerunning after a CSR write). */
  def busy: Bool
  /** The event's new state at the last loop stage (combinational there, written in W). */
  def next: S
  /** The state the post-reset sweep writes. */
  def initState: S
  /** The window the query port returns for a state. */
  def queryValue(state: S): UInt
  /** After stage W exists: drive the update (valid and payload), count what the law counts. */
  def finish(report: WindowReport): Unit
}

/** What stage W reports of the event it holds (a register of each). */
class WindowReport(flowIdWidth: Int) extends Bundle {
  val valid = Bool()   // an event is in W
  val ok = Bool()      // ... for a flow < N: its state is written, its update goes out
  val inRange = Bool()
  val flow = UInt(flowIdWidth bits)
  val kind = UInt(2 bits)
  def isAck: Bool = kind === WindowEvent.ACK
  def isInit: Bool = kind === WindowEvent.INIT
}

class WindowUnitIo[E <: Bundle with WindowEvent, U <: Bundle](spec: WindowLawSpec[E, _, U]) extends Bundle {
  val event = slave(Stream(spec.eventType()))
  /** Free-running time in ns; sampled when an event is accepted. */
  val now = in(UInt(spec.timeWidth bits))
  /** One update per in-range event, a fixed latency after it was accepted. */
  val update = master(Flow(spec.updateType()))
  val retransmit = master(Flow(WindowRetransmit(spec.flowIdWidth)))
  /** Window read port for the scheduler: the answer comes one clock later. */
  val cwndQuery = slave(Flow(UInt(spec.flowIdWidth bits)))
  val cwndReply = master(Flow(WindowCwnd(spec.flowIdWidth, spec.queryWidth)))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low during the post-reset sweep (N clocks). */
  val initDone = out(Bool())
}

/**
 * The window-unit skeleton (docs/window-unit.md): N flows' state in block RAM, one event per clock
 * across flows, an event of a flow whose previous event is still in the update loop waiting in
 * stage 0 (never dropped or reordered), the state read with what is in flight forwarded, written
 * back in W; the CSR bank's common part, the post-reset sweep, the update / retransmit / query
 * ports and the counters every law has. The law (`spec.build`) brings its CSRs, its event stages
 * and its update loop.
 */
class WindowUnit[E <: Bundle with WindowEvent, S <: Bundle, U <: Bundle](val spec: WindowLawSpec[E, S, U])
    extends Component with RegisterDocs {
  val io = new WindowUnitIo[E, U](spec)
  setDefinitionName(spec.definitionName)
  AxiLite4SpecRenamer(io.ctrl)
  private val N = spec.flows

  /** Stage numbers: 0 holds a waiting event; the state is read at READ, the loop is S1..S4, W writes. */
  object Stage {
    val S1: Int = spec.loopStart
    val READ: Int = S1 - 2
    val S4: Int = S1 + spec.loopLength - 1
    val W: Int = S4 + 1
  }
  require(Stage.READ >= 1, "a law's loop starts at stage 3 or later")
  /** Stage values carried by declaration: `born(k)(x)` where x is made, `carry(x, to)` where it is read. */
  val carries = new StageCarries(spec.busName)
  def born[T <: Data](stage: Int)(x: T): T = carries.born(stage)(x)
  def carry[T <: Data](x: T, to: Int): T = carries(x, to)
  def addrOf(flow: UInt): UInt = flow.resize(spec.flowAddrWidth)

  // ---------------------------------------------------------------- CSRs, the common part
  // INFO (0x00) and VERSION (0xFC) from the shared prologue (CsrBank): the block id, then the law's
  // generation fields as INFO's fields, 8 bits each. The law's registers follow at fixed
  // addresses.
  val busif = CsrBank(io.ctrl, spec.busName, spec.blockId, f"Block id 0x${spec.blockId}%02X ('${spec.blockId.toChar}')",
    spec.infoFields.map { case (name, value, doc) => InfoField(name, 8, value, doc) }: _*)
  RegisterDocs.constField(busif.newRegAt(0x04, doc = "N (read-only)")(SymbolName("FLOWS")), Bits(17 bits), BigInt(N), "Flows", "VALUE")

  /** The post-reset sweep: every flow's state gets the law's initial state, one a clock. */
  val sweep = new ResetSweep(N, spec.flowAddrWidth)
  io.initDone := !sweep.active

  /** A law's register at `address`. */
  def csrRegister(name: String, address: Int, doc: String): RegInst = busif.newRegAt(address, doc = doc)(SymbolName(name))

  /** A law's register holding one read-write value field, VALUE, with its reset value and unit. */
  def csrValue[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, unit: String): T =
    csrRegister(name, address, doc).field(t(), AccessType.RW, reset, doc = unit)(SymbolName("VALUE"))

  /** The counters from `address` (0x60 in both laws), EVENTS, ACKS, NACKS, TIMEOUTS, INITS first. */
  def csrCounters(address: Int): CsrCounters = {
    val c = new CsrCounters(busif, address, oneReadMux = true)
    addKindCounters(c)
    c
  }

  /** Puts the sweep's end into a law's STATUS register (bit by bit, in the order the law calls). */
  def initDoneField(status: RegInst): Unit =
    status.field(Bool(), AccessType.RO, doc = "Post-reset sweep finished")(SymbolName("INIT_DONE")) := !sweep.active

  /** The counters every law has, on the addresses the law places them at. */
  val kindCounters = new Area {
    var events, acks, nacks, timeouts, inits, outOfRange: UInt = null
  }
  /** EVENTS, ACKS, NACKS, TIMEOUTS, INITS at the counters' next addresses. */
  private def addKindCounters(c: CsrCounters): Unit = {
    def counter(name: String, doc: String) = c.counter(doc)(SymbolName(name)).setName(s"csr_$name")
    kindCounters.events = counter("EVENTS", "Events for flows < N")
    kindCounters.acks = counter("ACKS", "ACK events")
    kindCounters.nacks = counter("NACKS", "NACK events (trimmed packets)")
    kindCounters.timeouts = counter("TIMEOUTS", "Timeout events")
    kindCounters.inits = counter("INITS", "INIT events")
  }
  def addOutOfRangeCounter(c: CsrCounters): Unit =
    kindCounters.outOfRange = c.counter("Events with a flow id >= N (ignored)")(SymbolName("OUT_OF_RANGE")).setName("csr_OUT_OF_RANGE")

  // ------------------------------------------------------------- the event pipeline
  private val lawBusy = Bool()

  /** Stage 0: one event waits here while a same-flow event is in the update loop (never dropped or reordered). */
  val hold = new Area {
    private val L = spec.sameFlowSpacing
    require(L >= spec.loopLength, s"${spec.busName}: the same-flow spacing ($L) is shorter than the update loop (${spec.loopLength})")
    val valid = RegInit(False)
    val event = Reg(spec.eventType())
    val now = Reg(UInt(spec.timeWidth bits))
    // met(k): the held event's flow entered stage 1 k + 1 clocks ago (k < L - 1), so its update is
    // not written yet. Compared when the event arrives, against the event going now and the ones
    // before; shifted while the event waits.
    val go = Bool()
    val goneFlows = History(event.flow, L - 1).drop(1)  // flows of the events going 1 .. L - 2 clocks ago
    val goneValid = History(go, L - 1, init = False).drop(1)
    val met = Reg(Bits(L - 1 bits)) init (0)
    // met === 0, registered from met's next value: go is then one LUT from flip-flops, not an OR over L - 1
    // bits (37 for NSCC) in front of go's fanout (the engine's limiting path, docs/nic-engine.md).
    val metZero = RegInit(True)
    // Events wait during the reset sweep and while the law is busy (registered: one clock after they start and end).
    val accepting = RegNext(!sweep.active && !lawBusy) init (False)
    go := valid && metZero && accepting
    val metNext = CombInit(met |<< 1)
    when(io.event.fire) {
      val incoming = io.event.flow
      metNext := ((go && event.flow === incoming) +: goneValid.zip(goneFlows).map { case (v, f) => v && f === incoming }).asBits
    }
    met := metNext
    metZero := metNext === 0
    io.event.ready := (!valid || go) && accepting
    when(go) { valid := False }
    when(io.event.fire) {
      valid := True
      event := io.event.payload
      now := io.now
    }
  }
  val stageValid: Seq[Bool] = (1 to Stage.S4).scanLeft(hold.go) { (v, k) => RegNext(v).init(False).setName(s"stage${k}_valid") }

  /** Stage 1: the event as it left stage 0. */
  val stage1 = new Area {
    val e = born(1)(RegNextWhen(hold.event, hold.go))
    val now = born(1)(RegNextWhen(hold.now, hold.go))
    val inRange = born(1)(if (N == (1 << spec.flowAddrWidth) && spec.flowIdWidth == spec.flowAddrWidth) True else e.flow < N)
    val addr = born(1)(addrOf(e.flow))
  }

  // ---------------------------------------------- the flow state: read, forwarded, written
  // unprefixed names (written_*, read_*, stateRam): the main state is the unit's
  val flowState = new FlowStateLoop(this, spec.stateType, Stage.S1, spec.loopLength).setName("")
  val cwndRam = Mem(UInt(spec.queryWidth bits), spec.ramWords)

  // ------------------------------------------------- the law: CSRs, event stages, update loop
  val law = spec.build(this)
  lawBusy := law.busy

  // ------------------------------------------------------- stage W
  flowState.write(law.next, law.initState)
  cwndRam.write(flowState.ramWrite.addr, law.queryValue(flowState.ramWrite.state), flowState.ramWrite.enable)

  val report = new WindowReport(spec.flowIdWidth)
  report.valid := RegNext(stageValid(Stage.S4)) init (False)
  report.ok := flowState.written.write
  report.inRange := RegNext(carry(stage1.inRange, Stage.S4))
  report.flow := RegNext(carry(stage1.e.flow, Stage.S4))
  report.kind := RegNext(carry(stage1.e.kind, Stage.S4))

  // ---------------------------------------------------------- outputs
  io.retransmit.valid := report.ok && !report.isAck && !report.isInit
  io.retransmit.flow := report.flow
  io.retransmit.timeout := report.kind === WindowEvent.TIMEOUT

  io.cwndReply.valid := RegNext(io.cwndQuery.valid) init (False)
  io.cwndReply.flow := RegNext(io.cwndQuery.payload)
  io.cwndReply.cwnd := cwndRam.readSync(addrOf(io.cwndQuery.payload))

  law.finish(report)

  val stats = new Area {
    import CsrCounters.count
    import report._
    private val c = kindCounters
    require(c.events != null && c.outOfRange != null, s"${spec.busName}: the law placed no kind or OUT_OF_RANGE counters")
    count(c.events, ok)
    count(c.acks, ok && isAck)
    count(c.nacks, ok && kind === WindowEvent.NACK)
    count(c.timeouts, ok && kind === WindowEvent.TIMEOUT)
    count(c.inits, ok && isInit)
    count(c.outOfRange, valid && !inRange)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(busif, s"${spec.definitionName}_regs", spec.busName)
  def registerBus: BusIf = busif
  def registerPrefix: String = spec.busName
}

/**
 * A per-flow value in block RAM updated by a read-modify-write loop of `length` clocks (4 or
 * more), S1 at stage `s1` of the unit's pipeline: KeyedStateLoop (its contract) read at S1 - 2,
 * the value at S1, the new value written in W = S1 + length (its loop is length + 2 stages). The
 * unit's stage 0 keeps same-flow events `sameFlowSpacing` (>= `length`) clocks apart, so at most
 * one update in flight matches: in W at S1 only at `length`, in W when the data comes only at
 * `length` + 1 or less. The unit's main state is one; a law may keep another loop of its own at an
 * earlier stage (its result then reaches the main loop as a value of the event). The post-reset
 * sweep writes `init` to every flow.
 */
class FlowStateLoop[T <: Data](unit: WindowUnit[_, _, _], t: HardType[T], s1: Int, length: Int = 4)
  extends KeyedStateLoop[T](t, unit.spec.ramWords, unit.spec.flowAddrWidth, length + 2, unit.spec.sameFlowSpacing, unit.sweep,
    key = unit.carry(unit.stage1.addr, s1 - 2),
    twoBeforeW = {
      val w2 = s1 + length - 2  // two stages before W
      val a = unit.carry(unit.stage1.addr, w2)
      KeyedOp(unit.stageValid(w2) && unit.carry(unit.stage1.inRange, w2), a)
    }) {
  import unit.{carry, stage1, stageValid}
  private val READ = s1 - 2
  private val LAST = s1 + length - 1   // the loop's last stage; W is the next
  require(length >= 4, s"a state loop of $length clocks: the forwarding needs four or more")
  require(READ >= 1 && LAST <= unit.Stage.S4, s"a state loop at stage $s1 does not fit the unit's stages")

  /** Drives W from the loop's new value at its last stage; the sweep writes `init`. */
  def write(next: T, init: T): Unit =
    write(stageValid(LAST) && carry(stage1.inRange, LAST), carry(stage1.addr, LAST), next, init)
}
