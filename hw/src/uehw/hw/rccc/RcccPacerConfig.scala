// SPDX-License-Identifier: Apache-2.0
package uehw.hw.rccc

import spinal.core._
import uehw.hw.common._

/**
 * Generation parameters of RCCC's receiver pull pacer (Ultra Ethernet 1.0 RCCC; the UEC reference
 * simulator's UecPullPacer, uet-htsim 40ccb05 uec.cpp:3044-3175). The four timing and credit values
 * are the reset values of CSRs of the same names.
 *
 * @param connections  N, connections paced (their pull state in block RAM)
 * @param connIdWidth  width of the connection-id input (ids >= N are counted and ignored)
 * @param psPerQuantum PS_PER_QUANTUM: ps a 256-byte quantum takes at the pacer's rate (uec.cpp:3045-3051:
 *                     8 x 256 B / 100 Gb/s / 0.99 = 20,686)
 * @param clockPs      CLOCK_PS: the clock period in ps (250 MHz: 4000)
 * @param creditPerPull CREDIT_PER_PULL: quanta one pull grants at most (uec.cpp:33-36: 64)
 * @param maxwndQuanta MAXWND_QUANTA: slow pulls stop when a connection is this many quanta beyond its
 *                     target (uec.h:332: 262,926 B >> 8 = 1027)
 * @param oversubscribedCc the oversubscription controller (oversubscribed_cc.cpp): an arrival input, and the
 *                     time per quantum divided by its rate (RcccOversubscribedCc)
 * @param occPeriodClocks OCC_PERIOD_CLOCKS' reset value: 1.5 network RTTs in clocks (14.02 us at 4 ns: 5259)
 * @param occMinRate   OCC_MIN_RATE's reset value: the rate's floor in 2^-30 (0.01: 10,737,418)
 * @param occSeed      the interval draws' xorshift32 seed
 */
case class RcccPacerConfig(connections: Int = 1024, connIdWidth: Int = 16, psPerQuantum: Long = 20686,
                           clockPs: Long = 4000, creditPerPull: Long = 64, maxwndQuanta: Long = 1027,
                           oversubscribedCc: Boolean = false, occPeriodClocks: Long = 5259, occMinRate: Long = 10737418L,
                           occSeed: Long = 0x2545F491L) {
  /** Without the controller (Java sees no default arguments). */
  def this(connections: Int, connIdWidth: Int, psPerQuantum: Long, clockPs: Long, creditPerPull: Long, maxwndQuanta: Long) =
    this(connections, connIdWidth, psPerQuantum, clockPs, creditPerPull, maxwndQuanta, false)
  /** The same pacer with the oversubscription controller. */
  def withOversubscribedCc(periodClocks: Long, minRate: Long, seed: Long): RcccPacerConfig =
    copy(oversubscribedCc = true, occPeriodClocks = periodClocks, occMinRate = minRate, occSeed = seed)
  ParamCheck(connections >= 2 && connections <= 65536, "connections", s"$connections is outside 2..65536")
  ParamCheck(connIdWidth >= log2Up(connections) && connIdWidth <= 24, "conn-id-width",
    s"$connIdWidth must be in ${log2Up(connections)}..24 for $connections connections")
  ParamCheck(psPerQuantum >= 1 && psPerQuantum < (1L << RcccPacer.psPerQuantumBits), "ps-per-quantum",
    s"$psPerQuantum must be in 1..2^${RcccPacer.psPerQuantumBits}-1")
  ParamCheck(clockPs >= 1 && clockPs < (1L << RcccPacer.clockPsBits), "clock-ps", s"$clockPs must be in 1..2^${RcccPacer.clockPsBits}-1")
  ParamCheck(creditPerPull >= 1 && creditPerPull < (1L << RcccPacer.creditBits), "credit-per-pull",
    s"$creditPerPull must be in 1..2^${RcccPacer.creditBits}-1")
  ParamCheck(maxwndQuanta >= 0 && maxwndQuanta < (1L << RcccPacer.maxwndBits), "maxwnd-quanta",
    s"$maxwndQuanta must be in 0..2^${RcccPacer.maxwndBits}-1")
  ParamCheck(occPeriodClocks >= RcccOversubscribedCc.minPeriodClocks && occPeriodClocks < (1L << RcccOversubscribedCc.periodBits),
    "occ-period-clocks", s"$occPeriodClocks must be in ${RcccOversubscribedCc.minPeriodClocks}..2^${RcccOversubscribedCc.periodBits}-1")
  ParamCheck(occMinRate >= 1 && occMinRate <= (1L << RcccOversubscribedCc.F), "occ-min-rate", s"$occMinRate must be in 1..2^30")
  ParamCheck(occSeed >= 1 && occSeed <= 0xFFFFFFFFL, "occ-seed", s"$occSeed must be in 1..2^32-1")
  val connAddrWidth: Int = log2Up(connections)
  /** Bits per connection: the highest target (32), open and the two on-list bits, the latest pull (32). */
  def stateBitsPerConnection: Int = 32 + 3 + 32
}

