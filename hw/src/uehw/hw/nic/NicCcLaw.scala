// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nic

import spinal.core._
import spinal.lib._
import uehw.hw.nscc.{Nscc, NsccConfig}
import uehw.hw.smartt.{Smartt, SmarttConfig}
import uehw.hw.swift.{Swift, SwiftConfig}
import uehw.hw.window.{WindowEvent, WindowUnit}

/**
 * A control event as the engine hands it to its law (stage 4, then the law's FIFO), before the law's
 * own format (docs/nic-engine.md, "The law").
 */
case class NicCcLawInput(flowBits: Int, withPackets: Boolean) extends Bundle {
  val flow = UInt(flowBits bits)
  /** WindowEvent's kinds: ACK, NACK, INIT. */
  val kind = UInt(2 bits)
  /** ACK: bytes newly acknowledged (cumulative count less the last one); NACK: the trimmed packet's wire bytes. */
  val bytes = UInt(32 bits)
  /** ACK: now - the echoed timestamp (ns), 0 for NACK and INIT. */
  val rtt = UInt(32 bits)
  val ecn, lastHop = Bool()
  val rcvWndPen = UInt(8 bits)
  /** The flow's bytes in flight two edges after the frame's stage 1 (NicCcFlows' query). */
  val inFlight = UInt(32 bits)
  /** Swift: the ACK's bytes in packets u6.7 before the clamp, floor(min(bytes, 2^capBits - 1) x R / 2^shift). */
  val packets = if (withPackets) UInt(NicCcLaw.packetsBits bits) else null
}

/** A law's new window in bytes, for the flow state's op port. */
case class NicCcWindow(flowBits: Int) extends Bundle {
  val flow = UInt(flowBits bits)
  val bytes = UInt(NicCcFlows.counterBits bits)
}

/**
 * The window law behind the engine: the unit, how the engine's input becomes the law's event
 * (combinational, between the law's FIFO and the unit) and how the law's update becomes a window in
 * bytes (`windowStages` registers). One subclass per law; `NicCcLaw(cfg)` picks it.
 */
abstract class NicCcLaw {
  type E <: Bundle with WindowEvent
  type U <: Bundle
  def unit: WindowUnit[E, _, U]
  /** The register map's prefix in the generated register docs. */
  def regsPrefix: String
  /** Clock edges from an event's acceptance to its update (no same-flow wait). */
  def latency: Int
  /** The law's event for one input. */
  def event(in: NicCcLawInput): E
  /** Registers between the update and the window. */
  def windowStages: Int
  def window(update: Flow[U]): Flow[NicCcWindow]
  /** The input carries `packets` (Swift's acked). */
  def withPackets: Boolean = false
  /** A saturated narrowing (all ones above the range). */
  protected def sat(x: UInt, bits: Int): UInt =
    if (x.getWidth <= bits) x.resize(bits)
    else Mux(x(x.getWidth - 1 downto bits).orR, U((BigInt(1) << bits) - 1, bits bits), x(bits - 1 downto 0))
}

object NicCcLaw {
  /** Swift's acked, u6.7 packets (SwiftEvent.acked), and the multiply's product bits kept. */
  val packetsBits = 13
  /** Registers of a window whose update is already in bytes: the width cut only. */
  def bytesWindow(flow: UInt, cwnd: UInt, valid: Bool, flowBits: Int): Flow[NicCcWindow] = {
    val w = Flow(NicCcWindow(flowBits))
    w.valid := valid
    w.flow := flow.resize(flowBits)
    w.bytes := cwnd.resize(NicCcFlows.counterBits)
    w
  }
  def apply(cfg: NicCcConfig): NicCcLaw = cfg.law match {
    case "nscc" => new NicCcNscc(cfg)
    case "smartt" => new NicCcSmartt(cfg)
    case "swift" => new NicCcSwift(cfg)
  }
}

