// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import spinal.lib._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The Swift law (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) on the window-unit skeleton: the event
 * stages 1-15 (SwiftEventStages), the update loop S1-S4 (SwiftLoop), each window's rule table
 * (SwiftRules, SwiftRuleDecision), and here the new state, the pacing delay after W and what W
 * reports and counts. The arithmetic is uehw.model.swift.SwiftFixedModel's, bit for bit.
 */
class SwiftLaw(cfg: SwiftConfig, unit: WindowUnit[SwiftEvent, SwiftFlowState, SwiftUpdate])
    extends SwiftLawBase(cfg, unit) with SwiftRuleDecision {
  import Swift._

  /** S4: the picked windows and the new state. */
  val decide = new Area {
    import rules._
    /** A window's picked candidate (RulePick: the window, its clamp flags, line 27's decrease as the extra bit). */
    private def picked(p: RulePick): Candidate = {
      val c = Candidate()
      c.cwnd := p.window.cwnd
      c.high := p.window.high
      c.low := p.window.low
      c.decrease := p.extra(0)
      c
    }
    val fabricNew = picked(fabricPick)
    val endpointNew = picked(endpointPick)
    private val s = s4.s
    private val now = carry(event.now, Stage.S4)

    private def windowNext(old: CarriedWindow, c: Candidate): SwiftWindowState = {
      val w = SwiftWindowState()
      w.cwnd := c.cwnd
      w.last := Mux(c.decrease, now, old.last)                                              // line 27
      w.decreased := old.decreased || c.decrease
      w
    }
    val next = SwiftFlowState(cfg)
    next.fabric := windowNext(s.fabric, fabricNew)
    next.endpoint := windowNext(s.endpoint, endpointNew)
    next.fs := s4.fs
    next.retx := carry(s1.retx1, Stage.S4)
    next.rtt := Mux(isAck, carry(event.rtt, Stage.S4), s.rtt)
    when(isInit) {
      for (w <- Seq(next.fabric, next.endpoint)) {
        w.cwnd := derived.initWindow
        w.last := 0
        w.decreased := False
      }
      next.rtt := 0
    }
    val initState = SwiftFlowState(cfg)
    for (w <- Seq(initState.fabric, initState.endpoint)) {
      w.cwnd := SwiftDefaults.initWindow
      w.last := 0
      w.decreased := False
    }
    initState.fs := SwiftDefaults.initFs
    initState.retx := 0
    initState.rtt := 0
    val high = (fabricNew.high || endpointNew.high) && !isInit
    val low = (fabricNew.low || endpointNew.low) && !isInit
  }

  def busy: Bool = False
  def next: SwiftFlowState = decide.next
  def initState: SwiftFlowState = decide.initState
  def queryValue(state: SwiftFlowState): UInt = Mux(state.fabric.cwnd < state.endpoint.cwnd, state.fabric.cwnd, state.endpoint.cwnd)

  /** After W: the effective window's pacing delay (lines 29-32), then the update. */
  val pacing = new Area {
    private val w = born(Stage.W)(written.state)
    val cwnd = RegNext(queryValue(w))                                                        // W + 1
    private val leading = RegNext(leadingOne(cwnd, minWindowLog2))                          // W + 2
    private val cwndFull = RegNext(cwnd)
    private val (index, msb) = WindowArith.recipIndex(cwndFull.resize(CW - 1), leading, minWindowLog2, I)
    private val r = RegNext(recipRom.readSync(RegNext(index)))                               // W + 5
    private val rtt = carry(w.rtt, Stage.W + 5)
    private val product = RegNext(rtt * r)                                                   // W + 6: rtt x 1/cwnd
    private val msbAt6 = carry(born(Stage.W + 2)(msb), Stage.W + 6)
    private val shifted = RegNext((product << pacingOffset) >> msbAt6)                        // W + 7: >> (msb - 3)
    private val below = carry(born(Stage.W + 1)(cwnd < one), Stage.W + 7)
    val saturated = RegNext(below && shifted(shifted.getWidth - 1 downto 32) =/= 0)           // W + 8
    val delay = RegNext(Mux(!below, U(0, 32 bits), satTo(shifted, U(0xFFFFFFFFL, 32 bits), 32)))
  }

  /** What stage W reports besides the skeleton's. */
  val report = new Area {
    private def w[T <: Data](x: T): T = RegNext(x)
    val fabric = w(fabricPick.code)
    val endpoint = w(endpointPick.code)
    val high = w(decide.high)
    val low = w(decide.low)
    val rttZero = w(event.rttZero); val endpointAboveRtt = w(event.endpointAboveRtt); val hopsOver = w(event.hopsOver)
  }

  def finish(r: WindowReport): Unit = {
    import CsrCounters.count
    import report._
    val ok = r.ok
    val measured = ok && !r.isInit
    fabricPick.countRules(csr.byRule, measured, fabric)             // the tables' counters, by code
    endpointPick.countRules(csr.byRule, measured, endpoint)
    count(csr.HELD, measured && (fabric === Change.NONE || endpoint === Change.NONE)) // either window
    count(csr.RTT_ZERO, ok && r.isAck && rttZero)
    count(csr.ENDPOINT_ABOVE_RTT, ok && r.isAck && endpointAboveRtt)
    count(csr.HOPS_CLAMPED, ok && r.isAck && hopsOver)
    count(csr.CLAMPED_MAX, ok && high)
    count(csr.CLAMPED_MIN, ok && low)
    // the update, pacingStages after W
    def late[T <: Data](x: T): T = Delay(x, pacingStages)
    val valid = Delay(r.ok, pacingStages, init = False)
    val update = unit.io.update
    update.valid := valid
    update.flow := late(r.flow)
    update.cwnd := Delay(pacing.cwnd, pacingStages - 1)
    update.fabricCwnd := late(written.state.fabric.cwnd)
    update.endpointCwnd := late(written.state.endpoint.cwnd)
    update.rule := late(endpoint @@ fabric)
    update.pacing := pacing.delay
    count(csr.PACED, valid && pacing.delay =/= 0)
    count(csr.PACING_SATURATED, valid && pacing.saturated)
  }
}
