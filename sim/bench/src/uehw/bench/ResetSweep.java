// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.List;

import spinal.core.Bool;
import uehw.bench.facade.Sim;

/**
 * The post-reset sweep as a user sees it: reset held 16 clocks (docs/integration.md), then the edges until the block's
 * init-done output is read high, every input ready checked low until then. Used by each block's
 * boundary tests against the count its doc page gives.
 */
public final class ResetSweep {
    private ResetSweep() {
    }

    /**
     * Resets the design ({@code Sim.reset(16)}) and returns the steps after it until {@code initDone}
     * reads high; fails if a ready reads high before. A sweep the doc pages give as S clocks after
     * reset is released reads done S steps after {@code Sim.reset(16)} returns, the same on every
     * block: the reset's last step is the first edge with reset low, the sweep's S clocks follow it,
     * and initDone's register is read a step after the edge that set it.
     */
    public static long stepsUntilInitDone(Sim<?> sim, Bool initDone, List<Bool> readies, long atMost) {
        sim.reset(16); // ends with one edge with reset low
        for (long steps = 0; steps <= atMost; steps++) {
            if (sim.peekBool(initDone)) {
                return steps;
            }
            for (Bool ready : readies) {
                if (sim.peekBool(ready)) {
                    throw new AssertionError("an input is ready " + steps + " steps after reset, before initDone rose");
                }
            }
            sim.step();
        }
        throw new AssertionError("initDone did not rise within " + atMost + " steps of the reset");
    }
}
