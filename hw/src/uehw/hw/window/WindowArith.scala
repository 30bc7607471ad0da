// SPDX-License-Identifier: Apache-2.0
package uehw.hw.window

import spinal.core._
import uehw.hw.common.Kept
import spinal.lib._

/**
 * The arithmetic the window laws share, shaped for UltraScale+ timing: table reciprocals found
 * without counting or shifting, DSP-sized registered products, saturating adds, and LUT trees ABC
 * keeps as trees.
 */
object WindowArith {
  /** round(2^(V+I+1) / (2^(I+1) + 2i + 1)): 2^V / (1 + (i + 1/2) / 2^I). */
  def reciprocalTable(indexBits: Int, valueBits: Int): Seq[BigInt] = (0 until (1 << indexBits)).map { i =>
    val denom = (BigInt(1) << (indexBits + 1)) + 2 * i + 1
    ((BigInt(1) << (valueBits + indexBits + 2)) + denom) / (2 * denom)
  }

  /** The reciprocal table as a ROM (read synchronously: a block RAM or registered LUTs). */
  def reciprocalRom(indexBits: Int, valueBits: Int): Mem[UInt] =
    Mem(UInt(valueBits bits), reciprocalTable(indexBits, valueBits).map(v => U(v, valueBits bits)))


  /**
   * The value of the (at most one) pair whose select is set, zero if none, as a tree of kept LUT6s:
   * three select-value pairs a LUT, then six inputs a LUT. Left alone, ABC9 builds a wide AND-OR
   * off its own critical path as a chain of LUT5s.
   */
  def oneHotPick(pairs: Seq[(Bool, UInt)], width: Int): UInt = {
    Vec((0 until width).map { b =>
      Kept.orTree(pairs.grouped(3).map(g => Kept(g.map { case (sel, v) => sel && v(b) }.orR)).toSeq)
    }).asBits.asUInt
  }

  /**
   * The reciprocal table's index (the I bits below the leading one) and the leading one's position
   * (msb) of a window, in one clock, in two searches side by side: of the upper half of the
   * window's bits, and of the lower half as if the upper were zero; and whether the upper half has
   * a one (the select for after the table read: the caller reads the table for both halves and
   * picks after the RAM). Only windows >= 2^lowest are looked at (below it the result is
   * unspecified). A search goes by 2-bit groups: a group's index is its bits below its top bit,
   * or below the bit under it when the top bit is 0 (one kept LUT a bit, beside the search); the
   * first nonzero group selects its index through one AND-OR tree. A group's select is one kept
   * LUT over its bits, the other group of its 4-bit chunk and the kept ORs of the chunks above
   * it: disjoint ORs, so that ABC cannot build one select from another (it chains them where it
   * sees slack, and it does not see the block RAM address's setup). In a half of up to 12 bits
   * every select is two LUT levels from the window's register, the index four.
   */
  def windowRecipIndexHalves(x: UInt, lowest: Int, indexBits: Int): WindowRecipHalves = {
    val w = x.getWidth
    val mid = (lowest + (w - lowest + 1) / 2 + 1) / 2 * 2    // even: the 2-bit groups do not straddle it
    require(mid > lowest && mid < w, s"a window of $w bits searched from bit $lowest has no two halves")
    WindowRecipHalves(Kept.orTree((mid until w).map(x(_))), windowRecipIndexBelow(x, mid, w, indexBits),
      windowRecipIndexBelow(x, lowest, mid, indexBits))
  }
  case class WindowRecipHalves(upperAny: Bool, upper: (UInt, UInt), lower: (UInt, UInt))

