// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._

/**
 * The post-reset sweep: after reset, `active` is high for `entries` clocks while `addr` counts
 * 0, 1, ..., entries - 1, one a clock, so that the block writes every RAM word's initial value
 * before its ports open (a block RAM has no reset). The first write is on the first clock after
 * reset's release, the last `entries` clocks later; `active` is low from the clock after it.
 * The block holds its event ports closed while `active` (the blocks' pages give the clocks, N or
 * N + 1, as INIT_DONE's latency). With `enabled` false (a block with nothing to sweep) `active`
 * is low from reset.
 *
 * Named by the enclosing `val` as an Area is: `sweep_active` and `sweep_addr` in the Verilog.
 */
class ResetSweep(entries: Int, addrWidth: Int, enabled: Boolean = true) extends Area {
  require(entries >= 1, s"a reset sweep over $entries entries")
  require(entries <= (1 << addrWidth), s"a reset sweep over $entries entries with a $addrWidth-bit address")
  val active = RegInit(Bool(enabled))
  val addr = Reg(UInt(addrWidth bits)) init (0)
  when(active) {
    addr := addr + 1
    when(addr === entries - 1) { active := False }
  }

  /** A RAM's write port: `init` at the sweep's address while it runs, else the block's own write. */
  def write[T <: Data](mem: Mem[T], address: UInt, data: T, enable: Bool, init: T): Unit =
    mem.write(Mux(active, addr, address), Mux(active, init, data), active || enable)
}
