// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import uehw.hw.common.{Kept, ParamCheck}

/**
 * The NIC engine's grant picker (docs/nic-engine.md, "Picking the next flow").
 *
 * @param flows       flows, a multiple of 32 in 64..4096 (2 to 128 words of 32 eligibility bits)
 * @param updatePorts ports that set or clear a flow's eligibility at the same edge
 * @param depth       word snapshots queued (the round's look-ahead)
 */
case class NicCcPickerConfig(flows: Int = 1024, updatePorts: Int = 2, depth: Int = 5) {
  ParamCheck(flows >= 64 && flows <= 4096 && flows % 32 == 0, "flows", s"$flows must be a multiple of 32 in 64..4096")
  ParamCheck(updatePorts >= 1 && updatePorts <= 4, "update-ports", s"$updatePorts is outside 1..4")
  ParamCheck(depth >= 3 && depth <= 9, "depth", s"$depth is outside 3..9")
  val words: Int = flows / 32
  val flowIdWidth: Int = log2Up(flows)
  val wordIdWidth: Int = log2Up(words)
}

case class NicCcPickerUpdate() extends Bundle {
  val eligible = Bool()
}

class NicCcPickerIo(cfg: NicCcPickerConfig) extends Bundle {
  /**
   * Set (eligible) or clear the bit of the flow `updateFlows` showed at the edge before; a later
   * port wins over an earlier one on the same flow.
   */
  val updates = Vec(slave(Flow(NicCcPickerUpdate())), cfg.updatePorts)
  /**
   * Each port's flow, sampled one edge before its update: the picker compares its word with the
   * word each snapshot will hold at the update's edge, and registers the result, so a clear reaches
   * the head in two LUT levels (the engine's checks know the flow a stage before the decision).
   */
  val updateFlows = Vec(in(UInt(cfg.flowIdWidth bits)), cfg.updatePorts)
  /**
   * Each port's clear: high exactly when its update is valid and not eligible, from a register of
   * the source (the engine's checks decide it a stage before), so a clear starts at a flip-flop.
   */
  val updateClears = Vec(in(Bool()), cfg.updatePorts)
  /** The offered flow: taken at an edge with ready high (valid and payload as that edge samples them). */
  val grant = master(Stream(UInt(cfg.flowIdWidth bits)))
}

object NicCcPicker {
  /**
   * The bits below each bit of x that are set (prefix ORs): an OR of six-bit groups, each kept as
   * a LUT of its own, and the bits below it in its group (two LUT levels, no chain, no carry).
   */
  def below(x: Bits): Bits = {
    val n = x.getWidth
    val groupAny = (0 until n by 6).map(g => Kept(x(scala.math.min(n, g + 6) - 1 downto g).orR))
    val b = Bits(n bits)
    for (i <- 0 until n) {
      val g = i / 6
      val inGroup = (g * 6 until i).map(x(_))
      val terms = groupAny.take(g) ++ inGroup
      b(i) := (if (terms.isEmpty) False else terms.reduce(_ || _))
    }
    b
  }
  /** The lowest set bit of x as a one-hot. */
  def lowestOne(x: Bits): Bits = x & ~below(x)
  /** Two or more bits of x are set: in groups of four, two in one group or two groups with one (LUT trees). */
  def moreThanOne(x: Bits): Bool = {
    val groups = x.subdivideIn(4 bits, strict = false)
    val any = groups.map(_.orR)
    val two = groups.map(g => CountOne(g) >= 2)
    val anyPairs = for (i <- any.indices; j <- i + 1 until any.size) yield any(i) && any(j)
    (two ++ anyPairs).reduce(_ || _)
  }
  /** Three or more bits of x are set (in groups of four, LUT trees). */
  def atLeastThree(x: Bits): Bool = {
    val counts = x.subdivideIn(4 bits, strict = false).map(g => CountOne(g))
    val one = counts.map(_ >= 1)
    val two = counts.map(_ >= 2)
    val three = counts.map(_ >= 3)
    val twoAndOne = for (i <- counts.indices; j <- counts.indices if i != j) yield two(i) && one(j)
    val threeOnes = for (i <- counts.indices; j <- i + 1 until counts.size; k <- j + 1 until counts.size) yield one(i) && one(j) && one(k)
    (three ++ twoAndOne ++ threeOnes).reduce(_ || _)
  }
}