object RcccPacerConfig {
  val params: Seq[ParamSpec] = Seq(
    ParamSpec("connections", "1024", "N, connections paced (highest target, latest pull and list bits per connection, in block RAM)", 2, 65536),
    ParamSpec("conn-id-width", "16", "width of the connection-id input; ids >= N are counted and ignored", 1, 24, rangeText = "log2(connections)..24"),
    ParamSpec("ps-per-quantum", "20686", "reset value of PS_PER_QUANTUM, ps per 256-byte quantum at the pacer's rate: 8 x 256 / link Gb/s / 0.99 x 1000 (100 Gb/s: 20686, 400 Gb/s: 5171)", 1, (1L << 24) - 1, rangeText = "1..2^24-1"),
    ParamSpec("clock-ps", "4000", "reset value of CLOCK_PS, the clock period in ps (250 MHz: 4000)", 1, (1L << 16) - 1, rangeText = "1..2^16-1"),
    ParamSpec("credit-per-pull", "64", "reset value of CREDIT_PER_PULL, quanta a pull grants at most (the reference's 16 KiB: 64)", 1, (1L << 12) - 1, rangeText = "1..2^12-1"),
    ParamSpec("maxwnd-quanta", "1027", "reset value of MAXWND_QUANTA, quanta of slow credit beyond its target an idle connection may get (262,926 B: 1027)", 0, (1L << 20) - 1, rangeText = "0..2^20-1"),
    ParamSpec("oversubscribed-cc", "false", "the oversubscription controller (oversubscribed_cc.cpp): an arrival input whose ECN marks and trims set a rate that divides the time per quantum", choices = Seq("false", "true")),
    ParamSpec("occ-period-clocks", "5259", "reset value of OCC_PERIOD_CLOCKS, 1.5 network RTTs in clocks (14.02 us at 250 MHz: 5259); intervals are U[0.75, 1.25] of it", 512, (1L << 20) - 1, rangeText = "512..2^20-1"),
    ParamSpec("occ-min-rate", "10737418", "reset value of OCC_MIN_RATE, the controller's floor in 2^-30 (0.01: 10737418; 0.9 / oversubscription ratio when above it)", 1, 1L << 30, rangeText = "1..2^30"),
    ParamSpec("occ-seed", "625341585", "seed of the controller's interval draws (xorshift32)", 1, 0xFFFFFFFFL, rangeText = "1..2^32-1"))

  def fromParams(p: ParamValues): RcccPacerConfig =
    RcccPacerConfig(connections = p.int("connections"), connIdWidth = p.int("conn-id-width"),
      psPerQuantum = p.long("ps-per-quantum"), clockPs = p.long("clock-ps"),
      creditPerPull = p.long("credit-per-pull"), maxwndQuanta = p.long("maxwnd-quanta"),
      oversubscribedCc = p.string("oversubscribed-cc") == "true", occPeriodClocks = p.long("occ-period-clocks"),
      occMinRate = p.long("occ-min-rate"), occSeed = p.long("occ-seed"))
}
