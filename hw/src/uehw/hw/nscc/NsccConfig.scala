// SPDX-License-Identifier: Apache-2.0
package uehw.hw.nscc

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of the NSCC window unit (Ultra Ethernet's sender congestion control as the
 * UEC reference simulator runs it: uet-htsim 40ccb05, htsim/sim/uec.cpp). The law's gains and
 * thresholds are CSRs; their reset values are the reference's derivation (uec.cpp:86-159
 * initNsccParams) from the link speed, the MTU and the network RTT given here, in the formats of
 * uehw.model.nscc.NsccFixedModel (docs/nscc.md, "CSRs and their derivation").
 *
 * @param flows        N, flows with state in block RAM
 * @param flowIdWidth  width of the flow-id inputs (ids >= N are counted and ignored)
 * @param linkGbps     the NIC's link speed (the reference's -linkspeed, Mb/s / 1000)
 * @param mtu          wire MTU, header included (the reference's default 4150)
 * @param networkRttPs the network's maximum unloaded RTT (main_uec.cpp:51-60; 14 022 720 ps for
 *                     the reference's 3-tier fat tree of 1 us links at 100 Gb/s)
 */
case class NsccConfig(flows: Int = 1024, flowIdWidth: Int = 16, linkGbps: Int = 100, mtu: Int = 4150,
                      networkRttPs: Long = 14022720L) {
  ParamCheck(flows >= 1 && flows <= 65536, "flows", s"$flows is outside 1..65536")
  ParamCheck(flowIdWidth >= log2Up(flows) && flowIdWidth <= 24, "flow-id-width",
    s"$flowIdWidth must be in ${log2Up(flows)}..24 for $flows flows")
  ParamCheck(linkGbps >= 1 && linkGbps <= 1600, "link-gbps", s"$linkGbps is outside 1..1600")
  ParamCheck(mtu >= 65 && mtu <= 65535, "mtu", s"$mtu is outside 65..65535")
  ParamCheck(networkRttPs >= 1000 && networkRttPs <= 16000000000L, "network-rtt-ps", s"$networkRttPs is outside 1000..16000000000")

  val flowAddrWidth: Int = scala.math.max(1, log2Up(flows))
  val timeWidth: Int = Nscc.timeBits
  /** The CSRs' reset values. */
  lazy val defaults: NsccDefaults = NsccDefaults(this)
  ParamCheck(defaults.alpha < (1L << 25) && defaults.fi < (1L << 26) && defaults.fiScale < (1L << 24) && defaults.eta < (1L << 16)
    && defaults.bytesPerNs < (1L << 26) && defaults.target < (1L << 32) && defaults.qaThresholdNs < (1L << 26),
    "network-rtt-ps", s"$networkRttPs at ${linkGbps} Gb/s and MTU $mtu gives gains beyond the CSRs' widths (docs/nscc.md)")
  def stateBitsPerFlow: Int = NsccFlowState.bits
}

object NsccConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("flows", "1024", "N, flows with state in block RAM", 1, 65536),
    ParamSpec("flow-id-width", "16", "width of the flow-id inputs (ids >= N are counted and ignored)", 1, 24, rangeText = "log2(N)..24"),
    ParamSpec("link-gbps", "100", "link speed the CSRs' reset values are derived for (Gb/s)", 1, 1600),
    ParamSpec("mtu", "4150", "wire MTU, header included (bytes): MTU's reset value and the derivation's", 65, 65535),
    ParamSpec("network-rtt-ps", "14022720", "network RTT the reset values are derived for (ps; the reference's 3-tier fat tree at 100 Gb/s)",
      1000, 16000000000L)
  )

  def fromParams(p: ParamValues): NsccConfig = NsccConfig(flows = p.int("flows"), flowIdWidth = p.int("flow-id-width"),
    linkGbps = p.int("link-gbps"), mtu = p.int("mtu"), networkRttPs = p.long("network-rtt-ps"))
}

/**
 * The reference's parameters (uec.cpp:86-159, in its double arithmetic and order) in the block's
 * formats: the CSRs' reset values. uehw.model.nscc.NsccFixedParams.of(NsccParams.reference(..))
 * computes the same numbers (NsccTest checks the registers after reset against it).
 */
case class NsccDefaults(cfg: NsccConfig) {
  private val headerBytes = 64
  private val linkBps = cfg.linkGbps.toLong * 1000000000L
  private def sec(ps: Long): Double = ps.toDouble / 1000000000000.0
  private val referenceBdp = (sec(12000000L) * (100000000000L / 8).toDouble).toLong                 // uec.cpp:95
  private val networkBdp = (sec(cfg.networkRttPs) * (linkBps / 8).toDouble).toLong                  // :99
  private val targetPs = (cfg.networkRttPs * 0.75).toLong                                            // :104-112, trimming on
  private val mss = cfg.mtu - headerBytes
  private val a = networkBdp.toDouble / referenceBdp.toDouble                                       // :121
  private val b = targetPs.toDouble / 12000000L.toDouble                                            // :122
  private val alphaRef = 4.0 * mss * a * b / targetPs                                                // :124
  private val fiRef = 5 * mss * a                                                                    // :125
  private val etaRef = 0.15 * mss * a                                                                // :126
  private val fiScaleRef = .25 * a                                                                   // :130
  val mtu: Long = cfg.mtu
  val target: Long = scala.math.round(targetPs / 1000.0 * 256)
  val qaThresholdNs: Long = scala.math.round((4 * targetPs).toDouble / 1000.0)                       // :119
  val qaGate: Int = 3                                                                                // :114-118
  val networkRtt: Long = scala.math.round(cfg.networkRttPs / 1000.0 * 256)
  val adjustBytes: Long = 8L * cfg.mtu                                                               // :135
  val alpha: Long = scala.math.round(alphaRef * 1000 * (1L << 20))
  val fi: Long = scala.math.round(fiRef * (1L << 8))
  val eta: Long = scala.math.floor(etaRef).toLong
  val fiScale: Long = scala.math.round(fiScaleRef * (1L << 20))
  val gamma: Long = scala.math.round(0.8 * (1L << 16))                                              // :129
  val delayAlpha: Long = scala.math.round(0.0125 * (1L << 20))                                      // :132
  val bytesPerNs: Long = scala.math.round(linkBps / 8e9 * (1L << 16))
  val fastDelayNs: Long = 1000                                                                       // :1222, 1 us
  /** A flow's base RTT at INIT: the network RTT in whole ns (uec.cpp:863). */
  val initBaseRtt: Long = cfg.networkRttPs / 1000
  /** 1.5 BDP of it (uec.cpp:166, the fixed model's maxWindowOf): the window the reset sweep gives every flow. */
  val initMaxwnd: Long = {
    val max = (1L << Nscc.windowBits) - 1
    val bdp = ((BigInt(initBaseRtt) * bytesPerNs) >> Nscc.bytesPerNsFrac).min(max).toLong
    scala.math.min(bdp + (bdp >> 1), max)
  }
}
