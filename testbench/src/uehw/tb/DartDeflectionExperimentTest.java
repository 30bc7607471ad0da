// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.experiments.DeflectionExperiment;
import uehw.experiments.DeflectionExperiment.Outcome;

/**
 * dart.txt Sec. IV on the DFT golden model: short messages stuck behind two colliding long flows
 * finish sooner with in-order flow deflection, stay in order, and the long flows are never deflected.
 */
@Tag("netsim")
@ExtendWith(BenchExtension.class)
class DartDeflectionExperimentTest {
    @Test
    void iofdCutsShortMessageLatencyBehindALongFlowCollision() {
        long seed = BenchExtension.seed();
        Outcome off = DeflectionExperiment.run(false, seed);
        Outcome on = DeflectionExperiment.run(true, seed);
        System.out.printf("IOFD on the k=%d fat tree (seed %d): %d long flows x %d packets in flight collide on ToR 0's uplink;"
                        + " short 2-8 KB messages at %.0f%% of a link, %d tokens; 10 Gb/s, 5 us links%n", DeflectionExperiment.K,
                seed, DeflectionExperiment.LONG_FLOWS.length, DeflectionExperiment.LONG_WINDOW_PACKETS,
                DeflectionExperiment.SHORT_LOAD * 100, DeflectionExperiment.TOKENS);
        System.out.println("  iofd  messages  deflected  mean us  p50 us  p99 us  slowdown  long MB  peak queue KB  refused full");
        for (Outcome o : new Outcome[] {off, on}) {
            System.out.println("  " + DeflectionExperiment.line(o));
        }
        for (Outcome o : new Outcome[] {off, on}) {
            assertTrue(o.allFinished(), "seed " + seed + ": a short message did not finish");
            assertEquals(0, o.reordered(), "seed " + seed + ": a packet reached its receiver out of order");
            assertEquals(0, o.longPacketsDeflected(), "seed " + seed + ": a long flow (no tokens) was deflected");
            assertEquals(0, o.dftEntriesLeft(), "seed " + seed + ": DFT entries leaked");
            assertTrue(o.fctUs().length > 1000, "seed " + seed + ": too few messages");
            assertTrue(o.peakQueueBytes() > 4 * DeflectionExperiment.THRESHOLD, "seed " + seed + ": no standing queue");
        }
        assertEquals(0, off.deflectedMessages());
        // About half the messages are routed onto the congested uplink; those find it above the threshold.
        assertTrue(on.deflectedMessages() > on.fctUs().length / 4, "seed " + seed + ": IOFD deflected too little");
        assertTrue(on.percentile(99) < off.percentile(99) / 2, "seed " + seed + ": p99 " + on.percentile(99)
                + " us with IOFD vs " + off.percentile(99) + " us without");
        assertTrue(on.mean() < off.mean(), "seed " + seed + ": mean");
    }
}