/**
 * Round robin over the eligible flows, one grant a clock. The eligibility bits are 32-bit words in
 * registers. A scanner walks the words that are not zero in cyclic order (a registered summary bit
 * a word) and takes a snapshot of one word a clock into a queue of `depth` snapshots: the head, a
 * register that offers its lowest bit, and a ring of `depth` - 1 behind it (entries that never
 * move: a pop only turns the ring's read pointer). Every clear (a taken grant, an update that
 * clears) reaches the snapshots that can offer at the next edge at its own edge, the others one
 * edge later, and the bits (and the snapshot being read) one edge later with the updates, so a set
 * bit is granted at most once. Each snapshot is served whole before the next, so a flow that stays
 * eligible waits at most for the other words' snapshots of one round.
 */
class NicCcPicker(val cfg: NicCcPickerConfig) extends Component {
  import NicCcPicker._
  val io = new NicCcPickerIo(cfg)
  private val M = cfg.words
  private val R = cfg.depth - 1

  private def wordOf(flow: UInt): UInt = flow(cfg.flowIdWidth - 1 downto 5)
  private def bitOf(flow: UInt): UInt = flow(4 downto 0)

  case class Snapshot() extends Bundle {
    val word = UInt(cfg.wordIdWidth bits)
    val mask = Bits(32 bits)
    /**
     * More than one bit was set, ignoring the clears of updates and of late grants since: it may
     * say 1 of a one-bit snapshot (whose last grant then leaves it as a zero head), never 0 of
     * one with two bits.
     */
    val more = Bool()
  }

  /** Position 0 of the queue. */
  val head = new Area {
    val valid = Reg(Bool()) init (False)
    val entry = Reg(Snapshot())
    /**
     * The head was zero at the last edge and stayed (a head's bits are only cleared): it leaves at
     * this edge. A register, so that the head's OR over 32 bits is not in front of the refill's
     * fan-out (a zero head leaves one edge after it became zero).
     */
    val zeroSeen = RegInit(False)
    val leaves = valid && zeroSeen
  }

  /** Positions 1 .. depth - 1: a ring with one-hot read and write pointers. */
  val ring = new Area {
    val entry = Vec(Reg(Snapshot()), R)
    val count = Reg(UInt(log2Up(R + 1) bits)) init (0)
    val readOh = Reg(Bits(R bits)) init (1)
    val writeOh = Reg(Bits(R bits)) init (1)
    val empty = count === 0
    val firstWord = MuxOH(readOh, entry.map(_.word))
    val firstMore = MuxOH(readOh, entry.map(_.more))
    /** Position 1 has the head's word (registers: compared beside the offer, not after it). */
    val sameWordAsHead = firstWord === head.entry.word
  }

  /** A snapshot is staged (stage 2 to 3), counted for the room. */
  val stagedValid = Reg(Bool()) init (False)

