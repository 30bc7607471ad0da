package uehw.hw.common

import spinal.core._

/**
 * Per-key state in block RAM with two read-modify-write ports per clock ("ctrl" and "send").
 *
 * Two writers per clock cannot share one BRAM, so the logical word is split in two banks,
 * value(k) = bankC(k) ^ bankS(k): the ctrl port writes only bankC, the send port only bankS,
 * each writing `newValue ^ otherBank(k)` (the XOR multi-port memory of LaForest et al.,
 * FPGA'12). Each bank needs two reads per clock (one per port), so it is stored twice:
 * four 1W1R RAMs in all. Reads are synchronous (issued in stage 0, used in stage 1); the one
 * write each bank takes on the same edge as a read is bypassed from a register.
 *
 * When both ports address the same key in one clock the caller merges the two operations and
 * writes through the ctrl port only (sendWrite must then be False).
 */
class XorBankedState(width: Int, depth: Int) extends Area {
  private val addrWidth = log2Up(depth)
  private def bank() = Mem(Bits(width bits), depth)
  private val bankC = Seq.fill(2)(bank())
  private val bankS = Seq.fill(2)(bank())

  // Stage 0: read addresses.
  val ctrlReadAddr = UInt(addrWidth bits)
  val sendReadAddr = UInt(addrWidth bits)

  // Stage 1: the address each read was issued for.
  private val ctrlAddr1 = RegNext(ctrlReadAddr)
  private val sendAddr1 = RegNext(sendReadAddr)

  private val writeC = StateWrite(addrWidth, width)
  private val writeS = StateWrite(addrWidth, width)
  // Data of the write that lands on the same edge as a read; whether it hits is decided below.
  private val lastC = RegNext(writeC.data)
  private val lastS = RegNext(writeS.data)

  // Whether the write landing on the same edge as a read hits its address is decided in stage 0
  // (from the stage-1 write and the stage-0 read address) and registered, off the stage-1 path.
  private def hit(write: StateWrite, readAddr: UInt): Bool = RegNext(write.valid && write.addr === readAddr) init (False)
  private def bypass(read: Bits, hit: Bool, lastData: Bits): Bits = Mux(hit, lastData, read)

  private val physC_atCtrl = bypass(bankC(0).readSync(ctrlReadAddr), hit(writeC, ctrlReadAddr), lastC)
  private val physS_atCtrl = bypass(bankS(0).readSync(ctrlReadAddr), hit(writeS, ctrlReadAddr), lastS)
  private val physC_atSend = bypass(bankC(1).readSync(sendReadAddr), hit(writeC, sendReadAddr), lastC)
  private val physS_atSend = bypass(bankS(1).readSync(sendReadAddr), hit(writeS, sendReadAddr), lastS)

  /** Stage 1: the current logical value at the ctrl / send read address. */
  val ctrlValue = physC_atCtrl ^ physS_atCtrl
  val sendValue = physC_atSend ^ physS_atSend

  /** Stage 1 write requests (to the address read in stage 0). */
  val ctrlWrite     = Bool()
  val ctrlWriteData = Bits(width bits)
  val sendWrite     = Bool()
  val sendWriteData = Bits(width bits)
  /** Initialisation sweep: sets value(sweepAddr) = sweepData using both banks. */
  val sweepWrite = Bool()
  val sweepAddr  = UInt(addrWidth bits)
  val sweepData  = Bits(width bits)

  writeC.valid := ctrlWrite || sweepWrite
  writeC.addr  := Mux(sweepWrite, sweepAddr, ctrlAddr1)
  writeC.data  := Mux(sweepWrite, sweepData, ctrlWriteData ^ physS_atCtrl)
  writeS.valid := sendWrite || sweepWrite
  writeS.addr  := Mux(sweepWrite, sweepAddr, sendAddr1)
  writeS.data  := Mux(sweepWrite, B(0, width bits), sendWriteData ^ physC_atSend)

  for (m <- bankC) m.write(writeC.addr, writeC.data, writeC.valid)
  for (m <- bankS) m.write(writeS.addr, writeS.data, writeS.valid)
}

case class StateWrite(addrWidth: Int, width: Int) extends Bundle {
  val valid = Bool()
  val addr = UInt(addrWidth bits)
  val data = Bits(width bits)
}
