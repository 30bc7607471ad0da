// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._

/** One writer's operation at one stage of a keyed read-modify-write loop: whether it writes, and its key. */
case class KeyedOp(writes: Bool, key: UInt)

/** Writer `writer`'s words as one RAM sees them: the word it writes in W, and the one it wrote a clock before. */
case class WrittenWords[T <: Data](writer: Int, inW: T, afterW: T)

/**
 * The forwarding of a keyed read-modify-write loop over a synchronous block RAM: the project's one
 * primitive for "read the word at this key, update it, write it back, and see the updates still in
 * flight" (FlowStateLoop, XorBankedState, DasrLimiter's next times build on it).
 *
 * The contract, in clocks of one operation (stages; every stage moves every clock):
 *  - stage 0: `key` is presented and the RAM reads it (`readSync`); the operations j = 1 .. `loop`
 *    ahead are then in stages 1 .. loop, and their writes are not in the word read;
 *  - stage 1: the RAM word arrives; `stored` merges it with the words of the operations
 *    loop - 1 and loop ahead (now in W and W + 1) and registers it for stage 2;
 *  - stage 2: `current` is the value: the word of the operation loop - 2 ahead (now in W) when it
 *    wrote this key, else `stored`; `currentOf(f)` applies `f` to each candidate before the select
 *    (each a kept LUT output, so that a wide function of the value stays off the select);
 *  - stage W = `loop`: the writer's registered result is written (the RAM write on W's clock edge).
 * So an operation's result is due at stage loop - 1, and the operation loop - 2 ahead must have its
 * result by then: `loop` >= 3. Same-key operations at least `spacing` stages apart leave out the
 * candidates closer than that (`spacing` >= loop + 1: no forwarding at all); with one writer and
 * `spacing` >= 2 at most one candidate hits, and stage 1's select is an AND-OR (one LUT level).
 *
 * Each writer gives its operation at stages loop - 2, loop - 1 and loop (`ops(w)(j)`); the hits
 * are compared at stage 0 (a key compare against each) and registered, so stage 1 and 2 only
 * select. Several writers (XorBankedState's two ports) are searched newest operation first, then
 * in writer order. One network serves several RAMs read at the same key (`stored` and `current`
 * take each RAM's words; a writer that does not write a RAM is absent from its words).
 */
class KeyedForwarding(key: UInt, val loop: Int, val spacing: Int, ops: Seq[Int => KeyedOp], names: Nameable = null) extends Area {
  require(loop >= 3, s"a keyed read-modify-write loop of $loop stages: the value at stage 2 needs loop >= 3")
  require(spacing >= 1, s"same-key operations $spacing stages apart")
  require(ops.nonEmpty, "a keyed read-modify-write loop with no writer")
  require(names == null || ops.size == 1, "a keyed read-modify-write loop names its signals with one writer only")
  private def candidate(j: Int): Boolean = j >= spacing
  private def compare(w: Int, j: Int): Bool = { val o = ops(w)(j); RegNext(o.writes && o.key === key) init (False) }
  // With `names` (KeyedStateLoop) the signals take the owner's names (`read_*`) and the newest
  // compare is made where it is first used, after `stored`: the window unit's state loop keeps the
  // netlist its timing was closed with (ABC9's mapping follows names and order, docs/window-unit.md).
  private val named = names != null
  /** Stage 1: writer w's operation j ahead (at stage 0) writes `key`. */
  private val hit: Seq[Map[Int, Bool]] = ops.indices.map { w =>
    Seq(loop - 2, loop - 1, loop).filter(j => candidate(j) && !(named && j == loop - 2)).map(j => j -> compare(w, j)).toMap
  }
  /** Stage 2: writer w's operation loop - 2 ahead (now in W) wrote `key`; null when same-key operations are further apart. */
  lazy val fromWritten: Seq[Bool] = ops.indices.map { w =>
    if (!candidate(loop - 2)) null else withName(RegNext(if (named) compare(w, loop - 2) else hit(w)(loop - 2)) init (False), "fromWritten")
  }
  private def withName[T <: Nameable](x: T, name: String): T = { if (named) x.setPartialName(names, name); x }
  if (named) {
    hit.head.get(loop - 1).foreach(withName(_, "fromWrittenAtData"))
    hit.head.get(loop).foreach(withName(_, "fromBeforeAtData"))
  } else fromWritten
  private val exclusive = ops.size == 1 && spacing >= 2

  /** Stage 1 -> 2: the RAM word with the older in-flight writes (loop - 1 and loop ahead), registered. */
  def stored[T <: Data](ramWord: T, words: Seq[WrittenWords[T]]): T = {
    // named: a candidate that cannot hit stays in the select as a constant (the netlist the window
    // unit's timing was closed with)
    def never(j: Int): Option[Bool] =
      if (named) Some(withName(CombInit(False), if (j == loop - 1) "fromWrittenAtData" else "fromBeforeAtData")) else None
    val sources = for ((j, pick) <- Seq(loop - 1 -> ((x: WrittenWords[T]) => x.inW), loop -> ((x: WrittenWords[T]) => x.afterW));
                       x <- words; h <- hit(x.writer).get(j).orElse(never(j)))
      yield (h, pick(x))
    val merged = if (sources.isEmpty) ramWord
    else if (exclusive) {
      val none = withName(CombInit(!sources.map(_._1).reduce(_ || _)), "noneAtData")
      val out = withName(cloneOf(ramWord), "atData")
      out.assignFromBits(((none, ramWord) +: sources)
        .map { case (sel, s) => Mux(sel, s.asBits, B(0, s.getBitsWidth bits)) }.reduce(_ | _))
      out
    } else KeyedForwarding.newestFirst(sources, ramWord)
    RegNext(merged)
  }