  /** The offer: the head's lowest bit. */
  val offer = new Area {
    private val h = head.entry
    val live = head.valid && h.mask.orR
    val low = lowestOne(h.mask)
    io.grant.valid := live
    io.grant.payload := (h.word ## OHToUInt(low)).asUInt
    val fire = io.grant.fire
    // The bit taken, without the offer's valid in front of it (the lowest bit is only set when the head is live).
    val take = Mux(io.grant.ready && head.valid, low, B(0, 32 bits))
    /** The head has its last bit taken at this edge. */
    val lastTaken = io.grant.ready && head.valid && !h.more
  }

  /**
   * This edge's updates. Each port's flow is registered from `updateFlows` with its bit decoded
   * before the register; its word is compared at the edge before with the word each snapshot holds
   * at this edge (assigned where those words are chosen), so a clear is a register AND.
   */
  val incoming = new Area {
    val ports = io.updates.indices.map(k => new Area {
      private val early = io.updateFlows(k)
      /** The word of the next edge's update, compared with the snapshots' next words. */
      val nextWord = wordOf(early)
      val wordOh = RegNext(UIntToOh(wordOf(early), M))
      val bitOh = RegNext(UIntToOh(bitOf(early), 32))
      // the source's register (valid and not eligible): no LUT in front of the clears
      val clears = io.updateClears(k)
      val headMatch = Reg(Bool())
      val ringMatch = Vec(Reg(Bool()), R)
      val stagedMatch = Reg(Bool())
    }.setName(s"port$k"))
    /** The clears of a snapshot, from its match register of each port. */
    def clears(matches: Int => Bool): Bits =
      ports.indices.map(k => Mux(ports(k).clears && matches(k), ports(k).bitOh, B(0, 32 bits))).reduce(_ | _)
    /** The clears of a word given one-hot (the scanner's pick: no encoder in front of a wide fan-out). */
    def clearsOh(wordOh: Bits): Bits =
      ports.map(p => Mux(p.clears && (p.wordOh & wordOh).orR, p.bitOh, B(0, 32 bits))).reduce(_ | _)
  }

  /** What this edge does to the bits, applied at the next edge: the grant's clear, then the updates in order. */
  val late = new Area {
    val grant = RegNext(offer.fire) init (False)
    val grantWordOh = RegNext(UIntToOh(head.entry.word, M))
    val grantBit = RegNext(offer.take)
    /** Each port's update, its word and bit decoded before the register (the bits' write enables are one LUT level). */
    case class Decoded() extends Bundle {
      val valid, eligible = Bool()
      val wordOh = Bits(M bits)
      val bitOh = Bits(32 bits)
    }
    val updates = io.updates.indices.map { k =>
      val d = Decoded()
      d.valid := io.updates(k).valid
      d.eligible := io.updates(k).eligible
      d.wordOh := incoming.ports(k).wordOh
      d.bitOh := incoming.ports(k).bitOh
      val r = RegNext(d)
      r.valid.init(False)
      r
    }
    /** Each ring entry's word equals the grant's (compared at the grant's edge with the entry's word at this one). */
    val ringMatch = Vec(Reg(Bool()), R)
    /** The staged snapshot's word equals the grant's (the same). */
    val stagedMatch = Reg(Bool())
    /** All of them as clears, for the snapshot read at this edge (which reads the bits before them): `wordOh` one-hot. */
    def clears(wordOh: Bits): Bits = (Mux(grant && (grantWordOh & wordOh).orR, grantBit, B(0, 32 bits)) +: updates.map { u =>
      Mux(u.valid && !u.eligible && (u.wordOh & wordOh).orR, u.bitOh, B(0, 32 bits))
    }).reduce(_ | _)
  }

  val bits = new Area {
    val word = Vec(Reg(Bits(32 bits)) init (0), M)
    /** A bit a word: the word was not zero at the previous edge. */
    val summary = Reg(Bits(M bits)) init (0)
    /**
     * Some summary bit is set: the OR of the words' ORs, registered beside the summary (the same
     * value as the summary's OR, without a tree that synthesis shares with the scanner's prefix ORs
     * in front of its enable).
     */
    val summaryAny = RegNext(Kept.orTree((0 until M).map(w => Kept.orTree(word(w).asBools.toSeq)))) init (False)
    for (w <- 0 until M) {
      summary(w) := word(w).orR
      val next = CombInit(word(w) & ~Mux(late.grant && late.grantWordOh(w), late.grantBit, B(0, 32 bits)))
      for (u <- late.updates) {
        val hit = u.valid && u.wordOh(w)
        for (b <- 0 until 32) when(hit && u.bitOh(b)) { next(b) := u.eligible }
      }
      word(w) := next
    }
  }

  /**
   * Stage 1: the next word after the last one visited whose summary bit is set, while the queue
   * has room. The words above the last one are kept as a mask: the bits below the next one are
   * its new value (the same ORs that find the next one).
   */
  val scan = new Area {
    val aboveLast = Reg(Bits(M bits)) init (0)
    val lastOh = Reg(Bits(M bits)) init (B(BigInt(1) << (M - 1), M bits))
    val picked = Reg(Bool()) init (False)
    private val s = bits.summary
    private val after = s & aboveLast
    private val belowAfter = below(after)
    private val belowAll = below(s)
    private val anyAfter = Kept.orTree(after.asBools.toSeq)
    // a zero head leaves at this edge: it does not count
    private val held = head.valid.asUInt +^ ring.count +^ picked.asUInt +^ stagedValid.asUInt
    private val room = held < cfg.depth + head.leaves.asUInt
    private val go = room && bits.summaryAny
    picked := go
    when(go) {
      lastOh := Mux(anyAfter, after & ~belowAfter, s & ~belowAll)
      aboveLast := Mux(anyAfter, belowAfter, belowAll) // a bit is above the next word when a set bit is below it
    }
    /** The word picked (the encoder is in stage 2's read). */
    val word = OHToUInt(lastOh)
  }

  /**
   * Stage 2: the picked word's bits, less this edge's and the late clears, into the staged
   * snapshot; the word's summary bit is registered beside it (a snapshot of a zero word is not
   * queued; one the clears empty is, and leaves as a zero head). The bit granted at this edge
   * leaves it at the push (the late grant there): not in front of the staged register.
   */
  val staged = new Area {
    private def grantBy(w: UInt): Bits = Mux(head.entry.word === w, offer.take, B(0, 32 bits))
    // an AND-OR of the words by the one-hot (MuxOH would encode it and index)
    private val pickedWord = (0 until M).map(w => Mux(scan.lastOh(w), bits.word(w), B(0, 32 bits))).reduce(_ | _)
    private val read = pickedWord & ~late.clears(scan.lastOh) & ~incoming.clearsOh(scan.lastOh)
    stagedValid := scan.picked
    val word = RegNext(scan.word)
    val mask = Reg(Bits(32 bits))
    // the word's summary bit (not zero at the previous edge): a snapshot the clears empty is queued, and leaves as a zero head
    val live = RegNext((bits.summary & scan.lastOh).orR) init (False)
    mask := read
    /** Stage 3: queued at this edge when its word was not zero, less this edge's clears and the read edge's grant. */
    val push = stagedValid && live
    val pushMask = mask & ~incoming.clears(incoming.ports(_).stagedMatch) & ~grantBy(word) &
      ~Mux(late.grant && late.stagedMatch, late.grantBit, B(0, 32 bits))
    // the staged word of the next edge is the scanner's pick of this one
    for (p <- incoming.ports) p.stagedMatch := p.nextWord === scan.word
    late.stagedMatch := head.entry.word === scan.word
    val pushMore = moreThanOne(mask)
  }

  /**
   * The queue at this edge. The grant's bit leaves the head; the ring's first snapshot loses it
   * as it replaces the head (when it has the head's word); the ring's snapshots lose it at the
   * next edge, before any of them can offer. Every snapshot loses the updates' clears. The head
   * leaves when it was zero or its last bit is taken; the ring's first snapshot replaces it, and
   * an empty head takes it too. The staged snapshot always joins the ring.
   */
  val advance = new Area {
    private val pop = head.leaves || offer.lastTaken
    private val headCleared = head.entry.mask & ~offer.take & ~incoming.clears(incoming.ports(_).headMatch)
    private val ringCleared = (0 until R).map(i => ring.entry(i).mask & ~incoming.clears(incoming.ports(_).ringMatch(i)) &
      ~Mux(late.grant && late.ringMatch(i), late.grantBit, B(0, 32 bits)))
    private val firstCleared = MuxOH(ring.readOh, ringCleared) & ~Mux(ring.sameWordAsHead, offer.take, B(0, 32 bits))
    private val refill = (pop || !head.valid) && !ring.empty
    head.valid := refill || (head.valid && !pop)
    head.zeroSeen := head.valid && !Kept.orTree(head.entry.mask.asBools.toSeq) && !pop
    head.entry.mask := Mux(refill, firstCleared, headCleared)
    head.entry.word := Mux(refill, ring.firstWord, head.entry.word)
    // after a take, two or more left when three or more were set
    private val headMore = Mux(io.grant.ready, atLeastThree(head.entry.mask), moreThanOne(head.entry.mask))
    head.entry.more := Mux(refill, ring.firstMore, headMore)
    for (i <- 0 until R) {
      val writes = staged.push && ring.writeOh(i)
      ring.entry(i).mask := Mux(writes, staged.pushMask, ringCleared(i))
      ring.entry(i).word := Mux(writes, staged.word, ring.entry(i).word)
      ring.entry(i).more := Mux(writes, staged.pushMore, ring.entry(i).more)
      // the entry's word at the next edge, compared now with the next update's and this grant's word
      for (p <- incoming.ports) p.ringMatch(i) := Mux(writes, p.nextWord === staged.word, p.nextWord === ring.entry(i).word)
      late.ringMatch(i) := Mux(writes, head.entry.word === staged.word, head.entry.word === ring.entry(i).word)
    }
    for (p <- incoming.ports) p.headMatch := Mux(refill, p.nextWord === ring.firstWord, p.nextWord === head.entry.word)
    when(refill) { ring.readOh := ring.readOh.rotateLeft(1) }
    when(staged.push) { ring.writeOh := ring.writeOh.rotateLeft(1) }
    ring.count := ring.count + staged.push.asUInt - refill.asUInt
  }
}
