// SPDX-License-Identifier: Apache-2.0
package uehw.hw.swift

import spinal.core._
import uehw.hw.common._
import uehw.hw.window.WindowArith

/**
 * Generation parameters of the Swift window unit (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5). The
 * law's constants are CSRs; their reset values are uehw.model.swift.SwiftParams' defaults (ours for
 * the 100 Gb/s, 12 us incast star of the experiments; the excerpt gives the rules, not production
 * values), in the formats of uehw.model.swift.SwiftFixedModel.
 *
 * @param flows       N, flows with state in block RAM
 * @param flowIdWidth width of the flow-id inputs (ids >= N are counted and ignored)
 * @param delayWidth  width of the RTT and endpoint-delay inputs, the targets and the stored RTT (ns)
 */
case class SwiftConfig(flows: Int = 1024, flowIdWidth: Int = 16, delayWidth: Int = 24) {
  ParamCheck(flows >= 1 && flows <= 65536, "flows", s"$flows is outside 1..65536")
  ParamCheck(flowIdWidth >= log2Up(flows) && flowIdWidth <= 24, "flow-id-width",
    s"$flowIdWidth must be in ${log2Up(flows)}..24 for $flows flows")
  ParamCheck(delayWidth >= 16 && delayWidth <= 24, "delay-width", s"$delayWidth is outside 16..24")

  val flowAddrWidth: Int = scala.math.max(1, log2Up(flows))
  val timeWidth: Int = Swift.timeBits
  /** The endpoint-delay EWMA: ns x 2^-4. */
  val ewmaWidth: Int = delayWidth + Swift.ewmaFrac
  /** Main state (SwiftFlowState) plus the EWMA's own RAM. */
  def stateBitsPerFlow: Int = {
    val window = Swift.cwndBits + timeWidth + 1 + Swift.recipValue + 5
    2 * window + Swift.rsqrtValue + 16 + 3 + delayWidth + ewmaWidth
  }
}

object SwiftConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("flows", "1024", "N, flows with state in block RAM", 1, 65536),
    ParamSpec("flow-id-width", "16", "width of the flow-id inputs (ids >= N are counted and ignored)", 1, 24, rangeText = "log2(N)..24"),
    ParamSpec("delay-width", "24", "width of the RTT and endpoint-delay inputs, the targets and the stored RTT (ns)", 16, 24)
  )

  def fromParams(p: ParamValues): SwiftConfig =
    SwiftConfig(flows = p.int("flows"), flowIdWidth = p.int("flow-id-width"), delayWidth = p.int("delay-width"))
}

/** The CSRs' reset values (SwiftParams' defaults in SwiftFixedModel's formats) and what the sweep writes from them. */
object SwiftDefaults {
  import Swift._
  private def windowOf(packets: Double): BigInt = BigInt(scala.math.round(packets * (1L << cwndFrac)))
  private def gainOf(g: Double): BigInt = BigInt(scala.math.round(g * (1 << gainFrac)))
  val ai: BigInt = BigInt(scala.math.round(1.0 * (1 << aiFrac)))
  val beta: BigInt = gainOf(0.8)
  val maxMdf: BigInt = gainOf(0.5)
  val minCwnd: BigInt = windowOf(0.001)
  val maxCwnd: BigInt = windowOf(73)
  val initCwnd: BigInt = windowOf(36.6)
  val retxResetThreshold = 5
  val baseTargetNs = 12000
  val perHopNs = 1000
  val fsRangeNs = 4000
  private val alphaExact = 4000 / (1 / scala.math.sqrt(0.1) - 1 / scala.math.sqrt(100))
  val fsAlpha: Long = scala.math.round(alphaExact)
  val fsBeta: Long = scala.math.round(-alphaExact / scala.math.sqrt(100))
  val endpointTargetNs = 5000
  val ewmaShift = 3

  /** The window a new flow gets at the reset CSRs: INIT_CWND clamped (Alg. 1 line 26). */
  val initWindow: BigInt = initCwnd.min(maxCwnd).max(minCwnd.max(BigInt(1) << minWindowLog2))
  private val msbOf = initWindow.bitLength - 1
  /** Its leading one and the 10 bits below it (the reciprocal table's index). */
  val initMsb: Int = msbOf
  val initIndex: Int = {
    val below = initWindow - (BigInt(1) << msbOf)
    (if (msbOf >= recipIndex) below >> (msbOf - recipIndex) else below << (recipIndex - msbOf)).toInt
  }
  val initRecip: BigInt = WindowArith.reciprocalTable(recipIndex, recipValue)(initIndex)
  /** Flow scaling's 1/sqrt table value of it (the state's fabricRsqrt after INIT or the reset sweep). */
  val initRsqrt: BigInt = rsqrtTable((msbOf + (cwndFrac & 1)) & 1)(initIndex >> (recipIndex - rsqrtIndex))
  /** Sec. 3.5 flow scaling of it (SwiftFixedModel.flowScalingNs). */
  val initFs: BigInt = {
    val odd = cwndFrac & 1
    val msb = msbOf + odd
    val term = ((BigInt(fsAlpha) * initRsqrt) >> (rsqrtValue + msb / 2 - (cwndFrac + odd) / 2)) + fsBeta
    term.max(0).min(fsRangeNs)
  }
}
