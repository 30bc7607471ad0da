package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import uehw.sim.Seeds;
import uehw.sim.net.DeflectionExperiment;
import uehw.sim.net.DeflectionExperiment.Outcome;

/**
 * dart.txt Sec. IV on the DFT golden model: short messages stuck behind two colliding long flows
 * finish sooner with in-order flow deflection, stay in order, and the long flows are never deflected.
 */
class DartDeflectionExperimentTest {
    @Test
    void iofdCutsShortMessageLatencyBehindALongFlowCollision() {
        long seed = Seeds.next();
        DeflectionExperiment x = new DeflectionExperiment();
        Outcome off = x.run(false, seed);
        Outcome on = x.run(true, seed);
        System.out.printf("IOFD experiment (seed %d): %d ports, %d long flows x %d KB window on port 0, short 2-8 KB"
                        + " messages at %.0f%% load, background %.0f%%, deflection costs %d slots (2 hops); slot = %.1f us%n",
                seed, x.ports, x.longFlows, x.longWindow, x.shortLoad * 100, x.backgroundLoad * 100,
                x.deflectionPenaltySlots, DeflectionExperiment.SLOT_US);
        System.out.println("  iofd  messages  deflected  mean us  p50 us  p99 us  slowdown  long pkts  peak queue KB  refused full");
        for (Outcome o : new Outcome[] {off, on}) {
            System.out.printf("  %-4s  %8d  %9d  %7.1f  %6.1f  %6.1f  %8.1f  %9d  %13d  %12d%n", o.iofd() ? "on" : "off",
                    o.latencySlots().length, o.deflectedMessages(), o.mean() * DeflectionExperiment.SLOT_US,
                    o.percentile(50) * DeflectionExperiment.SLOT_US, o.percentile(99) * DeflectionExperiment.SLOT_US,
                    o.meanSlowdown(), o.longPacketsServed(), o.peakQueueBytes() / 1000, o.refusedFull());
        }
        for (Outcome o : new Outcome[] {off, on}) {
            assertEquals(0, o.reordered(), "seed " + seed + ": a message was delivered out of order");
            assertEquals(0, o.longPacketsDeflected(), "seed " + seed + ": a long flow (no tokens) was deflected");
            assertEquals(0, o.dftEntriesLeft(), "seed " + seed + ": DFT entries leaked");
            assertTrue(o.latencySlots().length > 1000, "seed " + seed + ": too few messages");
        }
        assertEquals(0, off.deflectedMessages());
        assertTrue(on.deflectedMessages() > on.latencySlots().length / 2, "seed " + seed + ": IOFD deflected too little");
        // Behind an ~80 KB standing queue a message waits ~80 slots; deflected it pays ~15 slots of detour.
        assertTrue(on.percentile(99) < off.percentile(99) / 2, "seed " + seed + ": p99 " + on.percentile(99)
                + " with IOFD vs " + off.percentile(99) + " without");
        assertTrue(on.mean() < off.mean() / 2, "seed " + seed + ": mean");
    }
}
