// SPDX-License-Identifier: Apache-2.0
package uehw.hw.dart

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._
import uehw.hw.common._

/**
 * One call of the receiver's DASR unit: a data packet, or one sender named by a look-ahead
 * notification (dart.txt Sec. III-D), which takes one event per sender.
 */
case class DasrEvent() extends Bundle {
  /** 0: a data packet; 1: one sender of a look-ahead notification. */
  val lookAhead = Bool()
  /** The sender's id; ids at or above 2^senderIdBits are out of range (counted, the set ignores them). */
  val sender = UInt(32 bits)
  /** Packet: the first of its message. Look-ahead: the first sender of the notification. */
  val first = Bool()
  /** Packet: the last of its message. */
  val last = Bool()
  /** Packet: its message was announced by a look-ahead (its first packet does not count it again). */
  val announced = Bool()
  /** Packet: its ECN mark (CE). */
  val ecn = Bool()
  /** Packet: bytes received. */
  val bytes = UInt(16 bits)
  /** Look-ahead: the incast group the notification names. */
  val group = UInt(DartDasr.groupBits bits)
}

/** What a data packet's ACK carries (dart.txt Sec. III-C). */
case class DasrReply() extends Bundle {
  /** The number of active senders n (1 in Non-Receiver Congestion), at least 1, saturating at 65535. */
  val n = UInt(DartDasr.nBits bits)
  /** The packet's ECN echo may pass (not in Receiver Congestion). */
  val ecnPass = Bool()
  /** Fig. 5: 0 No Congestion, 1 Receiver Congestion, 2 Non-Receiver Congestion. */
  val state = UInt(2 bits)
}

class DartDasrIo(cfg: DartDasrConfig) extends Bundle {
  val event = slave(Stream(DasrEvent()))
  /** Free-running time in ns (modulo 2^32); sampled when an event is accepted. */
  val now = in(UInt(DartDasr.timeBits bits))
  /** One reply per data packet, `DartDasr.latency` clocks after it was accepted, in order. */
  val reply = master(Flow(DasrReply()))
  val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  /** Low while the free list is filled after reset (capacity / 2 clocks); events wait. */
  val initDone = out(Bool())
}

object DartDasr {
  val timeBits = 32
  val groupBits = 16
  val groupsRemembered = 16
  val nBits = 16
  /** Clock edges from an event's acceptance to its reply on `reply` (taken at edge t, sampled at edge t + 5). */
  val latency = 5
  object State { val NO_CONGESTION = 0; val RECEIVER_CONGESTION = 1; val NON_RECEIVER_CONGESTION = 2 }
}

/**
 * Dart's receiver half, direct apportioning of sending rates (dart.txt Sec. III-A..D, Fig. 4 and
 * 5), one event per clock: the active unique sender set (AUSS) in block RAM, its soft state, the
 * look-ahead, the congestion state machine and the n each ACK carries. The rules are
 * uehw.model.dart.DasrModel's, bit for bit.
 *
 * The set: a sender-to-slot table (2^senderIdBits entries, a hint: a slot counts for a sender only
 * while occupied and owned by it), S slots (owner, messages, announced; last packet time), the
 * occupied and queued flags of each slot in flip-flops, and a free list of slots. Stages: accept
 * (table read), H (slot and time reads, slot k's flags), R (owner compare, idle tests, the entry
 * forwarded from the two events before), X (the rules; free list, window, state machine, group
 * memory), W (RAM writes, flags, counts, counters), V (the reply). What a read cannot see yet is
 * forwarded from the results of the events before it (W, W1) and corrected in X for the one
 * just before.
 */
class DartDasr(val cfg: DartDasrConfig) extends Component with RegisterDocs {
  val io = new DartDasrIo(cfg)
  setDefinitionName("uehw_dart_dasr")
  AxiLite4SpecRenamer(io.ctrl)

