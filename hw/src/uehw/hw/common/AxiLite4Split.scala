// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib._
import spinal.lib.bus.amba4.axilite.AxiLite4

/**
 * One AXI4-Lite port to two register maps by the top address bit: below it `low`, at and above it
 * `high` (each sees the address without that bit). One write and one read are in flight at a time:
 * AW and W are taken into registers (each as it comes), sent to the chosen map, and taken again
 * after that map's B has been taken; AR likewise until its R has been taken. Every signal towards a
 * map comes from a register, and B and R pass back unchanged (a map's error response included).
 * spinal.lib 1.14.2 has AXI4 crossbars but no AXI4-Lite decoder.
 */
class AxiLite4Split(master: AxiLite4, low: AxiLite4, high: AxiLite4) extends Area {
  private val bit = master.config.addressWidth - 1
  require(low.config.addressWidth == bit && high.config.addressWidth == bit,
    s"AxiLite4Split: the maps' addresses must be ${bit} bits, one less than the port's ${bit + 1}")
  private val maps = Seq(low, high)

  val write = new Area {
    val awFull = RegInit(False)
    val wFull = RegInit(False)
    val awSent = RegInit(False)
    val wSent = RegInit(False)
    val toHigh = Reg(Bool())
    val addr = Reg(UInt(bit bits))
    val prot = Reg(Bits(3 bits))
    val data = Reg(Bits(master.config.dataWidth bits))
    val strb = Reg(Bits(master.config.dataWidth / 8 bits))
    master.aw.ready := !awFull
    master.w.ready := !wFull
    when(master.aw.fire) {
      awFull := True
      toHigh := master.aw.addr(bit)
      addr := master.aw.addr(bit - 1 downto 0)
      prot := master.aw.prot
    }
    when(master.w.fire) {
      wFull := True
      data := master.w.data
      strb := master.w.strb
    }
    private val both = awFull && wFull
    for ((m, i) <- maps.zipWithIndex) {
      val chosen = if (i == 1) toHigh else !toHigh
      m.aw.valid := both && chosen && !awSent
      m.aw.addr := addr
      m.aw.prot := prot
      m.w.valid := both && chosen && !wSent
      m.w.data := data
      m.w.strb := strb
      m.b.ready := both && chosen && master.b.ready
      when(m.aw.fire) { awSent := True }
      when(m.w.fire) { wSent := True }
    }
    master.b.valid := both && Mux(toHigh, high.b.valid, low.b.valid)
    master.b.resp := Mux(toHigh, high.b.resp, low.b.resp)
    when(master.b.fire) {
      awFull := False
      wFull := False
      awSent := False
      wSent := False
    }
  }

  val read = new Area {
    val full = RegInit(False)
    val sent = RegInit(False)
    val toHigh = Reg(Bool())
    val addr = Reg(UInt(bit bits))
    val prot = Reg(Bits(3 bits))
    master.ar.ready := !full
    when(master.ar.fire) {
      full := True
      toHigh := master.ar.addr(bit)
      addr := master.ar.addr(bit - 1 downto 0)
      prot := master.ar.prot
    }
    for ((m, i) <- maps.zipWithIndex) {
      val chosen = if (i == 1) toHigh else !toHigh
      m.ar.valid := full && chosen && !sent
      m.ar.addr := addr
      m.ar.prot := prot
      m.r.ready := full && chosen && master.r.ready
      when(m.ar.fire) { sent := True }
    }
    master.r.valid := full && Mux(toHigh, high.r.valid, low.r.valid)
    master.r.data := Mux(toHigh, high.r.data, low.r.data)
    master.r.resp := Mux(toHigh, high.r.resp, low.r.resp)
    when(master.r.fire) {
      full := False
      sent := False
    }
  }
}
