// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib._

/**
 * Wires that synthesis keeps: each a LUT output of its own, so that ABC does not rebuild the logic
 * around it as a chain (it sees slack where a block RAM's address setup or a DSP's input is not in
 * its model) nor shares one function behind a multiplexer of its inputs. The project's one helper
 * for them; the blocks' timing notes say where each is needed.
 */
object Kept {
  def apply[T <: Data](x: T): T = {
    val k = CombInit(x)
    k.addAttribute("keep")
    k
  }

  /** An OR of many as a tree of kept LUT6s (six inputs a LUT). */
  def orTree(xs: Seq[Bool]): Bool = if (xs.size == 1) xs.head else orTree(xs.grouped(6).map(g => Kept(g.orR)).toSeq)
}