  import DartDasr.{timeBits => T, nBits}
  private val S = cfg.capacity
  private val SB = cfg.slotBits
  private val MB = cfg.messageBits
  private val ID = cfg.senderIdBits
  private val maxMessages = U(cfg.maxMessages, MB bits)

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    // INFO (0x00) and VERSION (0xFC) from the shared prologue (CsrBank): the block id, then the
    // sender id bits, log2(capacity) and the message count bits as INFO's fields. This block's
    // registers follow at fixed addresses.
    val busif = CsrBank(io.ctrl, "DASR", 0x41, "Block id 0x41 ('A', apportioning)",
      InfoField("SENDER_ID_BITS", 8, ID, "Sender id bits"),
      InfoField("SLOT_BITS", 8, SB, "log2(capacity)"),
      InfoField("MESSAGE_BITS", 8, MB, "Message count bits"))
    private def reg(name: String, address: Int, doc: String) = CsrBank.reg(busif, name, address, doc)
    private def value[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, unit: String): T =
      reg(name, address, doc).field(t(), AccessType.RW, reset, doc = unit)(SymbolName("VALUE"))
    private def status[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T]): T =
      reg(name, address, doc).field(t(), AccessType.RO, doc = doc)(SymbolName("VALUE"))

    RegisterDocs.constField(reg("CAPACITY", 0x04, "S, senders the set holds (read-only)"), Bits(13 bits), BigInt(S), "Slots", "VALUE")
    val idleTimeout = value("IDLE_TIMEOUT", 0x08, "A sender idle longer than this is evicted (Sec. III-B: about 2 s)", UInt(32 bits),
      cfg.idleTimeoutNs, "ns")
    val window = value("WINDOW", 0x0C, "The receive throughput is measured over windows this long (Fig. 5)", UInt(31 bits),
      cfg.windowNs, "ns")
    val lineRateBytes = value("LINE_RATE_BYTES", 0x10, "A window with at least this many bytes is at line rate (Fig. 5)",
      UInt(32 bits), cfg.lineRateBytes, "Bytes")
    private val statusReg = reg("STATUS", 0x14, "Status")
    val statusInitDone = statusReg.field(Bool(), AccessType.RO, doc = "The free list is filled")(SymbolName("INIT_DONE"))
    val statusState = statusReg.field(UInt(2 bits), AccessType.RO,
      doc = "Fig. 5 state: 0 No Congestion, 1 Receiver Congestion, 2 Non-Receiver Congestion")(SymbolName("STATE"))
    val members = status("MEMBERS", 0x18, "|AUSS|: senders in the set", UInt(SB + 1 bits))
    val overflow = status("OVERFLOW", 0x1C, "Senders that found the set full and have not ended (in n)", UInt(nBits bits))
    val free = status("FREE", 0x20, "Slots in the free list", UInt(SB + 1 bits))

    private val counters = new CsrCounters(busif, 0x40)
    import counters.counter
    val PACKETS = counter("Data packet events")
    val LOOK_AHEAD_ENTRIES = counter("Look-ahead events (one per sender named)")
    val ADDS = counter("Senders added to the set (Fig. 4)")
    val REMOVES = counter("Senders that left the set when their last message ended (Fig. 4)")
    val EVICTIONS = counter("Senders evicted after IDLE_TIMEOUT without a packet (Sec. III-B soft state)")
    val OVERFLOWED = counter("Message starts of a new sender that found the set full (counted in n as OVERFLOW)")
    val LOOK_AHEAD_ADDS = counter("Message starts made by a look-ahead (Sec. III-D)")
    val LOOK_AHEAD_SKIPPED = counter("Look-ahead events of a group seen lately, or before any first of a notification")
    val STATE_CHANGES = counter("Fig. 5 state changes")
    val ENDS_WITHOUT_START = counter("Last packets of a sender neither in the set nor in OVERFLOW")
    val MESSAGE_COUNT_SATURATED = counter("Starts (or look-ahead announcements) of a sender whose count is at its maximum")
    val SENDER_OUT_OF_RANGE = counter("Events whose sender id is at or above 2^SENDER_ID_BITS (ignored by the set)")
  }

  /** One slot: its owner, messages in flight, messages announced whose first packet has not come. */
  case class SlotEntry() extends Bundle {
    val owner = UInt(ID bits)
    val messages = UInt(MB bits)
    val announced = UInt(MB bits)
  }

  /** A slot's counts. */
  case class Counts() extends Bundle {
    val messages = UInt(MB bits)
    val announced = UInt(MB bits)
  }

  /** What one event did to the set: the X stage's result, kept for forwarding (W, and W1 a clock later). */
  case class Result() extends Bundle {
    val valid = Bool()
    val inRange = Bool()
    val id = UInt(ID bits)
    val now = UInt(T bits)
    val hasSlot = Bool()       // its sender held slot `slot` after the start (the slot RAM is written)
    val slot = UInt(SB bits)
    val counts = KnownCounts()
    val memberAfter = Bool()   // its sender is in the set after the event
    val added = Bool()         // the sender took `slot` from the free list (the table is written)
    val lastWrite = Bool()     // the slot's last packet time is `now`
    val k = UInt(SB bits)      // the sweep's slot
    val evicted = Bool()
    val pushed = Bool()        // k went to the free list, at position pushPos
    val pushPos = UInt(SB bits)
    val groupRemembered = Bool() // a look-ahead of a new group: remembered (the oldest of 16 dropped)
  }

  /**
   * What W reports: the flag updates, the reply's kind and the counted conditions. The flag
   * updates are kept apart from the Result the next event reads in X (they are not qualified by
   * valid, and their slots are 0 when unused), so that the synthesis keeps them as registers of
   * their own: the S flags they drive do not load the X stage's paths.
   */
  case class Report() extends Bundle {
    val isPacket = Bool()
    val added = Bool()
    val evicted = Bool()
    val pushed = Bool()
    val flagSlot = UInt(SB bits)  // the slot taken (added) or left (removed)
    val flagK = UInt(SB bits)     // the sweep's slot when it evicted or pushed
    val removed = Bool()
    val overflowStart = Bool()
    val lookAheadAdd = Bool()
    val lookAheadSkip = Bool()
    val stateChanges = UInt(2 bits)
    val endNonMember = Bool()  // a last packet of a sender not in the set (OVERFLOW, or counted)
    val messageSaturated = Bool()
    val announcedSaturated = Bool()
    val outOfRange = Bool()
    val state = UInt(2 bits)   // Fig. 5 state after the event
  }

  // ------------------------------------------------------------- memories and flags
  val indexRam = Mem(UInt(SB bits), 1 << ID)   // sender -> the slot it was last given (a hint)
  val slotRam = Mem(SlotEntry(), S)
  val timeRam = Mem(UInt(T bits), S)           // last packet time per slot
  val freeRam = Seq.fill(2)(Mem(UInt(SB bits), S / 2)) // the free list, even and odd positions
  val occupied = Vec.fill(S)(RegInit(False))
  val queued = Vec.fill(S)(RegInit(True))      // in the free list (all slots after reset)
  /** The look-ahead groups remembered (Sec. III-D), newest first: updated in X, compared in R. */
  val groups = Vec.fill(DartDasr.groupsRemembered)(Reg(UInt(DartDasr.groupBits bits)))
  val groupValid = Vec.fill(DartDasr.groupsRemembered)(RegInit(False))

  /** After reset: the free list gets 0..S-1 (two a clock), events wait. */
  val init = new ResetSweep(S / 2, SB - 1)
  io.initDone := !init.active
  csr.statusInitDone := !init.active

  /** The X stage's result; every flag is already qualified by valid. */
  val w = Reg(Result())
  for (flag <- Seq(w.valid, w.inRange, w.hasSlot, w.memberAfter, w.added, w.lastWrite, w.evicted, w.pushed, w.groupRemembered))
    flag init (False)
  val report = Reg(Report())
  /** The event before W: what the RAM reads and the flags may not see yet. */
  val w1 = new Area {
    val inRange = RegNext(w.inRange) init (False); val id = RegNext(w.id); val now = RegNext(w.now)
    val hasSlot = RegNext(w.hasSlot) init (False); val slot = RegNext(w.slot); val counts = RegNext(w.counts.values)
    val memberAfter = RegNext(w.memberAfter); val lastWrite = RegNext(w.lastWrite) init (False)
    val added = RegNext(w.added) init (False)
    val pushed = RegNext(w.pushed) init (False); val k = RegNext(w.k)
  }

  /**
   * A count with what the rules ask of it and the count one up and one down. X finds one for every
   * value a count can take next, side by side, and picks: the loop through one sender's counts
   * (back-to-back events of a sender) is then a pick, not an add then the rules (1 CARRY4 + 8 LUT,
   * 3.9 ns).
   */
  case class Count() extends Bundle {
    val value = UInt(MB bits); val up = UInt(MB bits); val down = UInt(MB bits)
    val isOne = Bool(); val nonZero = Bool(); val full = Bool()
  }
  /** A slot's two counts, each with its facts. */
  case class KnownCounts() extends Bundle {
    val messages = Count(); val announced = Count()
    def values: Counts = { val c = Counts(); c.messages := messages.value; c.announced := announced.value; c }
  }
  private def countWith(v: UInt, up: UInt, down: UInt): Count = {
    val c = Count()
    c.value := v; c.up := up; c.down := down
    c.isOne := v === 1; c.nonZero := v =/= 0; c.full := v === maxMessages
    c
  }
  private def countOf(v: UInt): Count = countWith(v, v + 1, v - 1)
  private def known(c: Counts): KnownCounts = {
    val k = KnownCounts()
    k.messages := countOf(c.messages); k.announced := countOf(c.announced)
    k
  }
  /** The count one up and one down, from its known up and down (one more add each). */
  private def oneUp(c: Count): Count = countWith(c.up, c.up + 1, c.value)
  private def oneDown(c: Count): Count = countWith(c.down, c.value, c.down - 1)
  private def constantCount(v: Int): Count = countOf(U(v, MB bits))

  // Kept(b) (uehw.hw.common.Kept): a wire ABC keeps (a LUT output of its own).

  /**
   * flags(index) as a tree of kept 4:1 multiplexers, one LUT6 each: log4(S) LUTs deep. Left alone,
   * ABC9 builds the 1-of-S pick as a chain (9 LUTs at S = 256).
   */
  private def pick(flags: Seq[Bool], index: UInt): Bool =
    if (flags.size == 1) flags.head
    else {
      val w = if (flags.size >= 4) 2 else 1
      val next = flags.grouped(1 << w).map(g => Kept(Vec(g).read(index(w - 1 downto 0)))).toSeq
      if (next.size == 1) next.head else pick(next, index(index.getWidth - 1 downto w))
    }

  /**
   * a === b in two LUT levels: kept compares of three bit pairs, then their AND (one LUT up to 18
   * bits). For a compare on a block RAM's output, whose lateness ABC9 does not see.
   */
  private def equalsInTwoLevels(a: UInt, b: UInt): Bool = {
    val pairs = a.asBits.subdivideIn(3 bits, strict = false).zip(b.asBits.subdivideIn(3 bits, strict = false))
    Kept(pairs.map { case (x, y) => Kept(x === y) }.reduce(_ && _))
  }

  /** X's rules on the sweep's slot and the sender, for one value of W's added flag. */
  case class SweepRules() extends Bundle {
    val evict = Bool(); val push = Bool(); val member = Bool(); val emptyNoPush = Bool(); val add = Bool()
  }

  /** An event's fields but its sender (R and X carry the id and whether it is in range instead). */
  case class Fields() extends Bundle {
    val lookAhead = Bool(); val first = Bool(); val last = Bool(); val announced = Bool(); val ecn = Bool()
    val bytes = UInt(16 bits)
    val group = UInt(DartDasr.groupBits bits)
  }
  private def withoutSender(e: DasrEvent): Fields = {
    val f = Fields()
    f.lookAhead := e.lookAhead; f.first := e.first; f.last := e.last; f.announced := e.announced; f.ecn := e.ecn
    f.bytes := e.bytes; f.group := e.group
    f
  }

  private def idOf(sender: UInt): UInt = sender(ID - 1 downto 0)
  private def inRangeOf(sender: UInt): Bool = sender(31 downto ID) === 0
  private def sameSender(inRange: Bool, rid: UInt, id: UInt): Bool = inRange && rid === id
  private def held(hasSlot: Bool, slot: UInt, s: UInt): Bool = hasSlot && slot === s

  // Where the events before are when an event reaches each stage (all stages move every clock):
  //   at H: the one before in R, then X, W, W1;  at R: X, W, W1;  at X: W, W1.
  // The table read (accept) sees writes of the events 5 and more before; the slot and time reads
  // (H) of those 4 and more before; the occupied and queued flags read in H of those 4 and more,
  // read in R of those 3 and more.

  // ---------------------------------------------------------------- accept
  val accept = new Area {
    val ready = RegNext(!init.active) init (False)
    io.event.ready := ready
    val fire = io.event.fire
    val sweep = Reg(UInt(SB bits)) init (0)   // the slot the sweep looks at for this event
    when(fire) { sweep := sweep + 1 }
    val hintRead = indexRam.readSync(idOf(io.event.sender), fire)
  }

  /** H: the hint (the event 4 before, now in W1, may have written it), the slot and time reads. */
  val h = new Area {
    val valid = RegNext(accept.fire) init (False)
    val e = RegNextWhen(io.event.payload, accept.fire)
    val now = RegNextWhen(io.now, accept.fire)
    val k = RegNextWhen(accept.sweep, accept.fire)
    val id = idOf(e.sender)
    val inRange = inRangeOf(e.sender)
    val hint = Mux(sameSender(w1.inRange, w1.id, id) && w1.hasSlot, w1.slot, accept.hintRead)
    val slotRead = slotRam.readSync(hint)
    val timeRead = timeRam.readSync(k)
    // slot k's flags as the events 4 and more before left them (R adds the next two)
    val kOccupied = RegNext(pick(occupied.toSeq, k))
    val kQueued = RegNext(pick(queued.toSeq, k))
    // the sender against those of the events now in R, X and W (in X, W and W1 when this one is in R)
    val sameAsR = Bool()
    val sameAsX = Bool()
    val sameAsW = RegNext(sameSender(w.inRange, w.id, id))
    // The look-ahead's group against the groups as the events 3 and more before left them (R
    // shifts them when the event ahead, then in X, remembered its group).
    val groupHits = RegNext(Vec(groups.zip(groupValid).map { case (g, v) => v && g === e.group }))
  }

  /**
   * R: the reads registered into X with all that can be told before X: the sender's entry as the
   * events 2 and more before left it (from W, W1 or the read), slot k's flags and idle test as they
   * left them, and the compares against the event now in X (W in X), whose own result comes in X.
   */
  /** X's window start and end (the start plus the WINDOW R sampled for the event in X), read by R's window tests. */
  private val windowStartForR = UInt(T bits)
  private val windowEndForR = UInt(T bits)

  val r = new Area {
    val valid = RegNext(h.valid) init (False)
    val e = RegNext(withoutSender(h.e))   // the event without its sender (id and inRange below)
    val now = RegNext(h.now)
    val k = RegNext(h.k)
    val id = RegNext(h.id)
    val inRange = RegNext(h.inRange)
    val hint = RegNext(h.hint)
    // the event now in X: its sender, sweep slot, time, group, and the slot it keeps or takes
    val xK = UInt(SB bits); val xNow = UInt(T bits); val xGroup = UInt(DartDasr.groupBits bits)
    val xSlot0 = UInt(SB bits)
    // the slot the event in X takes (if it adds) against the hint and k: compared in X on each
    // candidate of the free list's head, then picked (a pick then a compare was 8 LUTs, 3.9 ns)
    val hintIsXTaken = Bool(); val kIsXTaken = Bool()
    h.sameAsR := RegNext(valid && inRange && id === h.id)
    val fromX = h.sameAsR && inRange
    private def idle(last: UInt) = (now - last) > csr.idleTimeout

    // The entry if the sender is not the one in X: from W (the newest), W1, or the read (the events
    // 4 and more before), with what W and W1 did to the slot since (the flags are read as the
    // events 3 and more before left them).
    private val fromW = h.sameAsX
    private val fromW1 = !fromW && h.sameAsW
    val fromRead = !fromW && !fromW1
    private val hintOccupied = pick(occupied.toSeq, hint)
    // The read's owner compare comes last, in two kept LUT levels on the block RAM's output, and
    // meets the rest (from registers) in one LUT: ABC9 built 5 levels after the RAM (3.7 ns).
    private val ownerIsId = equalsInTwoLevels(h.slotRead.owner, id)
    private val memberUnlessRead = Kept(inRange && Mux(fromW, w.memberAfter,
      fromW1 && w1.memberAfter && !(w.evicted && w.k === w1.slot)))
    private val memberIfOwnerRead = Kept(inRange && fromRead && !held(w.hasSlot, w.slot, hint) &&
      !held(w1.hasSlot, w1.slot, hint) && !(w.evicted && w.k === hint))
    // The sender is a member as the events before the one in X left it: X takes out what that
    // event did (its sweep's eviction, its add), choosing between the two made here.
    // (each of the two is one LUT after the owner compare)
    private val readIfXKeeps = Kept(memberIfOwnerRead && hintOccupied)
    val memberIfXKeeps = memberUnlessRead || (readIfXKeeps && ownerIsId)
    val memberIfXEvicts = Bool()
    val otherSlot = Mux(fromW, w.slot, Mux(fromW1, w1.slot, hint))
    private val readCounts = Counts()
    readCounts.messages := h.slotRead.messages
    readCounts.announced := h.slotRead.announced
    val otherCounts = known(Mux(fromW, w.counts.values, Mux(fromW1, w1.counts, readCounts)))
    // the compares of each source's slot side by side, then the pick
    private def ofSource(f: UInt => Bool) = Mux(fromW, f(w.slot), Mux(fromW1, f(w1.slot), f(hint)))
    val otherSlotIsK = ofSource(_ === k)
    private val otherSlotIsXK = ofSource(_ === xK)    // evicted by the event in X if it evicts
    memberIfXEvicts := Kept(memberUnlessRead && !otherSlotIsXK) || (Kept(readIfXKeeps && !otherSlotIsXK) && ownerIsId)
    val hintIsXSlot0 = xSlot0 === hint  // held by the event in X

    // Slot k for the sweep, as the events before the one in X left it.
    val kOccupied = Mux(held(w.hasSlot, w.slot, k), w.memberAfter, Mux(held(w1.hasSlot, w1.slot, k), w1.memberAfter, h.kOccupied))
    val kQueued = h.kQueued && !(w.added && w.slot === k) && !(w1.added && w1.slot === k)
    val kIsXSlot0 = xSlot0 === k
    val kIdleX = idle(xNow)                   // if the event in X wrote slot k's time
    val kIdle = Mux(w.lastWrite && w.slot === k, idle(w.now), Mux(w1.lastWrite && w1.slot === k, idle(w1.now), idle(h.timeRead)))

    // The look-ahead's group against the groups remembered (as the events 2 and more before left
    // them): H's compares (an OR of 15 compares here was 8 LUTs, 3.7 ns), shifted when the event now
    // in W remembered its group in X, which H compared too.
    private val groupIsXInH = RegNext(xGroup === h.e.group)
    private val shifted = w.groupRemembered
    private val groupHits = Mux(shifted, Vec(groupIsXInH +: h.groupHits.dropRight(1)), h.groupHits)
    private val groupSeenNewest = groupHits.dropRight(1).orR
    private val groupSeenOldest = groupHits.last
    private val groupIsX = xGroup === e.group
    // not seen, whether or not the event in X remembers its group (the oldest then drops out)
    val groupNewIfXRemembers = !groupSeenNewest && !groupIsX
    val groupNewIfXKeeps = !groupSeenNewest && !groupSeenOldest
    val lookAheadInRange = e.lookAhead && inRange

    // Fig. 5's window tests a clock early, on each window start the event in X may leave: the one
    // it keeps, the next one (it closes its window) or its own time (it skips). X picks with what
    // that event did (the subtract and compare chains and the state's pick in one clock were the
    // block's critical path, 3.9 ns). WINDOW is sampled here, and X's update uses the same value.
    val window = csr.window
    private def tests(elapsed: UInt): Vec[Bool] = Vec(elapsed >= window, elapsed >= (window @@ U(0, 1 bits)))
    val windowIfKept = tests(now - windowStartForR)
    val windowIfClosed = tests(now - windowEndForR)   // the start X's event moves on by its WINDOW
    val windowIfSkipped = tests(now - xNow)
  }

  /** X: the event applied (the model's order: window, sweep, the event). */
  val x = new Area {
    val valid = RegNext(r.valid) init (False)
    val e = RegNext(r.e)
    val now = RegNext(r.now)
    val k = RegNext(r.k)
    val id = RegNext(r.id)
    val inRange = RegNext(r.inRange)
    val isPacket = !e.lookAhead
    h.sameAsX := RegNext(valid && inRange && id === h.id)
    r.xK := k
    r.xNow := now
    r.xGroup := e.group
    private def q[T <: Data](v: T): T = RegNext(v)

    // The sender's entry: W's when the sender is W's, else the one R found, less what W did to its slot.
    private val fromW = q(r.fromX)
    val slot0 = Mux(fromW, w.slot, q(r.otherSlot))
    // the counts and their facts: W's kept with its result, the other source's found in R
    private val counts0 = Mux(fromW, w.counts, q(r.otherCounts))

    // The free list: the head at rd, from W or W1 when they pushed it and the RAM read cannot see it yet.
    // The head, whether the list is empty and its length (FREE) are kept as the events before
    // the one in W left them; W's added and pushed flags apply when they are read. Updated in X, after
    // the add, they were its critical path (a clock enable, or 2 LUTs, after the add: 3.7 to 4.3 ns).
    private val rdBefore = Reg(UInt(SB bits)) init (0)
    private val rdBeforeNext = Reg(UInt(SB bits)) init (1)
    val rd = Mux(w.added, rdBeforeNext, rdBefore)
    private val rdNext = Mux(w.added, rdBeforeNext + 1, rdBeforeNext)
    rdBefore := rd
    rdBeforeNext := rdNext
    val wr = Reg(UInt(SB bits)) init (0)
    val freeLength = Reg(UInt(SB + 1 bits)) init (S)
    when(w.valid) { freeLength := freeLength + report.pushed.asUInt - report.added.asUInt }
    private val freeEmptyBefore = RegInit(False)
    private val freeIsOneBefore = RegInit(Bool(S == 1))
    val freeEmpty = Mux(w.pushed && !w.added, False, Mux(w.added && !w.pushed, freeIsOneBefore, freeEmptyBefore))
    freeEmptyBefore := freeEmpty
    // whether the list holds one slot (it empties if this event takes it and pushes none)
    freeIsOneBefore := Mux(w.pushed === w.added, freeLength === 1, Mux(w.pushed, freeLength === 0, freeLength === 2))
    // Both banks read each clock, at rd and rd + 1 (one even, one odd): the head is ready whether
    // or not the event in X takes one (rd goes up at most one a clock).
    private val pair = rd(SB - 1 downto 1)
    private val banks = Seq(freeRam(0).readSync(pair + rd(0).asUInt), freeRam(1).readSync(pair))
    // W's and W1's push positions against the head, compared a clock early against both heads
    // the event before could leave (rd, or rd + 1 when it took one): the compares and the 4-way
    // pick of the head in one clock were 8 LUTs, 3.8 ns.
    private val headFromW = w.pushed && Mux(w.added, q(wr === rdNext), q(wr === rd))
    private val headFromW1 = w1.pushed && Mux(w.added, q(w.pushPos === rdNext), q(w.pushPos === rd))
    private def ofTaken[T <: Data](f: UInt => T): T =
      Mux(freeEmpty, f(k), Mux(headFromW, f(w.k), Mux(headFromW1, f(w1.k), Mux(rd(0), f(banks(1)), f(banks(0))))))
    val taken = ofTaken(v => v)   // an empty list gets this event's own k first
    r.xSlot0 := slot0
    r.kIsXTaken := ofTaken(_ === r.k)
    r.hintIsXTaken := ofTaken(_ === r.hint)

    // The look-ahead's groups (Sec. III-D): the last 16 remembered. Compared in R with the groups as
    // the events 2 and more before left them (updated in X); the event in W may have remembered one
    // more (its group first, the oldest dropped).
    val notificationCounts = RegInit(False)
    private val wRemembered = w.groupRemembered
    private val groupSeen = !Mux(wRemembered, q(r.groupNewIfXRemembers), q(r.groupNewIfXKeeps))
    private val notificationApplies = Mux(e.first, !groupSeen, notificationCounts)
    private val lookAheadApplies = q(r.lookAheadInRange) && notificationApplies

    // Fig. 4: start (first packet, or a look-ahead), then end (last packet). Members always have
    // at least one message in flight. What a member's entry becomes is found beside `member`, so
    // that the add picks between two ready values.
    private val startsNew = Mux(isPacket, inRange && e.first, lookAheadApplies)   // a start, if not a member
    private val messages0 = counts0.messages
    private val announced0 = counts0.announced
    private val announcedLeft = announced0.nonZero
    private val useAnnounced = isPacket && e.first && e.announced && announcedLeft       // if a member
    private val startsIfMember = Mux(isPacket, e.first && !(e.announced && announcedLeft), lookAheadApplies)
    private val messagesFull = messages0.full
    private val grows = startsIfMember && !messagesFull
    private val ends = isPacket && inRange && e.last
    private val memberLeaves = ends && messages0.isOne && !grows
    private val memberMessages = Mux(grows && !ends, oneUp(messages0), Mux(ends && !grows, oneDown(messages0), messages0))
    private val announcedFull = announced0.full
    private val memberAnnounced = Mux(useAnnounced, oneDown(announced0),
      Mux(lookAheadApplies && !announcedFull, oneUp(announced0), announced0))
    // The sweep's rules and the sender's membership, from W's flags: Shannon-expanded on W's added
    // flag (it picks which of R's compares of W's slot apply), each half from registers only, then
    // picked by it. As one cone ABC9 built the add 6 to 8 LUTs deep (3.6 to 4.0 ns to what follows).
    private val fromRead = q(r.fromRead)
    private val kIsXTaken = q(r.kIsXTaken); private val kIsXSlot0 = q(r.kIsXSlot0)
    private val hintIsXTaken = q(r.hintIsXTaken); private val hintIsXSlot0 = q(r.hintIsXSlot0)
    private val kOccupied = q(r.kOccupied); private val kQueued = q(r.kQueued)
    private val kIdle = q(r.kIdle); private val kIdleX = q(r.kIdleX)
    private val otherSlotIsK = q(r.otherSlotIsK)
    private val memberIfXKeeps = q(r.memberIfXKeeps); private val memberIfXEvicts = q(r.memberIfXEvicts)
    private def rulesIf(added: Boolean): SweepRules = {
      // W's slot against k and the hint: R compared both slots it could be (taken, or its own)
      val wSlotIsK = if (added) kIsXTaken else kIsXSlot0
      val wSlotIsHint = if (added) hintIsXTaken else hintIsXSlot0
      val rules = SweepRules()
      // the sweep (Sec. III-B soft state) on slot k
      val occupiedK = Mux(w.hasSlot && wSlotIsK, w.memberAfter, kOccupied)
      val queuedK = if (added) kQueued && !wSlotIsK else kQueued
      val idle = Mux(w.lastWrite && wSlotIsK, kIdleX, kIdle)
      rules.evict := occupiedK && idle
      rules.push := rules.evict || (!occupiedK && !queuedK)
      // the sender a member: W's answer, or R's less W's eviction and W's add of the slot read
      val slot0IsK = Mux(fromW, wSlotIsK, otherSlotIsK)
      val member0 = Mux(fromW, w.memberAfter,
        Mux(w.evicted, memberIfXEvicts, memberIfXKeeps) && !(fromRead && w.hasSlot && wSlotIsHint))
      rules.member := member0 && !(slot0IsK && idle)  // a member's own slot k is occupied: evicted when idle
      rules.emptyNoPush := freeEmpty && !rules.push   // the empty list gets this event's own k if it pushes
      rules.add := startsNew && !rules.member && !rules.emptyNoPush
      rules
    }
    private val rules = Mux(w.added, rulesIf(true), rulesIf(false))
    val evict = rules.evict
    val push = rules.push
    private val member = rules.member
    private val add = rules.add
    private val overflowStart = startsNew && !member && rules.emptyNoPush
    private val messageSaturated = member && startsIfMember && messagesFull
    private val announcedSaturated = member && lookAheadApplies && announcedFull  // an added one has 0
    // What the sender's entry becomes is picked by member, a level before add: add = !member and a
    // start with room, and a sender neither a member nor added holds no slot (hasSlot low), so its
    // slot and counts are read by no one. (Picked by add, the counts were 2 LUTs after it, 3.6 ns.)
    private val leave = Mux(member, memberLeaves, add && ends)
    private val memberAfterStart = member || add

    // Fig. 5 at the end of the throughput window; an empty window passed too ends any congestion.
    val state = Reg(UInt(2 bits)) init (DartDasr.State.NO_CONGESTION)
    val windowStart = Reg(UInt(T bits)) init (0)
    windowStartForR := windowStart
    // windowStart + the WINDOW R sampled for the event now in X, kept beside the start so that R's
    // test of a closed window is one subtract (no reset: made every clock from registers that have
    // one, it is right from the first clock after reset, long before the first event)
    private val windowEnd = Reg(UInt(T bits))
    windowEndForR := windowEnd
    val windowBytes = Reg(UInt(32 bits)) init (0)
    val windowEcn = RegInit(False)
    // What the event before (now in W) did to the window start: R's tests of that case apply.
    private val beforeClosed = RegInit(False)
    private val beforeSkipped = RegInit(False)
    private def picked(i: Int) = Mux(beforeSkipped, q(r.windowIfSkipped(i)), Mux(beforeClosed, q(r.windowIfClosed(i)), q(r.windowIfKept(i))))
    private val close = picked(0)   // now - windowStart >= WINDOW
    private val skip = picked(1)    // now - windowStart >= 2 x WINDOW
    private val closing = Mux(!windowEcn, U(DartDasr.State.NO_CONGESTION, 2 bits),
      Mux(windowBytes >= csr.lineRateBytes, U(DartDasr.State.RECEIVER_CONGESTION, 2 bits), U(DartDasr.State.NON_RECEIVER_CONGESTION, 2 bits)))
    private val changes = (close && closing =/= state).asUInt.resize(2) +
      (skip && closing =/= DartDasr.State.NO_CONGESTION).asUInt.resize(2)
    private val bytesBefore = Mux(close, U(0, 32 bits), windowBytes)
    private val bytesSum = bytesBefore.resize(33) + Mux(isPacket, e.bytes, U(0, 16 bits)).resize(33)

    when(valid) {
      wr := wr + push.asUInt
      when(e.lookAhead && e.first) {
        notificationCounts := !groupSeen
        when(!groupSeen) {
          groups(0) := e.group; groupValid(0) := True
          for (i <- 1 until groups.length) { groups(i) := groups(i - 1); groupValid(i) := groupValid(i - 1) }
        }
      }
      when(close) { state := closing }
      when(skip) { state := DartDasr.State.NO_CONGESTION }
      windowStart := Mux(skip, now, Mux(close, windowEnd, windowStart))
      windowBytes := Mux(bytesSum(32), U(0xFFFFFFFFL, 32 bits), bytesSum(31 downto 0))
      windowEcn := (windowEcn && !close) || (isPacket && e.ecn)
    }
    windowEnd := Mux(valid && skip, now + r.window, Mux(valid && close, windowEnd + r.window, windowStart + r.window))
    beforeClosed := valid && close && !skip
    beforeSkipped := valid && skip

    w.valid := valid
    w.inRange := valid && inRange
    w.id := id
    w.now := now
    w.hasSlot := valid && memberAfterStart
    w.slot := Mux(member, slot0, taken)
    w.counts.messages := Mux(member, memberMessages, Mux(ends, constantCount(0), constantCount(1)))
    w.counts.announced := Mux(member, memberAnnounced, Mux(lookAheadApplies, constantCount(1), constantCount(0)))
    w.memberAfter := valid && Mux(member, !memberLeaves, add && !ends)
    w.added := valid && add
    w.lastWrite := valid && memberAfterStart && Mux(isPacket, inRange, lookAheadApplies)
    w.k := k
    w.evicted := valid && evict
    w.pushed := valid && push
    w.pushPos := wr
    w.groupRemembered := valid && e.lookAhead && e.first && !groupSeen
    report.isPacket := isPacket
    report.added := add
    report.evicted := evict
    report.pushed := push
    // used only on an add (the slot taken) or a member's leave (its own slot): which of the two,
    // without the leave's test of the counts (a 9-LUT path through the forwarded counts, 3.9 ns)
    report.flagSlot := Mux(member, slot0, taken)
    report.flagK := Mux(evict || push, k, U(0, SB bits))
    report.removed := leave
    report.overflowStart := overflowStart
    report.endNonMember := ends && !memberAfterStart
    report.lookAheadAdd := lookAheadApplies
    report.lookAheadSkip := e.lookAhead && !notificationApplies
    report.stateChanges := changes
    report.messageSaturated := messageSaturated
    report.announcedSaturated := announcedSaturated
    report.outOfRange := !inRange && (isPacket || notificationApplies)
    report.state := Mux(skip, U(DartDasr.State.NO_CONGESTION, 2 bits), Mux(close, closing, state))
  }

  // ---------------------------------------------------------------- W: writes, flags, counts, reply
  val write = new Area {
    indexRam.write(w.id, w.slot, w.added)
    private val entry = SlotEntry()
    entry.owner := w.id
    entry.messages := w.counts.messages.value
    entry.announced := w.counts.announced.value
    slotRam.write(w.slot, entry, w.hasSlot)
    timeRam.write(w.slot, w.now, w.lastWrite)
    for (b <- 0 until 2) {
      val pos = w.pushPos
      freeRam(b).write(Mux(init.active, init.addr, pos(SB - 1 downto 1)),
        Mux(init.active, (init.addr.resize(SB) |<< 1) | U(b, SB bits), w.k),
        init.active || (w.pushed && pos(0) === Bool(b == 1)))
    }
    // the sweep's push, then the event's pop and flags (a leave after an add of the same slot wins)
    when(w.valid) {
      when(report.pushed) { queued(report.flagK) := True }
      when(report.evicted) { occupied(report.flagK) := False }
      when(report.added) { occupied(report.flagSlot) := True; queued(report.flagSlot) := False }
      when(report.removed) { occupied(report.flagSlot) := False }
    }
  }

  /** |AUSS| and the senders that found the set full, updated by the event in W. */
  val tally = new Area {
    val members = Reg(UInt(SB + 1 bits)) init (0)
    val overflow = Reg(UInt(nBits bits)) init (0)
    // a start of a sender that found the set full counts it (saturating); a last packet of a sender
    // not in the set takes one off, or is counted as an end without a start (both: no change)
    private val start = report.overflowStart
    private val end = report.endNonMember
    private val overflowZero = overflow === 0
    val endWithoutStart = end && !start && overflowZero
    when(w.valid) {
      members := members + report.added.asUInt - report.removed.asUInt - report.evicted.asUInt
      when(start && !end && overflow =/= (1 << nBits) - 1) { overflow := overflow + 1 }
      when(end && !start && !overflowZero) { overflow := overflow - 1 }
    }
  }

  /** V: the reply, from the counts and the state the event in W left (n = |AUSS| + OVERFLOW, at least 1). */
  val replyOut = new Area {
    val valid = RegNext(w.valid && report.isPacket) init (False)
    val state = RegNext(report.state)
    private val active = tally.members.resize(nBits + 1) + tally.overflow.resize(nBits + 1)
    private val n = Mux(active === 0, U(1, nBits bits), Mux(active(nBits), U((1 << nBits) - 1, nBits bits), active(nBits - 1 downto 0)))
    io.reply.valid := valid
    io.reply.n := Mux(state === DartDasr.State.NON_RECEIVER_CONGESTION, U(1, nBits bits), n)
    io.reply.ecnPass := state =/= DartDasr.State.RECEIVER_CONGESTION
    io.reply.state := state
  }

  csr.statusState := x.state
  csr.members := tally.members
  csr.overflow := tally.overflow
  csr.free := x.freeLength

  val stats = new Area {
    import CsrCounters.{add, count}
    private val ok = w.valid
    count(csr.PACKETS, ok && report.isPacket)
    count(csr.LOOK_AHEAD_ENTRIES, ok && !report.isPacket)
    count(csr.ADDS, ok && report.added)
    count(csr.REMOVES, ok && report.removed)
    count(csr.EVICTIONS, ok && report.evicted)
    count(csr.OVERFLOWED, ok && report.overflowStart)
    count(csr.LOOK_AHEAD_ADDS, ok && report.lookAheadAdd)
    count(csr.LOOK_AHEAD_SKIPPED, ok && report.lookAheadSkip)
    when(ok) { add(csr.STATE_CHANGES, report.stateChanges) }
    count(csr.ENDS_WITHOUT_START, ok && tally.endWithoutStart)
    when(ok) { add(csr.MESSAGE_COUNT_SATURATED, report.messageSaturated.asUInt.resize(2) + report.announcedSaturated.asUInt.resize(2)) }
    count(csr.SENDER_OUT_OF_RANGE, ok && report.outOfRange)
  }

  def emitRegisterDocs(): Unit = RegisterDocs.emit(csr.busif, "uehw_dart_dasr_regs", "DASR")
  def registerBus: BusIf = csr.busif
  def registerPrefix: String = "DASR"
}
