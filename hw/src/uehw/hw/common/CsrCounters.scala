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
    // the word address only (one LUT6 a hit at 8 address bits): regif selects a counter's field only
    // at its exact address, so the byte offset cannot change what is read
    val address = busif.readAddress()
    val word = address & U(((BigInt(1) << address.getWidth) - 1) - 3, address.getWidth bits)
    val hits = counters.toSeq.map { case (a, value) => (kept(word === a), value) }
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
  /**
   * A read-only constant field (ROV) named in the register map: regif 1.14.2 drops the symbol name
   * of an ROV field (its C header calls it rov_0, its JSON ""), so the field is renamed after it is made.
   */
  def constField[T <: BaseType](reg: RegInst, t: HardType[T], value: BigInt, doc: String, name: String): T = {
    val f = reg.field(t, AccessType.ROV, value, doc = doc)(SymbolName(name))
    val field = reg.getFields().last
    field.setName(name)
    constants.getOrElseUpdate(reg, scala.collection.mutable.ListBuffer[Field]()) += field
    f
  }
  private val constants = scala.collection.mutable.WeakHashMap[RegInst, scala.collection.mutable.ListBuffer[Field]]()

  def emit(busif: BusIf, fileName: String, prefix: String): Unit = {
    busif.accept(DocCHeader(fileName, prefix))
    busif.accept(DocHtml(fileName))
    busif.accept(DocJson(fileName))
    busif.accept(DocSVHeader(fileName, prefix))
    busif.accept(DocRalf(fileName))
    // regif's C and SystemVerilog headers give ROV fields no SHIFT / MASK defines: add them, named
    // as regif names those of the other fields (<BUS>_<REGISTER>_<FIELD>_SHIFT / _MASK)
    val fields: Seq[(RegInst, Field)] = busif.regSlicesNotReuse.collect { case r: RegInst => r }
      .flatMap(r => constants.get(r).toSeq.flatten.map(f => (r, f)))
    val lines: Seq[(String, Int, String, String)] = fields.map { case (reg, field) =>
      val base = s"${reg.getName().toUpperCase}_${field.getName().toUpperCase}"            // the register name has the bus prefix
      val lsb = field.getSection().min
      val mask = ((BigInt(1) << field.getWidth()) - 1) << lsb
      (base, lsb, f"$mask%08x", s"${field.getName()}, ROV, ${field.getWidth()} bit${if (field.getWidth() == 1) "" else "s"}, value ${field.getResetValue()}")
    }
    if (lines.nonEmpty) {
      val dir = new java.io.File(GlobalData.get.phaseContext.config.targetDirectory)
      def patch(file: String, define: String, hex: String, endif: String): Unit = {
        val f = new java.io.File(dir, file)
        val text = new String(java.nio.file.Files.readAllBytes(f.toPath), "UTF-8")
        val block = lines.map { case (base, lsb, mask, note) =>
          s"$define ${(base + "_SHIFT").padTo(44, ' ')} $lsb\n$define ${(base + "_MASK").padTo(44, ' ')} $hex$mask /* $note */\n"
        }.mkString("/* Read-only constant fields (ROV) */\n", "", "\n")
        val at = text.lastIndexOf(endif)
        java.nio.file.Files.write(f.toPath, (text.substring(0, at) + block + text.substring(at)).getBytes("UTF-8"))
      }
      patch(fileName + ".h", "#define", "0x", "#endif")
      patch(fileName + ".svh", "`define", "'h", "`endif")
    }
  }
}
