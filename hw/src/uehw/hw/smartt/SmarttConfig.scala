// SPDX-License-Identifier: Apache-2.0
package uehw.hw.smartt

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of the SMaRTT window unit (smartt-reps.txt Sec. 3). The gains, thresholds
 * and time constants are CSRs; their reset values come from the link speed, base RTT and MTU as
 * Sec. 3.5 prescribes: BDP = link x base RTT, gamma = BDP / (100 Gb/s x 12 us), fi = 0.25 gamma,
 * mi = brtt / (trtt - brtt) x gamma = 2 gamma, max window 1.25 BDP, start window 1 BDP.
 *
 * @param flows          N, flows with state in block RAM
 * @param flowIdWidth    width of the flow-id inputs (ids >= N are counted and ignored)
 * @param byteWidth      width of byte counts: the window's integer part, acked, FastIncrease count
 * @param rttWidth       width of measured RTTs, the base RTT and FastIncrease closeness (ns)
 * @param timeWidth      width of `now` and of the QuickAdapt deadline (ns, compared modulo 2^timeWidth)
 * @param recipIndexBits reciprocal table index bits (2^I entries)
 * @param recipValueBits reciprocal table value bits
 */
case class SmarttConfig(flows: Int = 1024,
                        flowIdWidth: Int = 16,
                        byteWidth: Int = 24,
                        rttWidth: Int = 24,
                        timeWidth: Int = 32,
                        recipIndexBits: Int = 10,
                        recipValueBits: Int = 14,
                        mtu: Int = 4096,
                        linkGbps: Int = 100,
                        baseRttNs: Long = 12000,
                        sameFlowSpacing: Int = Smartt.defaultSameFlowSpacing) {
  /** The ten sizes and defaults without the same-flow spacing (Java callers): L = 5. */
  def this(flows: Int, flowIdWidth: Int, byteWidth: Int, rttWidth: Int, timeWidth: Int, recipIndexBits: Int,
           recipValueBits: Int, mtu: Int, linkGbps: Int, baseRttNs: Long) =
    this(flows, flowIdWidth, byteWidth, rttWidth, timeWidth, recipIndexBits, recipValueBits, mtu, linkGbps, baseRttNs,
      Smartt.defaultSameFlowSpacing)
  ParamCheck(flows >= 1 && flows <= 65536, "flows", s"$flows is outside 1..65536")
  ParamCheck(flowIdWidth >= log2Up(flows) && flowIdWidth <= 24, "flow-id-width",
    s"$flowIdWidth must be in ${log2Up(flows)}..24 for $flows flows")
  ParamCheck(byteWidth >= 16 && byteWidth <= 24, "byte-width", s"$byteWidth is outside 16..24")
  ParamCheck(rttWidth >= 8 && rttWidth <= 24, "rtt-width", s"$rttWidth is outside 8..24")
  ParamCheck(timeWidth >= 8 && timeWidth <= 32, "time-width", s"$timeWidth is outside 8..32")
  ParamCheck(recipIndexBits >= 6 && recipIndexBits <= 12, "recip-index-bits", s"$recipIndexBits is outside 6..12")
  ParamCheck(recipValueBits >= 8 && recipValueBits <= 14, "recip-value-bits", s"$recipValueBits is outside 8..14")
  ParamCheck(mtu >= Smartt.minMtu && mtu <= 65535, "mtu", s"$mtu is outside ${Smartt.minMtu}..65535")
  ParamCheck(sameFlowSpacing >= Smartt.loopClocks && sameFlowSpacing <= 8, "same-flow-spacing",
    s"$sameFlowSpacing is outside ${Smartt.loopClocks}..8: the update loop takes ${Smartt.loopClocks} clocks")
  ParamCheck(baseRttNs >= 1 && baseRttNs < (1L << rttWidth), "base-rtt-ns",
    s"$baseRttNs must be in 1..${(1L << rttWidth) - 1} (rtt-width $rttWidth)")

  /** BDP in bytes at the link speed and base RTT. */
  val bdp: Long = linkGbps.toLong * baseRttNs / 8
  /** 1.25 BDP (Sec. 3.5). */
  val maxCwnd: Long = bdp * 5 / 4
  ParamCheck(bdp >= Smartt.minBdp, "link-gbps", s"BDP = $linkGbps Gb/s x $baseRttNs ns = $bdp B is below ${Smartt.minBdp} B")
  ParamCheck(maxCwnd < (1L << byteWidth), "byte-width",
    s"$byteWidth bits cannot hold the 1.25 BDP window ($maxCwnd B at $linkGbps Gb/s x $baseRttNs ns)")
  /** FAST_INCREASE_CLOSENESS's reset value: two MTUs' serialisation at the link speed, in ns. */
  val fastIncreaseClosenessNs: Long = 2L * mtu * 8 / linkGbps
  ParamCheck(fastIncreaseClosenessNs < (1L << rttWidth), "rtt-width",
    s"$rttWidth bits cannot hold FAST_INCREASE_CLOSENESS's reset value, $fastIncreaseClosenessNs ns (2 x $mtu B at $linkGbps Gb/s)")
  /** gamma = BDP / (100 Gb/s x 12 us), Sec. 3.5. */
  val gamma: Double = bdp / 150000.0
  ParamCheck(2.0 * gamma < 32, "link-gbps", f"gamma = $gamma%.2f makes mi = 2 gamma overflow the u5.11 gain CSR")

  val flowAddrWidth: Int = scala.math.max(1, log2Up(flows))
  /** Fractional bits of the stored window. */
  val cwndFrac: Int = 8
  val cwndWidth: Int = byteWidth + cwndFrac
  /** Width of the target RTT: brtt x factor (u5.11) >> 11. */
  val trttWidth: Int = rttWidth + 5
  /** The per-flow state, field by field (SmarttFlowState). */
  def stateBitsPerFlow: Int = cwndWidth + byteWidth + timeWidth + 1 + 1 + byteWidth + byteWidth + 1 + Smartt.wtdStateFrac
  /** The reference profile's QuickAdapt measurement window, in a RAM of its own (SmarttQaWindow). */
  def referenceWindowBitsPerFlow: Int = timeWidth + 1
}

object SmarttConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("flows", "1024", "N, flows with state in block RAM", 1, 65536),
    ParamSpec("flow-id-width", "16", "width of the flow-id inputs (ids >= N are counted and ignored)", 1, 24, rangeText = "log2(N)..24"),
    ParamSpec("byte-width", "24", "integer bits of the window, and width of `acked`, the FastIncrease count and the ignore count", 16, 24),
    ParamSpec("rtt-width", "24", "width of RTTs, BASE_RTT and FAST_INCREASE_CLOSENESS (ns)", 8, 24),
    ParamSpec("time-width", "32", "width of `now` (ns); the QuickAdapt deadline is compared modulo 2^time-width", 8, 32),
    ParamSpec("recip-index-bits", "10", "reciprocal table index bits I (2^I entries)", 6, 12),
    ParamSpec("recip-value-bits", "14", "reciprocal table value bits V", 8, 14),
    ParamSpec("mtu", "4096", "reset value of MTU (bytes)", Smartt.minMtu, 65535),
    ParamSpec("link-gbps", "100", "link speed for the reset BDP and gamma (Sec. 3.5)", 1, 3200),
    ParamSpec("base-rtt-ns", "12000", "reset value of BASE_RTT (ns)", 1, (1L << 24) - 1, rangeText = "1..2^rtt-width-1"),
    ParamSpec("same-flow-spacing", Smartt.defaultSameFlowSpacing.toString,
      "L: clocks between two events of one flow entering the pipeline (the update loop takes 5; \"Ordering, throughput, latency\")", Smartt.loopClocks, 8)
  )

  def fromParams(p: ParamValues): SmarttConfig = SmarttConfig(
    flows = p.int("flows"), flowIdWidth = p.int("flow-id-width"), byteWidth = p.int("byte-width"),
    rttWidth = p.int("rtt-width"), timeWidth = p.int("time-width"), recipIndexBits = p.int("recip-index-bits"),
    recipValueBits = p.int("recip-value-bits"), mtu = p.int("mtu"), linkGbps = p.int("link-gbps"),
    baseRttNs = p.long("base-rtt-ns"), sameFlowSpacing = p.int("same-flow-spacing"))
}
