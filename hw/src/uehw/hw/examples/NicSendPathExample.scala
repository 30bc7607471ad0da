// SPDX-License-Identifier: Apache-2.0
package uehw.hw.examples

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import uehw.hw.reps.{Reps, RepsAck, RepsConfig, RepsSendRequest, RepsSendResult}

// docs/integration.md quotes this file whole; HwgenTest elaborates it and checks the quote.

/** A user's NIC send path with a REPS entropy cache inside, built in SpinalHDL. */
class NicSendPathExample(cfg: RepsConfig = RepsConfig(connections = 256)) extends Component {
  val io = new Bundle {
    val send = slave(Stream(RepsSendRequest(cfg)))         // a packet of connection `conn` is to go
    val ack = slave(Stream(RepsAck(cfg)))                  // ACKs with the echoed entropy value
    val entropy = master(Flow(RepsSendResult(cfg)))        // the EV for each send, in order
    val ctrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  }

  val reps = new Reps(cfg)
  reps.io.send << io.send
  reps.io.ack << io.ack
  reps.io.failure.valid := False                          // this NIC reports no path failures
  reps.io.failure.payload.assignDontCare()
  reps.io.ctrl <> io.ctrl
  io.entropy << reps.io.result                            // Reps.latency clocks after each send
  reps.emitRegisterDocs()                                 // uehw_reps_regs.h, .svh, .html, .json, .ralf

  // The time base of the freezing timeout: nanoseconds at a 250 MHz clock.
  val nowNs = Reg(UInt(cfg.timeWidth bits)) init (0)
  nowNs := nowNs + 4
  reps.io.now := nowNs
}

object NicSendPathExample {
  /** Writes NicSendPathExample.v into `args(0)` (default build/example). */
  def main(args: Array[String]): Unit =
    SpinalConfig(targetDirectory = args.headOption.getOrElse("build/example")).generateVerilog(new NicSendPathExample)
}
