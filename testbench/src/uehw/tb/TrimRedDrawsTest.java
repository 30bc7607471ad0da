// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.trim.TrimQueueConfig;
import uehw.hw.trim.TrimRedDraws;
import uehw.hw.trim.TrimRedDrawsIo;
import uehw.model.Xorshift32;

/**
 * RED's thresholds alone (docs/trimming-queue.md, "Sub-blocks", "RED"): taken at random clocks, each
 * threshold must be KMIN + the next xorshift32 draw scaled onto KMAX - KMIN (Xorshift32.nextScaled,
 * the draw TrimRules.congested makes), in order; a change of KMIN, KMAX or SEED restarts the draws
 * not yet taken, from the last one taken or from the new seed (0 acts as 1); the thresholds come
 * back within a few clocks, and none is lost or pushed while full.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class TrimRedDrawsTest {
    static final TrimQueueConfig CFG = TrimQueueTest.small(16);

    @Test
    void thresholdsFollowTheGeneratorInOrderAcrossRestarts() {
        long seed = BenchExtension.seed();
        Simulation<TrimRedDraws> build = Simulation.compile(TrimRedDrawsTest.class, "w16", () -> new TrimRedDraws(CFG));
        build.run("draws", seed, sim -> run(sim, new Random(seed), 20000 * Seeds.scale()));
    }

    private static void run(Sim<TrimRedDraws> sim, Random r, int clocks) {
        TrimRedDrawsIo io = sim.dut().io();
        long capacity = CFG.capacityBytes();
        long kMin = capacity / 5, kMax = capacity * 4 / 5, seedValue = CFG.prngSeed();
        sim.poke(io.kMin(), kMin);
        sim.poke(io.kMax(), kMax);
        sim.poke(io.seed(), seedValue);
        sim.poke(io.reseed(), false);
        sim.poke(io.restart(), false);
        sim.poke(io.thresholds().ready(), false);
        sim.reset(16);
        Xorshift32 used = new Xorshift32(seedValue);
        int taken = 0, restarts = 0, reseeds = 0;
        long lastRestart = sim.cycle();
        for (int t = 0; t < clocks; t++) {
            boolean restart = r.nextInt(400) == 0;
            boolean reseed = false;
            if (restart) {
                // a CSR write: KMIN, KMAX (KMAX <= KMIN now and then: no draws above KMIN) or SEED (0 now and then)
                switch (r.nextInt(3)) {
                    case 0 -> kMin = r.nextInt(10) == 0 ? kMax + r.nextInt(100) : r.nextLong(capacity);
                    case 1 -> kMax = r.nextInt(10) == 0 ? 0 : r.nextLong(capacity + 1);
                    default -> {
                        seedValue = r.nextInt(5) == 0 ? 0 : r.nextLong(1L << 32);
                        reseed = true;
                    }
                }
                kMin = Math.min(kMin, (1L << CFG.occupancyWidth()) - 1);
                kMax = Math.min(kMax, (1L << CFG.occupancyWidth()) - 1);
                // the register holds the new value from this clock on, restart with it
                sim.poke(io.kMin(), kMin);
                sim.poke(io.kMax(), kMax);
                sim.poke(io.seed(), seedValue);
                if (reseed) {
                    used.reseed(seedValue);
                    reseeds++;
                }
                restarts++;
                lastRestart = sim.cycle();
            }
            sim.poke(io.restart(), restart);
            sim.poke(io.reseed(), reseed);
            boolean ready = !restart && r.nextInt(10) < 6; // the dequeue never takes in a restart clock
            sim.poke(io.thresholds().ready(), ready);
            sim.step();
            assertTrue(!sim.peekBool(io.overrun()), "threshold FIFO pushed while full at edge " + sim.cycle());
            if (ready && sim.peekBool(io.thresholds().valid())) {
                long span = kMax > kMin ? kMax - kMin : 0;
                long want = kMin + used.nextScaled(span);
                assertEquals(want, sim.peek(io.thresholds().payload()), "threshold " + taken + " at edge " + sim.cycle()
                        + " (KMIN " + kMin + ", KMAX " + kMax + ")");
                taken++;
            }
            if (!restart && sim.cycle() - lastRestart > 12) {
                assertTrue(sim.peekBool(io.thresholds().valid()), "no threshold 12 clocks after a restart, at edge " + sim.cycle());
            }
        }
        assertTrue(taken > clocks / 3 && restarts > 20 && reseeds > 5, taken + " taken, " + restarts + " restarts, " + reseeds + " reseeds");
    }
}
