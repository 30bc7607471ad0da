// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/** One congestion event for a flow. `kind`: 0 ACK, 1 NACK of a trimmed packet (fast recovery), 2 retransmission timeout, 3 INIT. */
case class SwiftEvent(cfg: SwiftConfig) extends Bundle with WindowEvent {
  val flow = UInt(cfg.flowIdWidth bits)
  val kind = UInt(2 bits)
  /** Measured RTT in ns (ACKs). */
  val rtt = UInt(cfg.delayWidth bits)
  /** The endpoint (NIC-to-host) delay the ACK carried, ns (Sec. 3.3). */
  val endpointDelay = UInt(cfg.delayWidth bits)
  /** Forward hops (a TTL difference); above 15 acts as 15 (counted). */
  val hops = UInt(8 bits)
  /** Packets this ACK acknowledges, u6.7 (num_acked, Alg. 1 line 8; ai x acked is then a 26-bit DSP operand). */
  val acked = UInt(13 bits)
}

/** The windows after one event, for the transmit scheduler. */
case class SwiftUpdate(cfg: SwiftConfig) extends Bundle {
  val flow = UInt(cfg.flowIdWidth bits)
  /** min(fabric, endpoint) window, packets u9.17 (Sec. 3.3). */
  val cwnd = UInt(Swift.cwndBits bits)
  val fabricCwnd = UInt(Swift.cwndBits bits)
  val endpointCwnd = UInt(Swift.cwndBits bits)
  /** What the event did to each window: bits 1:0 fabric, 3:2 endpoint; 0 none, 1 increase, 2 decrease, 3 reset to MIN_CWND. */
  val rule = UInt(4 bits)
  /** Below one packet, the gap between packets rtt / cwnd in ns (Alg. 1 lines 29-32), else 0; saturates at 2^32 - 1. */
  val pacing = UInt(32 bits)
}

/** One of the two windows' state (Alg. 1 per window, Sec. 3.3). */
case class SwiftWindowState() extends Bundle {
  val cwnd = UInt(Swift.cwndBits bits)     // packets u9.17
  val last = UInt(Swift.timeBits bits)     // t_last_decrease, ns modulo 2^32
  val decreased = Bool()                   // a decrease happened (else any time may decrease)
}

/**
 * What the flow's next event needs of the windows an event wrote, found after the update loop
 * (SwiftLaw.tables) and kept in a RAM of its own: 1/w ~ recip / 2^(14 + msb) of both windows, and
 * flow scaling's table value t_p[i] of the fabric window (i its 8 bits below the leading one, p the parity).
 */
case class SwiftWindowTables() extends Bundle {
  val fabricRecip = UInt(Swift.recipValue bits)
  val fabricMsb = UInt(5 bits)
  val endpointRecip = UInt(Swift.recipValue bits)
  val endpointMsb = UInt(5 bits)
  val fabricRsqrt = UInt(Swift.rsqrtValue bits)
}

/** The per-flow state in block RAM. */
case class SwiftFlowState(cfg: SwiftConfig) extends Bundle {
  val fabric = SwiftWindowState()
  val endpoint = SwiftWindowState()
  val fs = UInt(16 bits)                        // Sec. 3.5 flow scaling (ns) of the fabric window the last event read
  val retx = UInt(3 bits)                       // retransmit_cnt
  val rtt = UInt(cfg.delayWidth bits)           // the last ACK's RTT (timeouts' once-per-RTT, the pacing delay)
}

object Swift {
  val cwndFrac = 17
  val cwndBits = 26
  val gainFrac = 15
  val aiFrac = 9
  val ackedFrac = 7
  val ewmaFrac = 4
  val timeBits = 32
  val recipIndex = 10
  val recipValue = 14
  val rsqrtIndex = 8
  val rsqrtValue = 14
  val g = 16
  val minWindowLog2 = 7
  /** (ai x acked x recip) >> (msb - this) is the increase in window units. */
  val increaseOffset: Int = 2 * cwndFrac - aiFrac - ackedFrac - recipValue
  /** (rtt x recip) >> (msb - this) is rtt / cwnd in ns. */
  val pacingOffset: Int = cwndFrac - recipValue
  val maxHops = 15
  /** The update loop's first stage: stages 1-15 compute what depends only on the event and the CSRs. */
  val loopStart = 16
  /** Clocks from the update loop's write stage W to the update on io.update (the pacing delay). */
  val pacingStages = 8
  /** Clock edges from an event's acceptance to its update (no same-flow wait): W + the pacing stages. */
  val latency: Int = loopStart + 4 + pacingStages + 1
  /**
   * Minimum same-flow spacing in clocks: the four-clock update loop, then two clocks that find the
   * reciprocals and 1/sqrt of the windows written (SwiftLaw.tables), for the next event.
   */
  val sameFlowSpacing = 6

  /** 1/sqrt(2^(p & 1) (1 + (i + 1/2) / 2^8)) in u0.14 per parity of the leading one (SwiftFixedModel.rsqrtTables). */
  val rsqrtTable: Seq[Seq[BigInt]] = (0 until 2).map { odd =>
    (0 until (1 << rsqrtIndex)).map { i =>
      val x = (1 + (i + 0.5) / (1 << rsqrtIndex)) * (if (odd == 1) 2 else 1)
      BigInt(scala.math.round((1L << rsqrtValue) / scala.math.sqrt(x)))
    }
  }

  /** What an event did to a window (`io_update_rule`, two bits a window): the rows of `SwiftRules`. */
  object Change {
    val NONE = SwiftRules.fabric.Held.code; val INCREASE = SwiftRules.fabric.Increase.code
    val DECREASE = SwiftRules.fabric.Decrease.code; val RESET = SwiftRules.fabric.Reset.code
  }
}

/** Swift as a window law: its formats and where its loop starts. */
class SwiftSpec(val cfg: SwiftConfig) extends WindowLawSpec[SwiftEvent, SwiftFlowState, SwiftUpdate] {
  def definitionName = "uehw_swift"
  def busName = "SWIFT"
  def blockId = 0x57
  def infoFields = Seq(("CWND_FRAC", Swift.cwndFrac, "Window fraction bits (packets u9.17)"),
    ("DELAY_WIDTH", cfg.delayWidth, "Delay and RTT width"))
  def flows = cfg.flows
  def flowIdWidth = cfg.flowIdWidth
  def timeWidth = cfg.timeWidth
  def eventType = SwiftEvent(cfg)
  def stateType = SwiftFlowState(cfg)
  def updateType = SwiftUpdate(cfg)
  def queryWidth = Swift.cwndBits
  def loopStart = Swift.loopStart
  override def sameFlowSpacing: Int = Swift.sameFlowSpacing
  def build(unit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate]) = new SwiftLaw(cfg, unit)
}

/**
 * Swift window unit (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) for N flows, one event per clock
 * across flows: the Swift law on the window-unit skeleton (docs/window-unit.md, docs/swift.md).
 */
class Swift(val cfg: SwiftConfig) extends WindowUnit(new SwiftSpec(cfg))
