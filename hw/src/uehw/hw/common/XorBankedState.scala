// SPDX-License-Identifier: Apache-2.0
package uehw.hw.common

import spinal.core._

/**
 * Per-key state in block RAM with two read-modify-write ports per clock ("ctrl" and "send"),
 * pipelined so that no block-RAM access sits on a logic path:
 *
 *  - stage 0: the read addresses (and whether each port's operation will write) are presented;
 *  - stage 1: the RAMs' words arrive and are combined with the writes two and three ahead;
 *  - stage 2: `ctrlValue` / `sendValue` are the current logical values (forwarded from the
 *    writes still in flight); the caller computes `ctrlResult` / `sendResult`;
 *  - stage 3: the results are written.
 *
 * Two writers per clock cannot share one BRAM, so the logical word is split in two banks,
 * value(k) = bankC(k) ^ bankS(k): the ctrl port writes only bankC, the send port only bankS,
 * each writing `newValue ^ otherBank(k)` (the XOR multi-port memory of LaForest et al.,
 * FPGA'12). Each bank needs two reads per clock (one per port), so it is stored twice: four
 * 1W1R RAMs in all.
 *
 * A read issued in stage 0 misses the writes of the three operations ahead of it (the one
 * writing on the same edge as the read, and the two after). They are forwarded: the logical
 * results for the caller's stage-2 value, the physical bank words for the stage-3 XOR. Which
 * of them hits is decided from the stage-0 addresses and registered; stage 1 combines the RAM
 * word with the older two, so stage 2 only selects between that and the operation one ahead.
 * The result of the operation one ahead reaches stage 2 straight from its stage-3 register:
 * that select plus the caller's update is the only one-clock loop.
 *
 * When both ports address the same key in one clock the caller merges the two operations and
 * writes through the ctrl port only (`sendWrites` must then be False).
 */
class XorBankedState(width: Int, depth: Int) extends Area {
  private val addrWidth = log2Up(depth)
  private def bank() = Mem(Bits(width bits), depth)
  private val bankC = Seq.fill(2)(bank())
  private val bankS = Seq.fill(2)(bank())

  /** Stage 0: read addresses, and whether each port writes its address in stage 3. */
  val ctrlReadAddr = UInt(addrWidth bits)
  val sendReadAddr = UInt(addrWidth bits)
  val ctrlWrites = Bool()
  val sendWrites = Bool()

  /** Stage 2: the new logical values, written in stage 3. */
  val ctrlResult = Bits(width bits)
  val sendResult = Bits(width bits)

  /** Initialisation sweep: sets value(sweepAddr) = sweepData using both banks (no operation in flight). */
  val sweepWrite = Bool()
  val sweepAddr = UInt(addrWidth bits)
  val sweepData = Bits(width bits)

  /** One port's operation as it moves down the pipeline: its address and whether it writes. */
  private case class PortOp(addr: UInt, writes: Bool) {
    def next: PortOp = PortOp(RegNext(addr), RegNext(writes) init (False))
  }
  private val ctrlOps = Iterator.iterate(PortOp(ctrlReadAddr, ctrlWrites))(_.next).take(4).toSeq
  private val sendOps = Iterator.iterate(PortOp(sendReadAddr, sendWrites))(_.next).take(4).toSeq

  // Stage 3: the logical results and (below) the physical words written; the logical results of
  // the operation that wrote on the previous edge are kept one clock more.
  private val ctrlResult3 = RegNext(ctrlResult)
  private val sendResult3 = RegNext(sendResult)
  private val ctrlResult4 = RegNext(ctrlResult3)
  private val sendResult4 = RegNext(sendResult3)
  private val writeC = StateWrite(addrWidth, width)
  private val writeS = StateWrite(addrWidth, width)
  private val writeC4 = RegNext(writeC.data)
  private val writeS4 = RegNext(writeS.data)

  /**
   * One read port's forwarding: KeyedForwarding over the two writers (the ctrl and send ports,
   * three stages from read to write), for the logical value and for each bank's physical word
   * (a bank's word has one writer).
   */
  private class ReadPort(addr0: UInt, ramC: Mem[Bits], ramS: Mem[Bits]) {
    private val network = new KeyedForwarding(addr0, 3, 1, Seq(j => KeyedOp(ctrlOps(j).writes, ctrlOps(j).addr),
      j => KeyedOp(sendOps(j).writes, sendOps(j).addr)))
    // Stage 1: the RAM words arrive (no output register: one LUT level follows) and are combined
    // with the writes of the operations two and three ahead, now in stages 3 and 4.
    private val ramWordC = ramC.readSync(addr0)
    private val ramWordS = ramS.readSync(addr0)
    private val older2 = network.stored(ramWordC ^ ramWordS, Seq(WrittenWords(0, ctrlResult3, ctrlResult4),
      WrittenWords(1, sendResult3, sendResult4)))
    private val olderC2 = network.stored(ramWordC, Seq(WrittenWords(0, writeC.data, writeC4)))
    private val olderS2 = network.stored(ramWordS, Seq(WrittenWords(1, writeS.data, writeS4)))
    private val newest = Seq(0 -> ctrlResult3, 1 -> sendResult3)

    /**
     * Stage 2: `f` of the current logical value, computed on every candidate (each starts at a
     * register) and then selected: the operation one ahead is in stage 3.
     */
    def forwarded[T <: Data](f: Bits => T): T = network.currentOf(older2, newest)(f)
    val value: Bits = network.current(older2, newest)

    /** Stage 2: the current physical word of bank C / bank S (the write one ahead, or older). */
    val currentC: Bits = network.current(olderC2, Seq(0 -> writeC.data))
    val currentS: Bits = network.current(olderS2, Seq(1 -> writeS.data))
  }

  private val atCtrl = new ReadPort(ctrlReadAddr, bankC(0), bankS(0))
  private val atSend = new ReadPort(sendReadAddr, bankC(1), bankS(1))

  /** Stage 2: the current logical value at the ctrl / send read address. */
  val ctrlValue: Bits = atCtrl.value
  val sendValue: Bits = atSend.value
  /**
   * Stage 2: a function of the ctrl port's current value, computed before the forwarding select
   * rather than after it: keeps e.g. a wide compare of a stored field off the one-clock loop.
   */
  def ctrlDerived[T <: Data](f: Bits => T): T = atCtrl.forwarded(f)

  // Stage 3: each port XORs its new value with the other bank's current word at its address.
  private val otherS3 = RegNext(atCtrl.currentS)
  private val otherC3 = RegNext(atSend.currentC)
  writeC.valid := ctrlOps(3).writes || sweepWrite
  writeC.addr := Mux(sweepWrite, sweepAddr, ctrlOps(3).addr)
  writeC.data := Mux(sweepWrite, sweepData, ctrlResult3 ^ otherS3)
  writeS.valid := sendOps(3).writes || sweepWrite
  writeS.addr := Mux(sweepWrite, sweepAddr, sendOps(3).addr)
  writeS.data := Mux(sweepWrite, B(0, width bits), sendResult3 ^ otherC3)

  for (m <- bankC) m.write(writeC.addr, writeC.data, writeC.valid)
  for (m <- bankS) m.write(writeS.addr, writeS.data, writeS.valid)
}

case class StateWrite(addrWidth: Int, width: Int) extends Bundle {
  val valid = Bool()
  val addr = UInt(addrWidth bits)
  val data = Bits(width bits)
}
