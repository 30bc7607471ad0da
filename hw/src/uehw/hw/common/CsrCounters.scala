// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib.bus.regif._

/**
 * Read-only 32-bit event counters on consecutive CSR addresses from `firstAddress`. Each counter
 * wraps at 2^32; the host takes differences. The register name is the Scala val name.
 *
 * With `oneReadMux`, every counter's read field is fed from one AND-OR of the counters selected
 * by the read address (kept LUTs of three counters each) instead of from its own counter. A read
 * returns the same value, but the regif read mux sees one source word for all the counters (Yosys
 * merges identical words), so the read path is shallower.
 */
class CsrCounters(busif: BusIf, firstAddress: Int, oneReadMux: Boolean = false) {
  private var nextAddress = firstAddress
  private val counters = scala.collection.mutable.ArrayBuffer[(Int, UInt)]()
  private val selected = oneReadMux generate UInt(32 bits)
  if (oneReadMux) Component.current.addPrePopTask(() => {
    def kept[T <: Data](x: T): T = { val r = CombInit(x); r.addAttribute("keep"); r }
    val address = busif.readAddress()
    val hits = counters.toSeq.map { case (a, value) => (kept(address === a), value) }
    selected := Vec((0 until 32).map { b =>
      hits.grouped(3).map(g => kept(g.map { case (hit, value) => hit && value(b) }.reduce(_ || _))).reduce(_ || _)
    }).asBits.asUInt
  })

  def counter(doc: String)(implicit name: SymbolName): UInt = {
    val value = Reg(UInt(32 bits)) init (0)
    busif.newRegAt(nextAddress, doc = doc)(name)
      .field(UInt(32 bits), AccessType.RO, doc = "Count, wraps at 2^32")(SymbolName("COUNT")) := (if (oneReadMux) selected else value)
    counters += ((nextAddress, value))
    nextAddress += 4
    value
  }

  /** The address the next counter will get. */
  def address: Int = nextAddress
}

object CsrCounters {
  def count(counter: UInt, event: Bool): Unit = when(event) { counter := counter + 1 }
  def add(counter: UInt, amount: UInt): Unit = counter := counter + amount.resize(counter.getWidth)
}

/** A top with a regif register map. */
trait RegisterDocs {
  /**
   * Writes the register map into the SpinalConfig target directory: C header, SystemVerilog
   * header, HTML, JSON and UVM RALF. Not SystemRDL: regif's DocSystemRdl in SpinalHDL 1.14.2 writes
   * field ranges as Scala Range text and no access type for read-only value fields.
   */
  def emitRegisterDocs(): Unit
}

object RegisterDocs {
  def emit(busif: BusIf, fileName: String, prefix: String): Unit = {
    busif.accept(DocCHeader(fileName, prefix))
    busif.accept(DocHtml(fileName))
    busif.accept(DocJson(fileName))
    busif.accept(DocSVHeader(fileName, prefix))
    busif.accept(DocRalf(fileName))
  }
}
