// SPDX-License-Identifier: Apache-2.0
package uehw.hw.dart

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of Dart's deflected flow table (dart.txt Sec. IV-A, Fig. 7). The run-time
 * policy (threshold, minimum tokens, token policy, masks, ToR mode, seed) lives in CSRs; the
 * values here are their reset defaults (dart.txt Sec. VI-A: 8 entries, 15 KB threshold).
 *
 * @param entries        E, DFT entries (a CAM in flip-flops)
 * @param ports          P, switch output ports; the routed and deflected ports are < P
 * @param flowIdWidth    width of the flow / RDMA message id, the CAM key
 * @param tokenWidth     width of the deflection-token field of the transport header (4 tokens need 3)
 * @param occupancyWidth width of the routed queue's byte occupancy and of the threshold
 * @param metaWidth      opaque per-packet bits carried to the output (e.g. a descriptor handle)
 * @param threshold      reset value of THRESHOLD: deflect only above this many queued bytes
 * @param minTokens      reset value of MIN_TOKENS: a start packet needs this many tokens to be deflected
 */
case class DartDftConfig(entries: Int = 8,
                         ports: Int = 32,
                         flowIdWidth: Int = 32,
                         tokenWidth: Int = 3,
                         occupancyWidth: Int = 24,
                         metaWidth: Int = 16,
                         threshold: Long = 15000,
                         minTokens: Int = 1,
                         prngSeed: Long = 0x5EED1234L) {
  ParamCheck(entries >= 1 && entries <= 64, "entries", s"$entries is outside 1..64")
  ParamCheck(ports >= 2 && ports <= 64, "ports", s"$ports is outside 2..64")
  ParamCheck(flowIdWidth >= 1 && flowIdWidth <= 64, "flow-id-width", s"$flowIdWidth is outside 1..64")
  ParamCheck(tokenWidth >= 1 && tokenWidth <= 8, "token-width", s"$tokenWidth is outside 1..8")
  ParamCheck(occupancyWidth >= 8 && occupancyWidth <= 32, "occupancy-width", s"$occupancyWidth is outside 8..32")
  ParamCheck(metaWidth >= 1 && metaWidth <= 64, "meta-width", s"$metaWidth is outside 1..64")
  ParamCheck(threshold >= 0 && threshold < (1L << occupancyWidth), "threshold",
    s"$threshold must be in 0..${(1L << occupancyWidth) - 1} (occupancy-width $occupancyWidth)")
  ParamCheck(minTokens >= 0 && minTokens < (1 << tokenWidth), "min-tokens",
    s"$minTokens must be in 0..${(1 << tokenWidth) - 1} (token-width $tokenWidth)")
  ParamCheck(prngSeed >= 1 && prngSeed <= 0xFFFFFFFFL, "prng-seed", s"$prngSeed must be in 1..2^32-1")

  val portWidth: Int = log2Up(ports)
  /** Width of a count of ports 0..P. */
  val portCountWidth: Int = log2Up(ports + 1)
  val entryCountWidth: Int = log2Up(entries + 1)
  /** Bits of one DFT entry: valid, flow id, deflected port. */
  def entryBits: Int = 1 + flowIdWidth + portWidth
}

object DartDftConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("entries", "8", "E, DFT entries, a CAM in flip-flops (dart.txt Sec. VI-A: 8)", 1, 64),
    ParamSpec("ports", "32", "P, switch output ports", 2, 64),
    ParamSpec("flow-id-width", "32", "width of the flow / RDMA message id, the CAM key", 1, 64),
    ParamSpec("token-width", "3", "width of the header's deflection-token field (4 tokens need 3 bits)", 1, 8),
    ParamSpec("occupancy-width", "24", "width of the queue byte occupancy input and of THRESHOLD", 8, 32),
    ParamSpec("meta-width", "16", "opaque bits carried from packet to decision (e.g. a descriptor handle)", 1, 64),
    ParamSpec("threshold", "15000", "reset value of THRESHOLD in bytes (dart.txt Sec. VI-A: 15 KB, below the 22.5 KB ECN threshold)", 0, 0xFFFFFFFFL, rangeText = "0..2^occupancy-width-1"),
    ParamSpec("min-tokens", "1", "reset value of MIN_TOKENS", 0, 255, rangeText = "0..2^token-width-1"),
    ParamSpec("prng-seed", "0x5EED1234", "reset seed of the xorshift32 PRNG that draws deflection ports", 1, 0xFFFFFFFFL, rangeText = "1..2^32-1")
  )

  def fromParams(p: ParamValues): DartDftConfig = DartDftConfig(
    entries = p.int("entries"), ports = p.int("ports"), flowIdWidth = p.int("flow-id-width"),
    tokenWidth = p.int("token-width"), occupancyWidth = p.int("occupancy-width"), metaWidth = p.int("meta-width"),
    threshold = p.long("threshold"), minTokens = p.int("min-tokens"), prngSeed = p.long("prng-seed"))
}
