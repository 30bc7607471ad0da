// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib.bus.regif._

/**
 * Read-only 32-bit event counters on consecutive CSR addresses from `firstAddress`. Each counter
 * wraps at 2^32; the host takes differences. The register name is the Scala val name.
 *
 * With `oneReadMux`, the bus interface's reads go through `CsrReadMux` (all its registers, not
 * only the counters).
 */
class CsrCounters(busif: BusIf, firstAddress: Int, oneReadMux: Boolean = false) {
  private var nextAddress = firstAddress
  private val counters = scala.collection.mutable.ArrayBuffer[(Int, UInt)]()
  if (oneReadMux) CsrReadMux.install(busif)

  def counter(doc: String)(implicit name: SymbolName): UInt = {
    val value = Reg(UInt(32 bits)) init (0)
    busif.newRegAt(nextAddress, doc = doc)(name)
      .field(UInt(32 bits), AccessType.RO, doc = "Count, wraps at 2^32")(SymbolName("COUNT")) := value
    counters += ((nextAddress, value))
    nextAddress += 4
    value
  }

  /** The address the next counter will get. */
  def address: Int = nextAddress

  /** Leaves the next address free (a counter of an option not generated), so the ones after keep their addresses. */
  def skip(): Unit = nextAddress += 4
}

/**
 * A read path for a regif AXI4-Lite register file: the read data register is loaded from one
 * multiplexer indexed by the word address (4:1 LUTs; unmapped words read 0), on regif's own load
 * condition and after regif's read mux, so that mux is never used and drops out. A read returns
 * what regif's would, on the same edges, with regif's response. regif's mux is a one-hot AND-OR
 * that ABC9 maps 7 LUTs deep at 20-40 registers (the limiting path of SMaRTT, 3.7 ns); the
 * indexed multiplexer is 3 levels at 64 words.
 */
object CsrReadMux {
  /**
   * words(index) as a tree of kept 4:1 multiplexers (one LUT6 a bit): a case statement becomes a
   * one-hot AND-OR that ABC9 maps as a chain.
   */
  private def tree(words: Seq[Bits], index: UInt): Bits =
    if (words.size == 1) words.head
    else {
      val w = if (words.size >= 4) 2 else 1
      val next = words.grouped(1 << w).map { g =>
        val k = CombInit(Vec(g.padTo(1 << w, B(0, g.head.getWidth bits))).read(index(w - 1 downto 0)))
        k.addAttribute("keep")
        k
      }.toSeq
      tree(next, index(index.getWidth - 1 downto w))
    }

  def install(busif: BusIf): Unit = Component.current.addPrePopTask(() => {
    val readRegister = busif match {
      case axi: AxiLite4BusInterface => axi.reg_rdata
      case _ => SpinalError("CsrReadMux reads through an AXI4-Lite bus interface's read data register")
    }
    // the word address (the byte offset is read by regif alone); named *Full: its low bits are unused
    val readAddressFull = CombInit(busif.readAddress()).setName("csrReadAddressFull")
    val word = readAddressFull(readAddressFull.getWidth - 1 downto 2)
    val registers = busif.regSlicesNotReuse.collect { case r: RegInst => r }
    for (r <- registers) require(r.addr % 4 == 0 && r.readBits.getWidth <= busif.busDataWidth,
      s"CsrReadMux: register ${r.getName()} at ${r.addr} is not one aligned word")
    val byWord = registers.map(r => (r.addr / 4).toInt -> r.readBits.resize(busif.busDataWidth)).toMap
    val readValue = tree((0 until (1 << word.getWidth)).map(i => byWord.getOrElse(i, B(0, busif.busDataWidth bits))), word)
    when(busif.askRead) { readRegister := readValue }
  })
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
  /** The register file (after elaboration, its slices are the map regif writes as JSON and headers). */
  def registerBus: BusIf
  /** The bus prefix of the register names in the headers and the JSON ("REPS": REPS_SENDS). */
  def registerPrefix: String
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
