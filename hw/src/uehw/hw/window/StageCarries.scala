// SPDX-License-Identifier: Apache-2.0
package uehw.hw.window

import spinal.core._
import scala.collection.mutable

/**
 * Stage values carried by declaration (docs/window-unit.md, "Stage values"): a value is declared
 * once, where it is made, with the pipeline stage it belongs to (`born`), and read at a later
 * stage with `apply(x, to)`, which finds its stage and returns it through one register chain,
 * shared by every reader of it (a reader of a bundle's field takes the field's own chain). Values
 * read from a chain are of their chain's stage: `apply(apply(x, 5), 7)` is `apply(x, 7)`, and
 * reading one before its stage fails at generation.
 */
class StageCarries(owner: String) {
  private val declared = new java.util.IdentityHashMap[Data, Integer]()
  private val chains = new java.util.IdentityHashMap[Data, mutable.ArrayBuffer[Data]]()
  private val rootOf = new java.util.IdentityHashMap[Data, Data]()

  /** Declares `x` a value of stage `stage`. */
  def born[T <: Data](stage: Int)(x: T): T = {
    val before = declared.put(x, stage)
    require(before == null || before == stage, s"$owner: a value declared at stage $before and at $stage")
    x
  }

  /** The stage `x` belongs to: its own declaration, its chain's, or that of the bundle it is a field of. */
  def stageOf(x: Data): Int = {
    val root = rootOf.getOrDefault(x, x)
    var d: Data = root
    while (d != null && !declared.containsKey(d)) d = d.parent
    if (d == null) SpinalError(s"$owner: ${x.getDisplayName()} is carried but no stage declares it")
    declared.get(d) + chainIndex(x)
  }
  private def chainIndex(x: Data): Int = Option(rootOf.get(x)).map(r => chains.get(r).indexWhere(_ eq x)).getOrElse(0)

  /** `x` at stage `to` (not before its own). */
  def apply[T <: Data](x: T, to: Int): T = {
    val root = rootOf.getOrDefault(x, x)
    val from = stageOf(root)
    require(to >= stageOf(x), s"$owner: ${x.getDisplayName()} of stage ${stageOf(x)} read at stage $to")
    val chain = chains.computeIfAbsent(root, _ => mutable.ArrayBuffer[Data](root))
    while (chain.size <= to - from) {
      val next = RegNext(chain.last)
      rootOf.put(next, root)
      chain += next
    }
    chain(to - from).asInstanceOf[T]
  }
}
