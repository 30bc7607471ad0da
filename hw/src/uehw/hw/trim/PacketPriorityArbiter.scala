// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._

/**
 * Strict priority at every packet boundary (Sec. 3), the first source first; a source's packet,
 * once its first beat is taken, keeps the output until its last. spinal.lib's
 * `StreamArbiterFactory().lowerFirst.fragmentLock` arbitrates the same way; this one is written by
 * hand for timing: the locked select is one register and the choice two LUTs from the sources'
 * valids, because the trimming queue's output ready (m_axis_tready through one output register)
 * reaches it, and that path is the queue's longest (docs/trimming-queue.md, "Timing").
 */
class PacketPriorityArbiter[T <: Data](sources: Seq[Stream[Fragment[T]]], payloadType: HardType[Fragment[T]]) extends Area {
  private val n = sources.size
  val busy = RegInit(False) // the output took a packet's first beat and not yet its last
  val locked = Reg(Bits(n bits)) init (0)
  val choice = Bits(n bits)
  for (i <- 0 until n) { // no source before it valid, and it is valid (the last: whether it is or not)
    val terms = (0 until i).map(j => !sources(j).valid) ++ (if (i == n - 1) Nil else Seq(sources(i).valid))
    choice(i) := (if (terms.isEmpty) True else terms.reduce(_ && _))
  }
  val select = Mux(busy, locked, choice)
  val beat = Stream(payloadType)
  beat.valid := (0 until n).map(i => select(i) && sources(i).valid).orR
  beat.payload := sources.zipWithIndex.map { case (s, i) => s.payload.asBits & B(s.payload.asBits.getWidth bits, default -> select(i)) }
    .reduce(_ | _).as(payloadType())
  for (i <- 0 until n) sources(i).ready := beat.ready && select(i)
  when(beat.fire) {
    busy := !beat.last
    locked := select
  }
}
