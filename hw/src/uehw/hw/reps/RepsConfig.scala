// SPDX-License-Identifier: Apache-2.0
package uehw.hw.reps

import spinal.core._
import uehw.hw.common._

/** Load-balancing mode chosen at generation. */
object RepsMode {
  /** REPS, reps.txt Sec. 3 Alg. 1-2: circular buffer of recycled EVs, freezing mode. */
  val Reps = "reps"
  /** smartt-reps.txt Alg. 4: one cached EV, round-robin exploration over the first BDP. */
  val Lite = "reps-lite"
  /** Oblivious packet spraying: a random EV for every packet (the papers' baseline). */
  val Ops = "ops"
  val all = Seq(Reps, Lite, Ops)
}

/**
 * Generation parameters of the REPS entropy cache. The run-time values (FREEZING_TIMEOUT,
 * NUM_PKTS_BDP, EVS_SIZE, PRNG seed) are CSRs; the values here are their reset defaults.
 *
 * @param connections     N, connections with state in block RAM
 * @param bufferEntries   B, circular-buffer entries per connection (reps.txt Sec. 3.1: 8)
 * @param evWidth         e, bits of an entropy value (reps.txt Table 1: 16, the UDP source port)
 * @param connIdWidth     width of the connection-id inputs; ids >= N are counted and ignored
 * @param timeWidth       width of `now` and of the exit-freezing time (reps.txt Table 1: 32)
 * @param exploreWidth    width of the explore counter, so NUM_PKTS_BDP <= 2^w - 1 (Table 1: 8)
 */
case class RepsConfig(mode: String = RepsMode.Reps,
                      connections: Int = 1024,
                      bufferEntries: Int = 8,
                      evWidth: Int = 16,
                      connIdWidth: Int = 16,
                      timeWidth: Int = 32,
                      exploreWidth: Int = 8,
                      freezingTimeout: Long = 10000000L,
                      numPktsBdp: Int = 37,
                      evsSize: Long = 0,
                      prngSeed: Long = 0x2545F491L) {
  ParamCheck(RepsMode.all.contains(mode), "mode", s"'$mode' is not one of ${RepsMode.all.mkString(", ")}")
  // One connection is no load balancing, and its state RAMs would need a 0-bit address.
  ParamCheck(connections >= 2 && connections <= 65536, "connections", s"$connections is outside 2..65536")
  ParamCheck(bufferEntries >= 2 && bufferEntries <= 32 && isPow2(bufferEntries), "buffer-entries",
    s"$bufferEntries must be a power of two in 2..32")
  ParamCheck(evWidth >= 1 && evWidth <= 16, "ev-width", s"$evWidth is outside 1..16")
  ParamCheck(connIdWidth >= log2Up(connections) && connIdWidth <= 24, "conn-id-width",
    s"$connIdWidth must be in ${log2Up(connections)}..24 to address $connections connections")
  ParamCheck(timeWidth >= 8 && timeWidth <= 32, "time-width", s"$timeWidth is outside 8..32")
  ParamCheck(exploreWidth >= 1 && exploreWidth <= 16, "explore-width", s"$exploreWidth is outside 1..16")
  ParamCheck(freezingTimeout >= 0 && freezingTimeout < (1L << (timeWidth - 1)), "freezing-timeout",
    s"$freezingTimeout must be in 0..2^(time-width - 1) - 1 (modular time compare)")
  ParamCheck(numPktsBdp >= 0 && numPktsBdp < (1 << exploreWidth), "num-pkts-bdp",
    s"$numPktsBdp must be in 0..${(1 << exploreWidth) - 1} (explore-width $exploreWidth)")
  ParamCheck(evsSize >= 0 && evsSize <= (1L << evWidth), "evs-size",
    s"$evsSize must be in 1..${1L << evWidth} (0 selects 2^ev-width)")
  ParamCheck(prngSeed >= 1 && prngSeed <= 0xFFFFFFFFL, "prng-seed", s"$prngSeed must be in 1..2^32-1")

  /** What each mode needs: reps and reps-lite keep per-connection state, only reps uses time, ops ignores ACK EVs, reps-lite has no PRNG. */
  val hasState: Boolean = mode != RepsMode.Ops
  val usesTime: Boolean = mode == RepsMode.Reps
  val usesAckEv: Boolean = mode != RepsMode.Ops
  val hasPrng: Boolean = mode != RepsMode.Lite

  val connAddrWidth: Int = math.max(1, log2Up(connections))
  val headWidth: Int = log2Up(bufferEntries)
  val filledWidth: Int = log2Up(bufferEntries + 1)
  val evsSizeWidth: Int = evWidth + 1
  val evsSizeDefault: Long = if (evsSize == 0) 1L << evWidth else evsSize

  /** Bits of one connection's control word (the XOR-banked part). */
  def ctrlWidth: Int = mode match {
    case RepsMode.Reps => 2 * headWidth + 2 * filledWidth + 1 + timeWidth + exploreWidth
    case RepsMode.Lite => 2 * evWidth + 1 + exploreWidth
    case RepsMode.Ops => 0
  }
  /** Bits of one connection's EV store (single-ported per writer, so stored once). */
  def evWordWidth: Int = if (mode == RepsMode.Reps) bufferEntries * evWidth else 0
  /** Logical state per connection, the figure to compare with reps.txt Table 1 (193 bits). */
  def stateBitsPerConnection: Int = ctrlWidth + evWordWidth
  /** RAM bits per connection: the control word is stored 4 times (XOR banks x 2 read ports). */
  def ramBitsPerConnection: Int = 4 * ctrlWidth + evWordWidth
}

object RepsConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("mode", RepsMode.Reps, "load balancer: reps (Alg. 1-2), reps-lite (smartt-reps Alg. 4), ops (random per packet)",
      choices = RepsMode.all),
    ParamSpec("connections", "1024", "N, connections with state in block RAM", 2, 65536),
    ParamSpec("buffer-entries", "8", "B, circular-buffer entries (Sec. 3.1: 8)", 2, 32, powerOfTwo = true),
    ParamSpec("ev-width", "16", "e, EV bits", 1, 16),
    ParamSpec("conn-id-width", "16", "width of the connection-id inputs", 1, 24, rangeText = "log2(N)..24"),
    ParamSpec("time-width", "32", "width of `now` and of exitFreezing (Table 1: 32)", 8, 32),
    ParamSpec("explore-width", "8", "explore counter width (Table 1: 8)", 1, 16),
    ParamSpec("freezing-timeout", "10000000", "reset value of FREEZING_TIMEOUT in `now` units (10 ms in ns)", 0, 0x7FFFFFFFL, rangeText = "0..2^(time-width-1)-1"),
    ParamSpec("num-pkts-bdp", "37", "reset value of NUM_PKTS_BDP (100 Gb/s x 12 us / 4 KiB)", 0, 65535, rangeText = "0..2^explore-width-1"),
    ParamSpec("evs-size", "0", "reset value of EVS_SIZE, the entropy space (0 = 2^e)", 0, 65536, rangeText = "0..2^e"),
    ParamSpec("prng-seed", "0x2545F491", "reset seed of the xorshift32 PRNG", 1, 0xFFFFFFFFL, rangeText = "1..2^32-1")
  )

  def fromParams(p: ParamValues): RepsConfig = RepsConfig(
    mode = p.string("mode"), connections = p.int("connections"), bufferEntries = p.int("buffer-entries"),
    evWidth = p.int("ev-width"), connIdWidth = p.int("conn-id-width"), timeWidth = p.int("time-width"),
    exploreWidth = p.int("explore-width"), freezingTimeout = p.long("freezing-timeout"),
    numPktsBdp = p.int("num-pkts-bdp"), evsSize = p.long("evs-size"), prngSeed = p.long("prng-seed"))
}
