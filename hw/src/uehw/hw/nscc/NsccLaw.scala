// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nscc

import spinal.core._
import spinal.lib._
import spinal.lib.bus.regif._
import uehw.hw.common._
import uehw.hw.window._
import uehw.hw.window.WindowArith._

/**
 * The NSCC law (uet-htsim 40ccb05 uec.cpp, as uehw.model.nscc.NsccFixedModel specifies it bit for
 * bit) on the window-unit skeleton: the event stages 1-7 (what depends on the event and the CSRs
 * alone), then one update loop of 37 clocks, L1-L37 (docs/nscc.md "Pipeline"): the state read at
 * L1, the base RTT, the delay and the byte counts (L1-L3), QuickAdapt and the rule's case (L4),
 * the pending increase (L4-L10), the average delay (L4-L9), the decrease factor and cwnd x factor
 * (L10-L25), the rule table's pick (L25-L26), the bounds (L27), the fulfill (L28-L36) and the
 * bounds again (L37). A flow's events are 37 clocks apart (the skeleton's same-flow spacing); the
 * flows' events one a clock.
 */
class NsccLaw(cfg: NsccConfig, unit: WindowUnit[NsccEvent, NsccFlowState, NsccUpdate])
    extends WindowLaw[NsccFlowState, NsccUpdate] {
  import Nscc._
  private val W = windowBits
  private val windowMax = (BigInt(1) << W) - 1
  private val S1 = unit.Stage.S1
  require(S1 == loopStart && unit.Stage.S4 == S1 + loopLength - 1, "the event stages fill 1-7; the loop is L1-L37")
  /** Loop stage i (L1 = S1). */
  private def L(i: Int): Int = S1 + i - 1
  private def born[T <: Data](stage: Int)(x: T): T = unit.born(stage)(x)
  private def carry[T <: Data](x: T, to: Int): T = unit.carry(x, to)
  /** x >> n as a slice (a shift by a constant emits a width Verilator's lint flags). */
  private def drop(x: UInt, n: Int): UInt = x(x.getWidth - 1 downto n)
  private def sat(x: UInt): UInt = Mux(x(x.getWidth - 1 downto W).orR, U(windowMax, W bits), x(W - 1 downto 0))

  /**
   * a x b, a and b registers at one stage: b cut in 17-bit pieces, a in 24-bit ones (WindowArith.products,
   * each product with its DSP's M and P registers), summed pairwise with a register a level.
   * Returns the product and its latency in clocks.
   */
  private def multiply(a: UInt, b: UInt, name: String): (UInt, Int) = {
    val width = a.getWidth + b.getWidth
    val parts = (0 until b.getWidth by 17).flatMap { lo =>
      products(a, b(scala.math.min(b.getWidth, lo + 17) - 1 downto lo), s"${name}_$lo", bShift = lo, registers = 2)
    }
    var level: Seq[UInt] = parts.map { case (p, lo) => if (lo == 0) p.resize(width) else (p.resize(width - lo) @@ U(0, lo bits)) }
    var latency = 2
    do {
      level = level.grouped(2).map(g => RegNext(g.reduce(_ + _))).toSeq
      latency += 1
    } while (level.size > 1)
    (level.head.setName(s"${name}_productFull"), latency)
  }

  // ---------------------------------------------------------------- CSRs
  val csr = new Area {
    private val d = cfg.defaults
    private def value[T <: BaseType](name: String, address: Int, doc: String, t: HardType[T], reset: BigInt, units: String): T =
      unit.csrValue(name, address, doc, t, reset, units)
    private val control = unit.csrRegister("CONTROL", 0x08, "Switches")
    val receiverCc = control.field(Bool(), AccessType.RW, 0,
      doc = "RCCC beside NSCC: a NACK of a last-hop trim leaves the window (uec.cpp:1380)")(SymbolName("RECEIVER_CC"))
    val baseRttOnNack = control.field(Bool(), AccessType.RW, 1,
      doc = "A NACK's RTT sample lowers the base RTT (update_base_rtt_on_nack, uec.cpp:76, :1568)")(SymbolName("BASE_RTT_ON_NACK"))
    val mtu = value("MTU", 0x0C, "MTU: the window's floor, QuickAdapt's floor, a NACK's size cap (uec.cpp:102); below 65 acts as 65",
      UInt(16 bits), d.mtu, "bytes")
    val target = value("TARGET", 0x10, "T, the target queuing delay (uec.cpp:104-112); below 1 ns acts as 1 ns", UInt(32 bits), d.target, "ns u24.8")
    val qaThreshold = value("QA_THRESHOLD", 0x14, "QuickAdapt's delay trigger, 4 T (uec.cpp:119)", UInt(26 bits), d.qaThresholdNs, "ns")
    val qaGate = value("QA_GATE", 0x18, "QuickAdapt fires only while achieved < maxwnd >> QA_GATE (uec.cpp:114-118); above 23 acts as 23",
      UInt(5 bits), d.qaGate, "shift")
    val networkRtt = value("NETWORK_RTT", 0x1C, "The fulfill period and a NACK's delay sample (uec.cpp:98, :134, :1369); below 1 ns acts as 1 ns",
      UInt(32 bits), d.networkRtt, "ns u24.8")
    val adjustBytes = value("ADJUST_BYTES", 0x20, "Fulfill after more than this many acked bytes, 8 MTU (uec.cpp:135)", UInt(W bits),
      d.adjustBytes, "bytes")
    val alpha = value("ALPHA", 0x24, "Proportional increase gain: bytes per acked byte per ns below T (uec.cpp:124)", UInt(25 bits),
      d.alpha, "u5.20")
    val fi = value("FI", 0x28, "Fair increase gain (uec.cpp:125)", UInt(26 bits), d.fi, "bytes u18.8")
    val eta = value("ETA", 0x2C, "Bytes added once a network RTT (uec.cpp:126, truncated)", UInt(16 bits), d.eta, "bytes")
    val fiScale = value("FI_SCALE", 0x30, "FastIncrease's bytes per acked byte (uec.cpp:130)", UInt(24 bits), d.fiScale, "u4.20")
    val gamma = value("GAMMA", 0x34, "Multiplicative decrease gain (uec.cpp:129); above 1 acts as 1", UInt(17 bits), d.gamma, "u1.16")
    val delayAlpha = value("DELAY_ALPHA", 0x38, "The average delay's EWMA weight (uec.cpp:132); above 1 acts as 1", UInt(21 bits),
      d.delayAlpha, "u1.20")
    val bytesPerNs = value("BYTES_PER_NS", 0x3C, "BDP per ns of base RTT, link speed / 8 (uec.cpp:1392)", UInt(26 bits), d.bytesPerNs, "bytes u10.16")
    val fastDelay = value("FAST_DELAY", 0x40, "FastIncrease's delay bound (uec.cpp:1222: 1 us)", UInt(W bits), d.fastDelayNs, "ns")
    val initBaseRtt = value("INIT_BASE_RTT", 0x44, "A new flow's base RTT, the network RTT (uec.cpp:863)", UInt(W bits), d.initBaseRtt, "ns")
    val initCwnd = value("INIT_CWND", 0x48, "A new flow's window; 0: 1.5 BDP of INIT_BASE_RTT (uec.cpp:166-173)", UInt(W bits), 0, "bytes")
    private val status = unit.csrRegister("STATUS", 0x4C, "Status")
    unit.initDoneField(status)

    private val counters = unit.csrCounters(0x60)
    unit.addOutOfRangeCounter(counters)
    private def ruleCounter(r: LawRule): UInt = { val c = r.counter.get; counters.counter(c.doc)(SymbolName(c.name)) }
    val byRule: Map[LawRule, UInt] = NsccRules.table.countedByCode.map(r => r -> ruleCounter(r)).toMap
    import counters.counter
    val FULFILLS = counter("ACKs that fulfilled the pending increase (uec.cpp:1341, 1257-1295)")
    val ETAS = counter("Fulfills that added eta, a network RTT after the last (uec.cpp:1262)")
    val BASE_RTT_LOWERED = counter("Events whose RTT sample lowered the base RTT (uec.cpp:1389-1400)")
    val NO_RTT_SAMPLE = counter("ACKs without an RTT sample (rtt = 0: the average delay stands for it, uec.cpp:1003)")
    val ZERO_BYTES = counter("Non-INIT events with bytes = 0")
    val OVER_MTU = counter("NACKs and timeouts with bytes above MTU (taken as MTU)")
    val INC_SATURATED = counter("Increases that saturated the pending increase at 2^44 - 1")
  }

  // ------------------------------------------- values derived from the CSRs (registered)
  val derived = new Area {
    private val d = cfg.defaults
    val mtu = RegNext(csr.mtu.max(U(65, 16 bits)).resize(W)) init (d.mtu)
    val target = RegNext(csr.target.max(U(256, 32 bits))) init (d.target)
    val targetNs = RegNext(target(31 downto 8)) init (d.target >> 8)
    val networkRtt = RegNext(csr.networkRtt.max(U(256, 32 bits))) init (d.networkRtt)
    val qaGate = RegNext(csr.qaGate.min(U(23, 5 bits))) init (d.qaGate)
    val gamma = RegNext(csr.gamma.min(U(1 << gammaFrac, 17 bits))) init (d.gamma)
    val delayAlpha = RegNext(csr.delayAlpha.min(U(1 << delayAlphaFrac, 21 bits))) init (d.delayAlpha)
    /** delayAlpha x 2^12: the EWMA's product is taken of the difference plus 2^32 (docs/nscc.md). */
    val delayAlphaOffset = RegNext(delayAlpha @@ U(0, 12 bits))
    /** The initial window: 1.5 BDP of INIT_BASE_RTT, or INIT_CWND (about 8 clocks after a write). */
    private val initBase = RegNext(csr.initBaseRtt)
    private val perNs = RegNext(csr.bytesPerNs)
    private val (initProduct, _) = multiply(initBase, perNs, "initBdp")
    private val initBdp = RegNext(sat(drop(initProduct, bytesPerNsFrac)))
    val initMaxwnd = RegNext(sat(initBdp.resize(W + 1) + drop(initBdp, 1)))
    val initWindow = RegNext(Mux(csr.initCwnd === 0, initMaxwnd, csr.initCwnd))
  }

  // ------------------------------------------------------------- the event stages 1-7
  val ev = new Area {
    private val e = unit.stage1.e
    val now = unit.stage1.now
    val isAck = born(1)(e.kind === WindowEvent.ACK)
    val isNack = born(1)(e.kind === WindowEvent.NACK)
    val isTimeout = born(1)(e.kind === WindowEvent.TIMEOUT)
    val isInit = born(1)(e.kind === WindowEvent.INIT)
    val ecn = born(1)(e.ecn)
    val lastHop = born(1)(e.lastHop)
    val rtt = born(1)(e.rtt)
    val inFlight = born(1)(e.inFlight)
    val rttValid = born(1)(e.rtt =/= 0)
    /** The RTT sample goes to the base RTT: an ACK's, or a NACK's with BASE_RTT_ON_NACK (uec.cpp:958, :1568). */
    val rttSample = born(1)(rttValid && (isAck || isNack && csr.baseRttOnNack))
    val bytesZero = born(1)(e.bytes === 0)
    val noSample = born(1)(isAck && !rttValid)
    val zeroCounted = born(1)(!isInit && bytesZero)                           // ZERO_BYTES
    val overCounted = born(1)((isNack || isTimeout) && e.bytes > derived.mtu) // OVER_MTU
    val overMtu = born(1)(e.bytes > derived.mtu)
    /** A NACK's or timeout's bytes, at most MTU. */
    val packet = born(1)(Mux(overMtu, derived.mtu, e.bytes))
    /** What the byte counts add: an ACK's bytes (achieved, received, FastIncrease's count), and a NACK's packet (ignored bytes). */
    val ackBytes = born(1)(Mux(isAck, e.bytes, U(0, W bits)))
    val ignoreBytes = born(1)(Mux(isAck, e.bytes, Mux(isNack, packet, U(0, W bits))))
    /** The receiver's penalty applies (uec.cpp:933): an ACK with rcvWndPen < 255. */
    val penalty = born(1)(isAck && e.rcvWndPen =/= 255)
    val nowPlusTarget = born(2)(RegNext(now + derived.targetNs.resize(timeBits)))
    private val bytes = born(1)(e.bytes)

    // uec.cpp:933-936: newly - floor(newly x pen / 255); x / 255 = (x x 0x80808081) >> 39 for x < 2^32,
    // the multiply as four shifted adds (0x80808081 = 2^31 + 2^23 + 2^15 + 2^7 + 1)
    private val (penProduct, penLatency) = multiply(bytes, e.rcvWndPen, "penalty")      // stage 4
    private val x = penProduct.resize(32)
    private val high = RegNext((x.resize(64) |<< 31) + (x.resize(64) |<< 23))           // stage 5
    private val low = RegNext((x.resize(64) |<< 15) + (x.resize(64) |<< 7) + x.resize(64))
    private val quotientFull = RegNext(high + low)                                         // stage 6
    val penaltyDecrease = born(1 + penLatency + 3)(RegNext(carry(bytes, 1 + penLatency + 2) - quotientFull(39 + W - 1 downto 39))) // stage 7

    // uec.cpp:1392-1393: a lowered base RTT's maxwnd, 1.5 BDP of this RTT
    private val (rttBdp, bdpLatency) = multiply(rtt, csr.bytesPerNs, "rttBdp")           // stage 4
    private val bdp = RegNext(sat(drop(rttBdp, bytesPerNsFrac)))                             // stage 5
    val maxwndOfRtt = born(1 + bdpLatency + 2)(RegNext(sat(bdp.resize(W + 1) + drop(bdp, 1)))) // stage 6

    private val (fiProduct, fiLatency) = multiply(bytes, csr.fi, "fairIncrease")
    /** uec.cpp:1202-1206: fi x bytes (u42). */
    val fairIncrease = born(1 + fiLatency)(fiProduct(fiProduct.getWidth - 1 downto fiFrac))
    private val (stepProduct, stepLatency) = multiply(bytes, csr.fiScale, "fastStep")
    /** uec.cpp:1229: bytes x fi_scale (u28). */
    val fastStep = born(1 + stepLatency)(stepProduct(stepProduct.getWidth - 1 downto fiScaleFrac))
    private val (alphaProduct, alphaLatency) = multiply(bytes, csr.alpha, "alphaBytes")
    /** alpha x bytes (u29.20), proportional_increase's first factor. */
    val alphaBytes = born(1 + alphaLatency)(alphaProduct)
    require(Seq(1 + penLatency + 3, 1 + bdpLatency + 2, 1 + fiLatency, 1 + stepLatency).max < S1,
      "the event stages end before the loop")
  }

  private def read = unit.flowState.read
  private def written = unit.flowState.written

  // ------------------------------------------------------------- the update loop
  /** L1: the state as read or forwarded; adds and compares of it. */
  val l1 = new Area {
    val s = born(L(1))(read.state)
    private def at[T <: Data](x: T): T = carry(x, L(1))
    private val rtt = at(ev.rtt)
    private val now = at(ev.now)
    val lowered = born(L(1))(at(ev.rttSample) && rtt < s.baseRtt)                                // uec.cpp:1389-1390
    val rttMinusBase = born(L(1))(rtt - s.baseRtt)
    val achievedSum = born(L(1))(s.achieved.resize(W + 1) + at(ev.ackBytes))                    // uec.cpp:910-917
    val receivedSum = born(L(1))(s.received.resize(W + 1) + at(ev.ackBytes))
    val ignoredSum = born(L(1))(s.bytesIgnored.resize(W + 1) + at(ev.ignoreBytes))              // :917, :1362
    val fiCountSum = born(L(1))(s.fiCount.resize(W + 1) + at(ev.ackBytes))                      // :1223
    val cwndLessPenalty = born(L(1))(s.cwnd.resize(W + 1) - at(ev.penaltyDecrease).resize(W + 1)) // :935
    val cwndLessPacket = born(L(1))(s.cwnd.resize(W + 1) - at(ev.packet).resize(W + 1))         // :1300, :1381
    val sinceAdjust = born(L(1))(now - s.lastAdjust)
    val sinceDec = born(L(1))(now - s.lastDec)
    val sinceQaEnd = born(L(1))(now - s.qaEnd)
  }

  /** L2: the base RTT and maxwnd, the delay, the saturated counts, the penalty's window, the timers. */
  val l2 = new Area {
    private def at[T <: Data](x: T): T = carry(x, L(2))
    private val lowered = at(l1.lowered)
    private val rtt = at(ev.rtt)
    private val mtu = derived.mtu
    val baseRtt = born(L(2))(Mux(lowered, rtt, at(l1.s.baseRtt)))
    val maxwnd = born(L(2))(Mux(lowered, at(ev.maxwndOfRtt), at(l1.s.maxwnd)))
    // uec.cpp:961-1003: rtt - base (base lowered to it: 0); no sample: the average; a NACK's QuickAdapt reads 0
    private val sampleDelay = Mux(lowered, U(0, W bits), at(l1.rttMinusBase))
    val delay = born(L(2))(Mux(at(ev.isAck), Mux(at(ev.rttValid), sampleDelay, at(l1.s.avgDelay)(W + avgFrac - 1 downto avgFrac)), U(0, W bits)))
    val achieved = born(L(2))(sat(at(l1.achievedSum)))
    val received = born(L(2))(sat(at(l1.receivedSum)))
    val ignored = born(L(2))(sat(at(l1.ignoredSum)))
    val fiCount = born(L(2))(sat(at(l1.fiCountSum)))
    private val lessPenalty = at(l1.cwndLessPenalty)
    val cwndA = born(L(2))(Mux(at(ev.penalty), Mux(lessPenalty.msb || lessPenalty(W - 1 downto 0) < mtu, mtu, lessPenalty(W - 1 downto 0)), at(l1.s.cwnd)))
    private val lessPacket = at(l1.cwndLessPacket)
    /** uec.cpp:1300: max(cwnd - bytes, MTU). */
    val timeoutWindow = born(L(2))(Mux(lessPacket.msb || lessPacket(W - 1 downto 0) < mtu, mtu, lessPacket(W - 1 downto 0)))
    /** uec.cpp:1381: cwnd - bytes (0 when below: the bounds raise it to MTU). */
    val nackWindow = born(L(2))(Mux(lessPacket.msb, U(0, W bits), lessPacket(W - 1 downto 0)))
    private val sinceQaEnd = at(l1.sinceQaEnd)
    val expired = born(L(2))(!at(l1.s.qaStarted) || (sinceQaEnd =/= 0 && !sinceQaEnd.msb))       // uec.cpp:1159
    private val sinceAdjust = (at(l1.sinceAdjust) @@ U(0, avgFrac bits))
    val fulfillTime = born(L(2))(sinceAdjust > derived.networkRtt.resize(timeBits + avgFrac))   // uec.cpp:1341
    val etaDue = born(L(2))(sinceAdjust >= derived.networkRtt.resize(timeBits + avgFrac))       // uec.cpp:1262
    private val sinceDec = at(l1.sinceDec)
    val decreaseDue = born(L(2))(Mux(lowered, sinceDec > rtt, sinceDec > at(l1.s.baseRtt)))             // uec.cpp:1244
  }

  /** L3: the delay against T, 1 us and 4 T; QuickAdapt's gate; the window's end; T - delay. */
  val l3 = new Area {
    private def at[T <: Data](x: T): T = carry(x, L(3))
    private val delay = at(l2.delay)
    private val delayFixed = delay @@ U(0, avgFrac bits)
    private val T = derived.target
    val delayAtTarget = born(L(3))(delayFixed >= T)                                    // uec.cpp:1317, :1325
    val delayAboveTarget = born(L(3))(delayFixed > T)                                  // :966
    val fastDelay = born(L(3))(delay < csr.fastDelay)                                  // :1222
    val qaDelay = born(L(3))(delay > csr.qaThreshold)                                  // :1163
    val gate = born(L(3))(at(l2.maxwnd) >> derived.qaGate)                             // :1168
    val qaEnd = born(L(3))(at(ev.nowPlusTarget) + at(l2.baseRtt).resize(timeBits))      // :1187
    val targetLessDelay = born(L(3))(T - delayFixed)                                   // :1211
    val receivedOver = born(L(3))(at(l2.received) > csr.adjustBytes)                   // :1341
    val fiAbove = born(L(3))(at(l2.fiCount) > at(l2.cwndA))                            // :1225
    val cwndPlusStep = born(L(3))(at(l2.cwndA).resize(29) + at(ev.fastStep).resize(29)) // :1229
    val ignoring = born(L(3))(at(l2.ignored) < at(l1.s.bytesToIgnore))                        // :1157
  }

  /** L4: QuickAdapt and the rule's case; the delay sample for the average. */
  val l4 = new Area {
    private def at[T <: Data](x: T): T = carry(x, L(4))
    val isAck = at(ev.isAck); val isNack = at(ev.isNack)
    private val ecn = at(ev.ecn)
    // uec.cpp:1145-1200 quick_adapt(is_loss, skip, delay): an ACK skips when ECN-marked, a NACK always
    private val skip = Mux(isAck, ecn, isNack)
    val ignore = born(L(4))(skip && at(l3.ignoring))                                         // :1157
    val roll = born(L(4))((isAck || isNack) && !ignore && at(l2.expired))                     // :1159, :1186-1188
    private val below = at(l2.achieved) < at(l3.gate)
    val fire = born(L(4))(roll && at(l1.s.qaStarted) && (at(l1.s.triggerQa) || isNack || at(l3.qaDelay)) && below) // :1163-1170
    val qaDone = born(L(4))(ignore || fire)
    private val atTarget = at(l3.delayAtTarget)
    private val measured = isAck && !qaDone
    val fair = born(L(4))(measured && !ecn && atTarget)                                     // uec.cpp:1317
    private val belowTarget = measured && !ecn && !atTarget                                  // :1321
    private val latch = at(l3.fastDelay) && (at(l3.fiAbove) || at(l1.s.increase))                  // :1222-1231
    val fast = born(L(4))(belowTarget && latch)
    val proportional = born(L(4))(belowTarget && !latch)
    val decreaseCase = born(L(4))(measured && ecn && atTarget)                              // :1325
    /** FastIncrease's count: kept below 1 us, else 0 (:1222-1235); 0 in the decrease's case (:1250-1251). */
    val fiCount = born(L(4))(Mux(belowTarget, Mux(at(l3.fastDelay), at(l2.fiCount), U(0, W bits)),
      Mux(decreaseCase, U(0, W bits), at(l1.s.fiCount))))
    val increase = born(L(4))(Mux(belowTarget, latch, !decreaseCase && at(l1.s.increase)))
    val fulfill = born(L(4))(measured && (at(l3.receivedOver) || at(l2.fulfillTime)))     // :1341
    val eta = born(L(4))(fulfill && at(l2.etaDue))
    // uec.cpp:1402-1423 update_delay: an ACK's sample (a quarter of the base above T without ECN, :966-968), a NACK's network RTT (:1369)
    private val sample = Mux(isNack, derived.networkRtt,
      Mux(!ecn && at(l3.delayAboveTarget), (at(l2.baseRtt) @@ U(0, avgFrac - 2 bits)).resize(32), at(l2.delay) @@ U(0, avgFrac bits)))
    val averages = born(L(4))(isNack || isAck && at(ev.rttValid))
    /** sample - avg + 2^32 (positive: the EWMA's product stays unsigned). */
    val difference = born(L(5))(RegNext(sample.resize(33) + U(BigInt(1) << 32, 33 bits) - at(l1.s.avgDelay).resize(33)))
    val cwndStep = born(L(4))(sat(at(l3.cwndPlusStep)))
  }

  /** L5-L10: the average delay (L10) and the pending increase (L11). */
  val average = new Area {
    private val (product, latency) = multiply(derived.delayAlpha, l4.difference, "ewma")    // L8
    private val stage = L(5) + latency
    // avg + floor(alpha x (d + 2^32) / 2^20) - alpha x 2^12: the floor of alpha x d / 2^20, in 35 bits signed
    private val avgLess = born(L(5))(RegNext(carry(l1.s.avgDelay, L(4)).resize(35).asSInt - derived.delayAlphaOffset.resize(35).asSInt))
    private val sum = RegNext(carry(avgLess, stage) + drop(product, delayAlphaFrac).resize(35).asSInt)     // L9
    private val max = (BigInt(1) << 32) - 1
    private val sumFull = sum.asUInt
    private val clamped = Mux(sum.msb, U(0, 32 bits), Mux(sumFull(33 downto 32).orR, U(max, 32 bits), sumFull(31 downto 0)))
    val avgDelay = born(stage + 2)(RegNext(Mux(carry(l4.averages, stage + 1), clamped, carry(l1.s.avgDelay, stage + 1))))  // L10
  }

  val increase = new Area {
    private val (product, latency) = multiply(carry(l3.targetLessDelay, L(4)), carry(ev.alphaBytes, L(4)), "proportional")
    private val stage = L(4) + latency                                                        // L9
    // uec.cpp:1210: alpha x bytes x (T - delay), u29.20 x u24.8 >> 28
    private val proportional = drop(product, alphaFrac + avgFrac)
    private val fair = carry(ev.fairIncrease, stage)
    private val added = Mux(carry(l4.fair, stage), fair.resize(proportional.getWidth), proportional)
    private val sum = RegNext(carry(l1.s.inc, stage).resize(added.getWidth + 1) + added)       // L10
    private val incMax = (BigInt(1) << incBits) - 1
    private val adds = carry(l4.fair, stage + 1) || carry(l4.proportional, stage + 1)
    val saturated = born(stage + 1)(adds && sum > U(incMax, sum.getWidth bits))
    val inc = born(stage + 2)(RegNext(Mux(adds, Mux(saturated, U(incMax, incBits bits), sum.resize(incBits)), carry(l1.s.inc, stage + 1)))) // L11
    // uec.cpp:1260 inc / cwnd: the increase cut to a 26-bit mantissa m x 2^e
    private val leading = RegNext(leadingOne(inc, incMantissa - 1))                         // L12
    val exponent = born(stage + 4)(RegNext(oneHotPick(leading.asBools.zipWithIndex.map { case (l, i) => (l, U(i, 5 bits)) }.toSeq, 5))) // L13
    private val mantissaFull = carry(inc, stage + 4) >> exponent
    val mantissa = born(stage + 5)(RegNext(mantissaFull.resize(incMantissa)))                         // L14
  }

  /** L10-L25: the multiplicative decrease's window, cwnd x max(1 - gamma (avg - T) / avg, 1/2), floor MTU. */
  val decrease = new Area {
    private val A = L(10)
    require(carries(average.avgDelay) == A, "the average is at L10")
    private val avg = average.avgDelay
    val above = born(A)(avg > derived.target)                                                // uec.cpp:1244
    private val d = RegNext(avg - derived.target)                                            // L11
    private val leading = RegNext(leadingOne(avg, avgFrac))                                  // L11
    private val avgFull = RegNext(avg)
    private val (index, msbAt) = WindowArith.recipIndex(avgFull.resize(31), leading, avgFrac, recipIndex)
    private val recipRom = reciprocalRom(recipIndex, recipValue)
    private val r = RegNext(recipRom.readSync(index))                                        // L13
    private val msb = born(A + 1)(msbAt)
    private val (ratioProduct, latency) = multiply(carry(born(A + 1)(d), A + 3), r, "ratio")  // L16
    private val stage = A + 3 + latency
    // d x r >> (14 + msb - 23), msb >= 8: ((d x r) << 1) >> (msb - 8)
    private val shifted = RegNext((ratioProduct << 1) >> (carry(msb, stage) - avgFrac))      // L17
    private val ratio = RegNext(satTo(shifted, U(BigInt(1) << factorFrac, factorFrac + 1 bits), factorFrac + 1)) // L18
    private val (cutProduct, cutLatency) = multiply(ratio, derived.gamma, "cut")              // L21
    private val cut = drop(cutProduct, gammaFrac)
    private val one = BigInt(1) << factorFrac
    private val factorFull = U(one, 26 bits) - cut.resize(26)
    private val factor = RegNext(Mux(cut > U(one >> 1, cut.getWidth bits), U(one >> 1, factorFrac + 1 bits), factorFull.resize(factorFrac + 1))) // L22
    private val fStage = stage + 2 + cutLatency + 1
    private val (windowProduct, windowLatency) = multiply(carry(l2.cwndA, fStage), factor, "decrease") // L25
    private val wStage = fStage + windowLatency
    private val cut23 = drop(windowProduct, factorFrac)
    val window = born(wStage + 1)(RegNext(Mux(cut23 < derived.mtu.resize(cut23.getWidth), derived.mtu, cut23.resize(W)))) // L26
  }

  private def carries(x: Data): Int = unit.carries.stageOf(x)

  /** D = L25: the rule; its window picked at L26 (NsccRules' table). */
  val decide = new Area {
    val D = carries(decrease.window) - 1
    private def at[T <: Data](x: T): T = carry(x, D)
    private val isAck = at(ev.isAck); private val isNack = at(ev.isNack)
    private val isTimeout = at(ev.isTimeout); private val isInit = at(ev.isInit)
    private val ignore = at(l4.ignore); private val fire = at(l4.fire); private val done = at(l4.qaDone)
    private val md = at(l4.decreaseCase)
    val acts = born(D)(md && at(decrease.above) && at(l2.decreaseDue))
    private val lastHopKept = csr.receiverCc && at(ev.lastHop)
    private def window(x: UInt) = ClampedWindow(carry(x, D + 1), False, False)
    private val held = window(l2.cwndA)
    private val qaWindow = {
      val achieved = carry(l2.achieved, D)
      born(D + 1)(RegNext(Mux(achieved < derived.mtu, derived.mtu, achieved)))             // uec.cpp:1174
    }
    import NsccRules._
    val pick = new RulePick(table, Seq(
      RuleRow(Init, isInit, True -> ClampedWindow(RegNext(derived.initWindow), False, False)),
      RuleRow(FairIncrease, at(l4.fair), True -> held),
      RuleRow(ProportionalIncrease, at(l4.proportional), True -> held),
      RuleRow(FastIncrease, at(l4.fast), True -> window(l4.cwndStep)),
      RuleRow(MultiplicativeDecrease, acts, True -> ClampedWindow(decrease.window, False, False)),
      RuleRow(DecreaseHeld, md && !acts, True -> held),
      RuleRow(Noop, False, True -> held),                       // the default row: an ACK with ECN below T (uec.cpp:1333)
      RuleRow(QuickAdapt, fire, True -> ClampedWindow(qaWindow, False, False)),
      RuleRow(Ignored, ignore, True -> held),
      RuleRow(NackDecrease, isNack && !done && !lastHopKept, True -> window(l2.nackWindow)),
      RuleRow(NackLastHop, isNack && !done && lastHopKept, True -> held),
      RuleRow(TimeoutDecrease, isTimeout, True -> window(l2.timeoutWindow))),
      ClampLimits(derived.mtu, derived.mtu, False), selectByCode = true)
    /** The rules the bounds follow (uec.cpp:1137-1143): an ACK's measured rules and a NACK's decrease. */
    val code = born(D + 1)(pick.code)
    val bounded = born(D)(isAck && !done || isNack && !done && !lastHopKept)
    val picked = born(D + 2)(RegNext(pick.window.cwnd))                                      // L27
  }

  /** The bounds, [MTU, maxwnd] with MTU above a smaller maxwnd (docs/nscc.md). */
  private def bounds(x: UInt, stage: Int): UInt = {
    val maxwnd = carry(l2.maxwnd, stage)
    val mtu = derived.mtu
    Mux(x > maxwnd, Mux(maxwnd < mtu, mtu, maxwnd), Mux(x < mtu, mtu, x))
  }

  /** L27-L37: the bounds, the fulfill (inc / cwnd, eta) and the bounds again. */
  val fulfill = new Area {
    private val P = carries(decide.picked)
    val cwndB = born(P + 1)(RegNext(Mux(carry(decide.bounded, P), bounds(decide.picked, P), decide.picked))) // L28
    private val leading = RegNext(leadingOne(cwndB, 6))                                          // L29: cwnd >= MTU >= 65
    private val cwndFull = RegNext(cwndB)
    private val (index, msb) = WindowArith.recipIndex(cwndFull.resize(W - 1), leading, 6, recipIndex)
    private val recipRom = reciprocalRom(recipIndex, recipValue)
    private val r = RegNext(recipRom.readSync(index))                                           // L31
    private val shift = born(P + 3)(RegNext(msb.resize(6) + recipValue - carry(increase.exponent, P + 2).resize(6))) // L30
    private val (product, latency) = multiply(carry(increase.mantissa, P + 4), r, "fulfill")   // L34
    private val over = RegNext(product >> carry(shift, P + 4 + latency))                        // L35
    private val doFulfill = carry(l4.fulfill, P + 5 + latency)
    private val plusOver = RegNext(Mux(doFulfill, sat(carry(cwndB, P + 5 + latency).resize(over.getWidth + 1) + over), carry(cwndB, P + 5 + latency))) // L36
    private val doEta = carry(l4.eta, P + 6 + latency)
    private val plusEta = RegNext(Mux(doEta, sat(plusOver.resize(W + 1) + csr.eta), plusOver))  // L37
    val last = P + 7 + latency
    require(last == unit.Stage.S4, s"the loop's stages: the fulfill ends at $last, the loop at ${unit.Stage.S4}")
    val cwnd = Mux(carry(l4.fulfill, last), bounds(plusEta, last), plusEta)
  }

  /** L37: the new state. */
  val update = new Area {
    private val last = fulfill.last
    private def at[T <: Data](x: T): T = carry(x, last)
    private val s = l1.s
    private val fire = at(l4.fire); private val roll = at(l4.roll)
    private val isAck = at(ev.isAck); private val isNack = at(ev.isNack); private val isInit = at(ev.isInit)
    private val now = at(ev.now)
    val next = NsccFlowState()
    next.cwnd := fulfill.cwnd
    next.maxwnd := at(l2.maxwnd)
    next.baseRtt := at(l2.baseRtt)
    next.avgDelay := at(average.avgDelay)
    next.achieved := Mux(roll, U(0, W bits), at(l2.achieved))
    next.received := Mux(at(l4.qaDone) || at(l4.fulfill), U(0, W bits), at(l2.received))
    next.inc := Mux(at(l4.qaDone) || at(l4.fulfill), U(0, incBits bits), at(increase.inc))
    next.bytesToIgnore := Mux(fire, at(ev.inFlight), at(s.bytesToIgnore))
    next.bytesIgnored := Mux(fire, U(0, W bits), at(l2.ignored))
    next.triggerQa := !fire && (isNack || at(s.triggerQa))
    next.qaStarted := roll || at(s.qaStarted)
    next.qaEnd := Mux(roll, at(l3.qaEnd), at(s.qaEnd))
    next.fiCount := at(l4.fiCount)
    next.increase := at(l4.increase)
    next.lastAdjust := Mux(at(l4.eta), now, at(s.lastAdjust))
    next.lastDec := Mux(at(decide.acts) && isAck, now, at(s.lastDec))
    private def initial(st: NsccFlowState, baseRtt: UInt, maxwnd: UInt, cwnd: UInt, time: UInt): Unit = {
      st.assignFromBits(B(0, NsccFlowState.bits bits))
      st.cwnd.allowOverride(); st.baseRtt.allowOverride(); st.maxwnd.allowOverride()
      st.lastAdjust.allowOverride(); st.lastDec.allowOverride()
      st.cwnd := cwnd; st.baseRtt := baseRtt; st.maxwnd := maxwnd; st.lastAdjust := time; st.lastDec := time
    }
    when(isInit) {                                                                              // uec.cpp:161-184
      initial(next, csr.initBaseRtt, derived.initMaxwnd, fulfill.cwnd, now)
    }
    val initState = NsccFlowState()
    initial(initState, U(cfg.defaults.initBaseRtt, W bits), U(cfg.defaults.initMaxwnd, W bits), U(cfg.defaults.initMaxwnd, W bits),
      U(0, timeBits bits))
  }

  /** What stage W reports besides the skeleton's. */
  val report = new Area {
    private val last = fulfill.last
    private def w[T <: Data](x: T): T = RegNext(carry(x, last))
    val rule = w(decide.code)
    val fulfilled = w(l4.fulfill); val eta = w(l4.eta)
    val lowered = w(l1.lowered)
    val noSample = w(ev.noSample)
    val bytesZero = w(ev.zeroCounted)
    val overMtu = w(ev.overCounted)
    val saturated = w(increase.saturated)
  }

  def busy: Bool = False
  def next: NsccFlowState = update.next
  def initState: NsccFlowState = update.initState
  def queryValue(state: NsccFlowState): UInt = state.cwnd

  def finish(r: WindowReport): Unit = {
    import CsrCounters.count
    import report._
    val ok = r.ok
    unit.io.update.valid := ok
    val u = unit.io.update.payload
    u.flow := r.flow
    u.cwnd := written.state.cwnd
    u.rule := rule
    u.fulfilled := fulfilled
    decide.pick.countRules(csr.byRule, ok, rule)
    count(csr.FULFILLS, ok && fulfilled)
    count(csr.ETAS, ok && eta)
    count(csr.BASE_RTT_LOWERED, ok && lowered)
    count(csr.NO_RTT_SAMPLE, ok && noSample)
    count(csr.ZERO_BYTES, ok && bytesZero)
    count(csr.OVER_MTU, ok && overMtu)
    count(csr.INC_SATURATED, ok && saturated)
  }
}
