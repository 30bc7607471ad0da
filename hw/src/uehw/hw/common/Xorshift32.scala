// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._

/**
 * Marsaglia xorshift32 (shifts 13, 17, 5): period 2^32 - 1 over the non-zero states, one draw
 * per clock, three XOR-shift levels of logic. `uehw.model.Xorshift32` is the bit-exact model.
 * A seed of zero (the one state the generator never leaves) is replaced by 1.
 */
class Xorshift32(resetSeed: Long) extends Area {
  require(resetSeed > 0 && resetSeed <= 0xFFFFFFFFL, s"prngSeed must be in 1..2^32-1, got $resetSeed")
  val state = Reg(UInt(32 bits)) init (resetSeed)
  val draw = Bool()
  val reseed = Bool()
  val seedValue = UInt(32 bits)

  private def step(x: UInt): UInt = {
    val a = x ^ (x |<< 13)
    val b = a ^ (a |>> 17)
    b ^ (b |<< 5)
  }
  /** The value of the current draw (valid whenever `draw` is asserted). */
  val value = step(state)
  /** The value of the draw after the current one (a pipeline that decides a draw late looks ahead). */
  def valueAfterNext: UInt = step(value)
  when(reseed) {
    state := Mux(seedValue === 0, U(1, 32 bits), seedValue)
  } elsewhen (draw) {
    state := value
  }

  /** Uniform value in [0, size): the high word of value * size ("multiply-high", bias < size / 2^32). */
  def scaled(size: UInt, width: Int): UInt = {
    val product = UInt(32 + size.getWidth bits)
    product := value * size
    product.setCompositeName(this, "scaledProduct") // the lint waiver names it: the low word is dropped by design
    product(32, width bits)
  }
}
