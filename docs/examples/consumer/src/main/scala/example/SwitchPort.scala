// SPDX-License-Identifier: Apache-2.0
package example

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite._
import spinal.lib.bus.amba4.axis._
import uehw.hw.dart.{DartDecision, DartDft, DartDftConfig, DartPacket}
import uehw.hw.trim.{TrimQueue, TrimQueueConfig}

/**
 * A user's switch port with two uehw blocks inside: Dart's deflected-flow table on the route
 * lookup's output and a trimming egress queue in front of the MAC (docs/integration.md).
 */
class SwitchPort extends Component {
  val queueCfg = TrimQueueConfig(dataBytes = 32, capacityBytes = 65536)
  val dartCfg = DartDftConfig(ports = 16)
  val queue = new TrimQueue(queueCfg)
  val dart = new DartDft(dartCfg)
  val io = new Bundle {
    val fromFabric = slave(Axi4Stream(queue.io.axisConfig))
    val toMac = master(Axi4Stream(queue.io.axisConfig))
    val route = slave(Stream(DartPacket(dartCfg)))
    val decision = master(Stream(DartDecision(dartCfg)))
    val queueCtrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
    val dartCtrl = slave(AxiLite4(AxiLite4Config(addressWidth = 8, dataWidth = 32)))
  }

  queue.io.s_axis << io.fromFabric
  io.toMac << queue.io.m_axis
  queue.io.ctrl <> io.queueCtrl

  dart.io.pkt << io.route
  io.decision << dart.io.decision
  dart.io.ctrl <> io.dartCtrl
}

object SwitchPort {
  def main(args: Array[String]): Unit =
    SpinalConfig(targetDirectory = args.headOption.getOrElse("target/rtl")).generateVerilog(new SwitchPort)
}
