// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import uehw.hw.common.ParamCheck

/**
 * `count` engines side by side, each with its own ports: the network simulator's hardware in the
 * loop, one engine a host on one clock (docs/network-simulator.md, "The NIC engine").
 */
class NicCcArray(val cfg: NicCcConfig, val count: Int) extends Component {
  ParamCheck(count >= 1 && count <= 64, "count", s"$count engines is outside 1..64")
  val io = new NicCcArrayIo(cfg, count)
  val engines: Seq[NicCc] = (0 until count).map { i =>
    val e = new NicCc(cfg)
    // each instance its own module names (the law and the engine name their modules; Spinal would merge or refuse the copies)
    e.setDefinitionName(s"uehw_nic_cc_e$i")
    e.law.setDefinitionName(s"${e.law.definitionName}_e$i")
    e.io <> io.engine(i)
    e
  }
}

class NicCcArrayIo(cfg: NicCcConfig, count: Int) extends Bundle {
  val engine = Vec.fill(count)(new NicCcIo(cfg))
}
