// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.experiments.FatTreeLinkFailure;
import uehw.experiments.FatTreeLinkFailure.Outcome;
import uehw.model.reps.RepsModel.Mode;

/**
 * reps.txt Sec. 3.2 on the network simulator (uehw.experiments.FatTreeLinkFailure): two flows across the
 * k = 8 fat tree (16 paths each), one aggregation-to-core link fails. REPS stops using it at its
 * first freezing event; OPS keeps spraying into it and takes far longer.
 */
@Tag("netsim")
@ExtendWith(BenchExtension.class)
class RepsFailureExperimentTest {
    @Test
    void repsAvoidsTheFailedLinkAfterFreezingOpsDoesNot() {
        long seed = BenchExtension.seed();
        Outcome reps = FatTreeLinkFailure.run(Mode.REPS, seed);
        Outcome ops = FatTreeLinkFailure.run(Mode.OPS, seed);
        System.out.printf("link-failure experiment (seed %d, %s fails at %d us):%n  %s%n  %s%n", seed,
                FatTreeLinkFailure.FAILED_LINK, FatTreeLinkFailure.FAIL_AT_NS / 1000, reps.line(), ops.line());
        assertTrue(reps.finished() && ops.finished(), "seed " + seed + ": every flow completed");
        assertTrue(reps.lost() > 0, "seed " + seed + ": REPS sent into the link before it knew");
        assertTrue(reps.firstFreezeNs() > FatTreeLinkFailure.FAIL_AT_NS, "seed " + seed + ": REPS froze after the failure");
        assertEquals(0, reps.lostSentAfterFirstFreeze(), "seed " + seed + ": nothing sent into the dead link after freezing");
        // OPS keeps sending about 1/16 of its packets into the dead link for the whole run.
        assertTrue(ops.lost() > 10 * reps.lost(), "seed " + seed + ": ops " + ops.lost() + " vs reps " + reps.lost());
        assertEquals(ops.lost(), ops.timeouts(), "seed " + seed + ": every loss is found by its timeout");
        assertTrue(reps.lastFctNs() < ops.lastFctNs(), "seed " + seed + ": REPS finishes first");
    }
}