  /** One search of windowRecipIndexHalves: the bits lowest until top, the bits from top up taken as zero. */
  private def windowRecipIndexBelow(x: UInt, lowest: Int, top: Int, indexBits: Int): (UInt, UInt) = {
    val I = indexBits
    val groups = lowest / 2 until (top + 1) / 2
    def bit(b: Int): Bool = if (b >= 0 && b < x.getWidth) x(b) else False
    def bitsBelow(t: Int): UInt = (t - 1 to t - I by -1).map(b => bit(b).asBits).reduce(_ ## _).asUInt
    def here(g: Int): Bool = (scala.math.max(2 * g, lowest) until scala.math.min(top, 2 * g + 2)).map(x(_)).orR
    val chunks = groups.grouped(2).toSeq
    val chunkAny = chunks.map(c => Kept(c.map(here).reduce(_ || _)))
    val picks = groups.map { g =>
      val k = chunks.indexWhere(_.contains(g))
      val above = chunks(k).filter(_ > g).map(here) ++ chunkAny.drop(k + 1)
      val sel = Kept((here(g) +: above.map(!_)).reduce(_ && _))
      val high = bit(2 * g + 1)
      // each index bit a kept LUT3 beside the search, so that a pick leaf (three selects, three bits) is one LUT6
      val index = Vec(Mux(high, bitsBelow(2 * g + 1), bitsBelow(2 * g)).asBools.map(b => Kept(b))).asBits.asUInt
      (sel, index, U(g, log2Up(x.getWidth) - 1 bits) @@ high.asUInt)
    }
    (oneHotPick(picks.map { case (sel, index, _) => (sel, index) }, I),
      oneHotPick(picks.map { case (sel, _, msb) => (sel, msb) }, log2Up(x.getWidth)))
  }

  /**
   * The leading one of x (one bit per position from `lowest` up, at most one set): a one with no
   * one above it in its 4-bit group and no nonzero group above. The group ORs are kept wires: left
   * alone, ABC builds "any one above bit p" as one long chain of 2-input ORs.
   */
  def leadingOne(x: UInt, lowest: Int): Bits = {
    val w = x.getWidth
    val positions = lowest until w
    val groups = (lowest / 4 until (w + 3) / 4)
    def bitsOf(g: Int) = (scala.math.max(4 * g, lowest) until scala.math.min(w, 4 * g + 4))
    val nonzero = groups.map(g => g -> Kept(bitsOf(g).map(x(_)).orR)).toMap
    Vec(positions.map { p =>
      val g = p / 4
      Kept(x(p) && !bitsOf(g).filter(_ > p).map(x(_)).orR && !groups.filter(_ > g).map(nonzero).orR)
    }).asBits
  }

  /**
   * The table index (the I bits below the leading one) and the leading one's position,
   * 1/x ~ table(index) / 2^(V + msb), for an x >= 2^lowest, from the one-hot `leadingOne(x, lowest)`:
   * it picks the bits directly (no count, no barrel shift).
   */
  def recipIndex(xBelowTop: UInt, leadingBits: Bits, lowest: Int, indexBits: Int): (UInt, UInt) = {
    val I = indexBits
    val x = xBelowTop                       // x without its top bit: the bits below a leading one
    val w = x.getWidth + 1
    val positions = lowest until w
    val leading = leadingBits.asBools.toList
    def pick(f: Int => UInt, width: Int) = oneHotPick(leading.zip(positions).map { case (l, p) => (l, f(p)) }, width)
    def below(p: Int): UInt = if (p >= I) x(p - 1 downto p - I) else if (p == 0) U(0, I bits) else x(p - 1 downto 0) @@ U(0, I - p bits)
    (pick(below, I), pick(p => U(p, log2Up(w) bits), log2Up(w)))
  }

  /** Saturating arithmetic sized to the operands, for values that may not wrap. */
  def satAdd(x: UInt, y: UInt, max: BigInt): UInt = {
    val w = scala.math.max(x.getWidth, y.getWidth) + 1
    val sum = x.resize(w) + y.resize(w)
    Mux(sum > U(max, w bits), U(max, x.getWidth bits), sum.resize(x.getWidth))
  }

  /** min(x, limit) in `width` bits, where limit < 2^width. */
  def satTo(x: UInt, limit: UInt, width: Int): UInt = Mux(x > limit, limit.resize(width), x.resize(width))

  /**
   * a x b cut into DSP48E2-sized products (a in pieces of at most 24 bits, b at most 17 bits), each
   * registered `registers` times (1: the DSP's M register; 2: M and P, so that the path out of
   * the DSP starts at its P register): Yosys neither splits nor pipelines a wide multiply for
   * UltraScale+ itself. Sum them `registers` clocks later with `sumProducts`.
   */
  def products(a: UInt, b: UInt, name: String, bShift: Int = 0, registers: Int = 1): Seq[(UInt, Int)] = {
    require(b.getWidth <= 17, s"$name: the narrow operand must fit a DSP's 17 unsigned bits")
    require(registers == 1 || registers == 2, s"$name: a product has its M register, or M and P")
    val pieces = (0 until a.getWidth by 24).map(lo => (a(scala.math.min(a.getWidth, lo + 24) - 1 downto lo), lo))
    pieces.zipWithIndex.map { case ((piece, lo), i) =>
      (Delay(piece * b, registers).setName(s"${name}_product$i"), lo + bShift)
    }
  }

  /** A single product with the DSP's M and P registers (two clocks). */
  def productMP(a: UInt, b: UInt): UInt = RegNext(RegNext(a * b))

  def sumProducts(ps: Seq[(UInt, Int)], width: Int): UInt =
    ps.map { case (p, lo) => if (lo == 0) p.resize(width) else p.resize(width - lo) @@ U(0, lo bits) }.reduce(_ + _)
}
