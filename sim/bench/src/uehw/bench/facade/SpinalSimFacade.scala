// SPDX-License-Identifier: Apache-2.0
package uehw.bench.facade
import java.math.BigInteger
import java.nio.file.Path
import java.util.function.{Consumer, Supplier}

import spinal.core._
import spinal.core.sim._
import spinal.sim.SimThread

/**
 * The thin Scala layer between SpinalSim and the Java harness (uehw.bench.Simulation):
 * compile a component with Verilator into a per-test workspace, run a Java body in the
 * simulation thread, poke/peek any BaseType, step the clock, fork and join threads.
 */
object SpinalSimFacade {
  def compile[T <: Component](top: Supplier[T], workspace: Path, name: String): Compiled[T] = {
    val config = SimConfig
      .withFstWave
      .withConfig(SpinalConfig(defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC)))
      .workspacePath(workspace.toString)
      .workspaceName(name)
      .cachePath(workspace.resolve(".cache").toString)
    new Compiled(config.compile(top.get()))
  }

  /** Keeps an inner signal (or bundle) visible to peek: call it on the top's parts while `top` builds them. */
  def exposeToSim(d: Data): Unit = d.simPublic()
}

final class Compiled[T <: Component](val compiled: SimCompiled[T]) {
  /** Runs `body`; waves are recorded from cycle `waveFromCycle` on (0: all, negative: none). */
  def run(testName: String, seed: Int, waveFromCycle: Long, body: Consumer[Sim[T]]): Unit =
    compiled.doSim(testName, seed) { dut =>
      val sim = new Sim(dut, waveFromCycle)
      body.accept(sim)
    }
}

final class Sim[T <: Component](val dut: T, waveFromCycle: Long) {
  private val cd = dut.clockDomain
  private var cycles = 0L
  if (waveFromCycle != 0) disableSimWave()
  cd.forkStimulus(10)

  def cycle: Long = cycles
  /**
   * Advances n rising edges. Inputs poked before are sampled at the first edge; values read
   * afterwards are those sampled at the last edge (so valid && ready read then means "taken
   * at that edge"), registers show their pre-edge value.
   */
  def step(n: Int): Unit = {
    var i = 0
    while (i < n) {
      cd.waitSampling(); cycles += 1; i += 1
      if (cycles == waveFromCycle) enableSimWave()
    }
  }
  def step(): Unit = step(1)
  /**
   * Synchronous reset held for `n` rising edges, then one edge with it low. The edges under reset
   * are waited as rising edges, not samplings: SpinalSim's sampling excludes edges under reset, so
   * waiting samplings would hang on any reset but the clock stimulus' own power-on one, which it
   * releases itself after 16 clocks (a second reset of a bench used to hang here).
   */
  def reset(n: Int): Unit = {
    cd.assertReset()
    var i = 0
    while (i < n) {
      cd.waitRisingEdge(); cycles += 1; i += 1
      if (cycles == waveFromCycle) enableSimWave()
    }
    cd.deassertReset()
    step(1)
  }

  def poke(bt: BaseType, v: Long): Unit = setLong(bt, v)
  def poke(bt: BaseType, v: Boolean): Unit = setLong(bt, if (v) 1L else 0L)
  def poke(bt: BaseType, v: BigInteger): Unit = setBigInt(bt, BigInt(v))
  def peek(bt: BaseType): Long = bt match {
    case b: Bool => if (b.toBoolean) 1L else 0L
    case v: BitVector => v.toLong
    case e => e.toBigInt.toLong
  }
  def peekBool(bt: Bool): Boolean = bt.toBoolean
  def peekBig(bt: BaseType): BigInteger = bt match {
    case v: BitVector => v.toBigInt.bigInteger
    case b: Bool => if (b.toBoolean) BigInteger.ONE else BigInteger.ZERO
    case e => e.toBigInt.bigInteger
  }

  /** Starts `body` as a concurrent simulation thread (drivers, monitors). */
  def fork(body: Runnable): SimThread = spinal.core.sim.fork(body.run())
  def join(t: SimThread): Unit = t.join()
  /** Waits for the next rising edge without counting it (for forked threads). */
  def waitSampling(): Unit = cd.waitSampling()
}
