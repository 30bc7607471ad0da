package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import uehw.sim.Seeds;
import uehw.sim.net.FailedPathExperiment;
import uehw.sim.net.FailedPathExperiment.Outcome;
import uehw.sim.reps.RepsModel.Mode;

/** reps.txt Sec. 3.2 on the golden model: REPS stops using a failed path at its first freezing event; OPS never does. */
class RepsFailureExperimentTest {
    @Test
    void repsAvoidsTheFailedPathAfterFreezingOpsDoesNot() {
        long seed = Seeds.next();
        FailedPathExperiment x = new FailedPathExperiment();
        Outcome reps = x.run(Mode.REPS, seed);
        Outcome ops = x.run(Mode.OPS, seed);
        System.out.printf("failed-path experiment (seed %d, %d paths, path %d fails at %d us, %d us run):%n",
                seed, x.paths, x.failedPath, x.failAtNs / 1000, x.endNs / 1000);
        System.out.printf("  reps: %d sent, %d into the failed path (%d after the first freeze at %d us), %d timeouts%n",
                reps.sent(), reps.sentIntoFailedPath(), reps.sentIntoFailedPathAfterFirstFreeze(),
                reps.firstFreezeAt() / 1000, reps.timeouts());
        System.out.printf("  ops:  %d sent, %d into the failed path, %d timeouts%n",
                ops.sent(), ops.sentIntoFailedPath(), ops.timeouts());
        assertTrue(reps.firstFreezeAt() > 0, "seed " + seed + ": REPS never froze");
        assertEquals(0, reps.sentIntoFailedPathAfterFirstFreeze(), "seed " + seed);
        // OPS keeps spraying ~1/16 of its packets into the dead path for the whole run.
        assertTrue(ops.sentIntoFailedPath() > 10 * Math.max(1, reps.sentIntoFailedPath()),
                "seed " + seed + ": ops " + ops.sentIntoFailedPath() + " vs reps " + reps.sentIntoFailedPath());
    }
}
