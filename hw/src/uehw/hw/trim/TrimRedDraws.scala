// SPDX-License-Identifier: Apache-2.0
package uehw.hw.trim

import spinal.core._
import spinal.lib._

/** The ports of TrimRedDraws. */
class TrimRedDrawsIo(cfg: TrimQueueConfig) extends Bundle {

  val kMin = in UInt (cfg.occupancyWidth bits)
  val kMax = in UInt (cfg.occupancyWidth bits)
  val seed = in UInt (32 bits)
  /** High in the clock after SEED was written: the generator restarts from the seed (else from the last draw taken). */
  val reseed = in Bool()
  /** High in the clock a new KMIN, KMAX or SEED is in its register. */
  val restart = in Bool()
  /** One threshold a data packet, in order; taking one (fire) uses its draw. */
  val thresholds = master(Stream(UInt(cfg.occupancyWidth + 1 bits)))
  /** The threshold FIFO was pushed while full (the credits prevent it). */
  val overrun = out Bool()
}

/**
 * RED's thresholds (Sec. 3.5; docs/trimming-queue.md, "Sub-blocks"), drawn ahead: the k-th data
 * packet's draw is the k-th xorshift32 value scaled onto [0, KMAX - KMIN) by a multiply-high (two
 * registered 16 x occupancy-width multiplies), and the threshold out is KMIN + draw: the dequeue's
 * `occupancy > KMIN + draw` is `occupancy > KMIN && draw < occupancy - KMIN`
 * (uehw.model.trim.TrimRules.congested, uehw.model.Xorshift32.nextScaled). A change of KMIN, KMAX
 * or SEED (`restart`) recomputes the thresholds not yet taken (from the generator state after the
 * last one taken): the data dequeue waits for them, a few clocks.
 */
class TrimRedDraws(val cfg: TrimQueueConfig) extends Component {
  val io = new TrimRedDrawsIo(cfg)

  val red = new Area {
    private def step(x: UInt): UInt = { val a = x ^ (x |<< 13); val b = a ^ (a |>> 17); b ^ (b |<< 5) }
    val restart = io.restart
    val seed = Mux(io.seed === 0, U(1, 32 bits), io.seed)
    /** The generator state before the next draw to be used; `ahead`, before the next draw to be computed. */
    val used, ahead = Reg(UInt(32 bits)) init (cfg.prngSeed)
    val depth = 8 // covers the draw pipeline's round trip: one data dequeue a clock
    val thresholds = StreamFifo(UInt(cfg.occupancyWidth + 1 bits), depth, latency = 1)
    val credits = Reg(UInt(log2Up(depth + 1) bits)) init (depth)
    val issue = credits =/= 0 && !restart
    val v1 = RegNext(issue) init (False)
    val r1 = RegNext(step(ahead))
    when(issue) { ahead := step(ahead) }
    val span = RegNext(Mux(io.kMax > io.kMin, io.kMax - io.kMin, U(0, cfg.occupancyWidth bits)))
    val v2 = RegNext(v1 && !restart) init (False)
    val low = RegNext(r1(15 downto 0) * span)
    val high = RegNext(r1(31 downto 16) * span)
    val productFull = (high.resize(32 + cfg.occupancyWidth) |<< 16) + low.resize(32 + cfg.occupancyWidth)
    val v3 = RegNext(v2 && !restart) init (False)
    val draw = RegNext(productFull(32, cfg.occupancyWidth bits)) // uniform in [0, span)
    thresholds.io.push.valid := v3 && !restart
    thresholds.io.push.payload := io.kMin.resize(cfg.occupancyWidth + 1) + draw
    thresholds.io.flush := restart
    val take = io.thresholds.fire // a data packet's dequeue used the head threshold
    io.thresholds << thresholds.io.pop
    when(take) { used := step(used) }
    credits := credits - issue.asUInt + take.asUInt
    when(restart) {
      val from = Mux(io.reseed, seed, used)
      used := from
      ahead := from
      credits := depth
    }
  }
  io.overrun := red.thresholds.io.push.isStall
}