  /** Stage 2: the current value at `key`: a writer's word in W (`inW(w)`), or `stored`. */
  def current[T <: Data](stored: T, inW: Seq[(Int, T)]): T =
    KeyedForwarding.newestFirst(inW.flatMap { case (w, x) => Option(fromWritten(w)).map(_ -> x) }, stored)

  /** Stage 2: `f` of the current value, computed on each candidate (a kept LUT output each) and then selected. */
  def currentOf[T <: Data, R <: Data](stored: T, inW: Seq[(Int, T)])(f: T => R): R = {
    val sources = inW.flatMap { case (w, x) => Option(fromWritten(w)).map(_ -> x) }
    if (sources.isEmpty) f(stored)
    else KeyedForwarding.newestFirst(sources.map { case (h, x) => h -> Kept(f(x)) }, Kept(f(stored)))
  }
}

object KeyedForwarding {
  /** The first source whose flag is set (newest first), else `otherwise`: a priority chain of 2:1 selects. */
  def newestFirst[T <: Data](sources: Seq[(Bool, T)], otherwise: T): T =
    sources.foldRight(otherwise) { case ((h, x), rest) => Mux(h, x, rest) }
}

/**
 * Per-key state in one block RAM with one writer: the RAM, KeyedForwarding's network, the written
 * register and the post-reset sweep's write. The caller gives, at the stages of KeyedForwarding's
 * contract, `key` (stage 0) and `twoBeforeW` (the operation then at stage loop - 2: whether it will
 * write and its key; it must be the operation that reaches `write` a clock later, with the same flag
 * and key; used only when same-key operations are loop - 1 or fewer stages apart), both by name
 * (built where the loop reads them), and calls `write(writes, key, value, init)` at stage loop - 1.
 * It reads `read.state` at stage 2 (`read.stored` and `read.fromWritten` for a law that splits a
 * function of the value across the select, `read.stateOf(f)` for one built on each candidate).
 * While `sweep` is active the RAM writes `init` at the sweep's address; the caller keeps its
 * operations out of the loop until the sweep is done.
 */
class KeyedStateLoop[T <: Data](t: HardType[T], words: Int, keyWidth: Int, loop: Int, spacing: Int, sweep: ResetSweep,
                                key: => UInt, twoBeforeW: => KeyedOp) extends Area {
  require(words >= 1 && words <= (1 << keyWidth), s"a keyed state of $words words with a $keyWidth-bit key")
  val stateRam = Mem(t(), words)

  /** What stage W writes. */
  case class Written() extends Bundle {
    val write = Bool()
    val addr = UInt(keyWidth bits)
    val state = t()
  }
  val written = Reg(Written())
  written.write init (False)
  val writtenBefore = RegNext(written.state)

  val read = new Area {
    val addr = key
    private val near = spacing <= loop - 1   // the operation loop - 1 ahead may be this key's
    private val op = if (near) twoBeforeW else null
    private val loopAddr = if (near) op.key else null
    private val loopOkW2 = if (near) op.writes else null
    private val loopAddrLast = if (near) RegNext(loopAddr) else null
    private val loopOkLast = if (near) RegNext(loopOkW2) init (False) else null
    private val network = new KeyedForwarding(addr, loop, spacing, Seq(j =>
      if (j == loop) KeyedOp(written.write, written.addr) else if (j == loop - 1) KeyedOp(loopOkLast, loopAddrLast) else op), this)
    private val ramData = stateRam.readSync(addr)
    /** Stage 2: the word read with the updates loop - 1 and loop ahead forwarded. */
    val stored: T = network.stored(ramData, Seq(WrittenWords(0, written.state, writtenBefore)))
    /** Stage 2: the update in W is this key's (the operation loop - 2 ahead); null when same-key operations are further apart. */
    val fromWritten: Bool = network.fromWritten.head
    val state: T = network.current(stored, Seq(0 -> written.state))
    /** Stage 2: `f` of the state, each candidate's before the select. */
    def stateOf[R <: Data](f: T => R): R = network.currentOf(stored, Seq(0 -> written.state))(f)
  }

  /** The RAM's write port: W's update, or the sweep's initial value (for RAMs that mirror this one). */
  val ramWrite = new Area {
    val addr = UInt(keyWidth bits)
    val state = t()
    val enable = Bool()
  }

  /** Stage loop - 1: the operation's result (`writes`, its key and the new value); `init` is what the sweep writes. */
  def write(writes: Bool, key: UInt, value: T, init: T): Unit = {
    written.write := writes
    written.addr := key
    written.state := value
    ramWrite.addr := Mux(sweep.active, sweep.addr, written.addr)
    ramWrite.state := Mux(sweep.active, init, written.state)
    ramWrite.enable := sweep.active || written.write
    stateRam.write(ramWrite.addr, ramWrite.state, ramWrite.enable)
  }
}
