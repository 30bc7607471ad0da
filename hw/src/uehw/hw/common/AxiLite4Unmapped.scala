// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._
import spinal.lib.bus.amba4.axilite.AxiLite4

/**
 * The part of a register map with nothing behind it: each write (its AW and W, in any order) gets
 * one SLVERR response, each read one SLVERR response with data 0; one access of each kind at a time.
 */
class AxiLite4Unmapped(bus: AxiLite4) extends Area {
  private val slvErr = B"10"
  val write = new Area {
    val awTaken = RegInit(False)
    val wTaken = RegInit(False)
    val respond = RegInit(False)
    bus.aw.ready := !awTaken && !respond
    bus.w.ready := !wTaken && !respond
    private val aw = awTaken || bus.aw.fire
    private val w = wTaken || bus.w.fire
    when(aw && w) {
      respond := True
      awTaken := False
      wTaken := False
    } otherwise {
      awTaken := aw
      wTaken := w
    }
    bus.b.valid := respond
    bus.b.resp := slvErr
    when(bus.b.fire) { respond := False }
  }
  val read = new Area {
    val respond = RegInit(False)
    bus.ar.ready := !respond
    when(bus.ar.fire) { respond := True }
    bus.r.valid := respond
    bus.r.data := 0
    bus.r.resp := slvErr
    when(bus.r.fire) { respond := False }
  }
}
