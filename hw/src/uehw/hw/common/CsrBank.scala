// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib.bus.amba4.axilite.AxiLite4
import spinal.lib.bus.misc.SizeMapping
import spinal.lib.bus.regif._

/** One read-only field of a block's INFO register: a generation parameter, `width` bits. */
case class InfoField(name: String, width: Int, value: BigInt, doc: String)

/**
 * The start of every block's register map (docs/integration.md): regif's AXI4-Lite bus interface
 * over 256 bytes, INFO at 0x00 (the block id in bits 7:0, then the `info` fields, each above the
 * one before) and VERSION at 0xFC (BlockVersion). The block adds its registers with `reg` at fixed
 * addresses, so that its map is the same in every configuration; `CsrCounters` adds count registers.
 */
object CsrBank {
  def apply(ctrl: AxiLite4, prefix: String, blockId: Int, idDoc: String, info: InfoField*): AxiLite4BusInterface = {
    val busif = AxiLite4BusInterface(ctrl, SizeMapping(0, 256), prefix)
    val infoRegister = reg(busif, "INFO", 0x00, "Generation parameters (read-only)")
    RegisterDocs.constField(infoRegister, Bits(8 bits), BigInt(blockId), idDoc, "ID")
    for (f <- info) RegisterDocs.constField(infoRegister, Bits(f.width bits), f.value, f.doc, f.name)
    BlockVersion.addRegister(busif)
    busif
  }

  /** A register named `name` (its name in the headers, the JSON and the docs) at byte `address`. */
  def reg(busif: BusIf, name: String, address: Int, doc: String): RegInst = busif.newRegAt(address, doc = doc)(SymbolName(name))
}
