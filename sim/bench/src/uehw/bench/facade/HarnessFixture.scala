// SPDX-License-Identifier: Apache-2.0
package uehw.bench.facade
import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axis._

class AxisFifoIo(config: Axi4StreamConfig) extends Bundle {
  val input = slave(Axi4Stream(config))
  val output = master(Axi4Stream(config))
  val occupancy = out UInt (log2Up(17) bits)
}

/**
 * spinal.lib's StreamFifo carrying AXI4-Stream beats: the fixture the harness's own tests run
 * the AXI4-Stream driver, monitor and scoreboards through (not a project block).
 */
class AxisFifoFixture(val bytes: Int) extends Component {
  val config = Axi4StreamConfig(dataWidth = bytes, useKeep = true, useLast = true, useUser = true, userWidth = 1)
  val io = new AxisFifoIo(config)
  val fifo = StreamFifo(Axi4Stream.Axi4StreamBundle(config), 16)
  fifo.io.push << io.input
  io.output << fifo.io.pop
  io.occupancy := fifo.io.occupancy
}
