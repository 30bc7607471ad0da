package uehw.hw.common

import spinal.core._
import spinal.lib.bus.regif._

/**
 * Read-only 32-bit event counters on consecutive CSR addresses from `firstAddress`. Each counter
 * wraps at 2^32; the host takes differences. The register name is the Scala val name.
 */
class CsrCounters(busif: BusIf, firstAddress: Int) {
  private var nextAddress = firstAddress

  def counter(doc: String)(implicit name: SymbolName): UInt = {
    val value = Reg(UInt(32 bits)) init (0)
    busif.newRegAt(nextAddress, doc = doc)(name)
      .field(UInt(32 bits), AccessType.RO, doc = "Count, wraps at 2^32")(SymbolName("COUNT")) := value
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
  /** Writes the register map as a C header, HTML and JSON into the SpinalConfig target directory. */
  def emitRegisterDocs(): Unit
}

object RegisterDocs {
  def emit(busif: BusIf, fileName: String, prefix: String): Unit = {
    busif.accept(DocCHeader(fileName, prefix))
    busif.accept(DocHtml(fileName))
    busif.accept(DocJson(fileName))
  }
}