/** NSCC (uec.cpp's law): bytes, RTT and bytes in flight saturate to its window width; its window is in bytes. */
class NicCcNscc(cfg: NicCcConfig) extends NicCcLaw {
  type E = uehw.hw.nscc.NsccEvent
  type U = uehw.hw.nscc.NsccUpdate
  val unit = new Nscc(cfg.nscc)
  def regsPrefix = "NSCC"
  def latency: Int = Nscc.latency
  def event(in: NicCcLawInput): E = {
    val e = uehw.hw.nscc.NsccEvent(cfg.nscc)
    e.flow := in.flow.resized
    e.kind := in.kind
    e.bytes := sat(in.bytes, Nscc.windowBits)
    e.rtt := sat(in.rtt, Nscc.windowBits)
    e.ecn := in.ecn
    e.lastHop := in.lastHop
    e.rcvWndPen := in.rcvWndPen
    e.inFlight := sat(in.inFlight, Nscc.windowBits)
    e
  }
  def windowStages = 0
  def window(u: Flow[U]): Flow[NicCcWindow] = NicCcLaw.bytesWindow(u.flow, u.cwnd, u.valid, cfg.flowBits)
}

/**
 * SMaRTT: an ACK's size is the bytes it newly acknowledges (the law takes above MTU as MTU), a
 * NACK's the packet's wire bytes; its unacked is the bytes in flight; its window is in bytes.
 */
class NicCcSmartt(cfg: NicCcConfig) extends NicCcLaw {
  type E = uehw.hw.smartt.SmarttEvent
  type U = uehw.hw.smartt.SmarttUpdate
  val unit = new Smartt(cfg.smartt)
  def regsPrefix = "SMARTT"
  def latency: Int = Smartt.latency
  def event(in: NicCcLawInput): E = {
    val c = cfg.smartt
    val e = uehw.hw.smartt.SmarttEvent(c)
    e.flow := in.flow.resized
    e.kind := in.kind
    e.size := sat(in.bytes, 16)
    e.rtt := sat(in.rtt, c.rttWidth)
    e.ecn := in.ecn
    e.unacked := sat(in.inFlight, c.byteWidth)
    e
  }
  def windowStages = 0
  def window(u: Flow[U]): Flow[NicCcWindow] = NicCcLaw.bytesWindow(u.flow, u.cwnd, u.valid, cfg.flowBits)
}

/**
 * Swift: windows in packets. An ACK's acked is its newly acknowledged bytes over the MTU, u6.7
 * (`packets`, from a multiply at stage 4); the frames carry no endpoint delay or hop count (both 0:
 * the endpoint window sees no delay, topology scaling adds nothing). The window in bytes is
 * max(cwnd, 1 packet) x MTU: pacing below one packet (the update's pacing) is not applied.
 */
class NicCcSwift(cfg: NicCcConfig) extends NicCcLaw {
  type E = uehw.hw.swift.SwiftEvent
  type U = uehw.hw.swift.SwiftUpdate
  val unit = new Swift(cfg.swift)
  def regsPrefix = "SWIFT"
  def latency: Int = Swift.latency
  override def withPackets = true
  def event(in: NicCcLawInput): E = {
    val c = cfg.swift
    val e = uehw.hw.swift.SwiftEvent(c)
    e.flow := in.flow.resized
    e.kind := in.kind
    e.rtt := sat(in.rtt, c.delayWidth)
    e.endpointDelay := 0
    e.hops := 0
    e.acked := in.packets
    e
  }
  def windowStages = 2
  def window(u: Flow[U]): Flow[NicCcWindow] = {
    // stage 1: at least one packet (u9.17); stage 2: times the MTU (a DSP, its output registered)
    val one = U(BigInt(1) << Swift.cwndFrac, Swift.cwndBits bits)
    val v1 = RegNext(u.valid) init (False)
    val f1 = RegNext(u.flow)
    val c1 = RegNext(Mux(u.cwnd < one, one, u.cwnd))
    val w = Flow(NicCcWindow(cfg.flowBits))
    w.valid := RegNext(v1) init (False)
    w.flow := RegNext(f1).resize(cfg.flowBits)
    // the full product registered (its fraction bits dropped by design: *Full, hw/lint/spinal-waivers.vlt)
    val product = RegNext(c1 * U(cfg.mtu, 16 bits)).setName("lawQueue_swiftWindowFull")
    w.bytes := product(product.getWidth - 1 downto Swift.cwndFrac).resize(NicCcFlows.counterBits)
    w
  }
}
