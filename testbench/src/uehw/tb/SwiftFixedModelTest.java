// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.experiments.IncastExperiment;
import uehw.model.swift.SwiftExactModel;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.swift.SwiftFixedParams;
import uehw.model.swift.SwiftParams;
import uehw.netsim.SwiftWindows;

/**
 * Swift's fixed-point law (the specification of the hardware law) against the exact model: the
 * error of one update from the same state, over a million random states, and the paper's rules
 * (swift-excerpt.txt Alg. 1) in the fixed formats.
 */
@Tag("model")
@ExtendWith(BenchExtension.class)
class SwiftFixedModelTest {
    private static final SwiftParams P = new SwiftParams();
    private static final SwiftFixedParams FP = SwiftFixedParams.of(P);

    /** One packet acknowledged. */
    private static final long ACK_ONE = 1 << SwiftFixedModel.ACKED_FRAC;

    private static double packets(long units) {
        return units / (double) SwiftFixedModel.ONE;
    }

    /** A window between min and max, log-uniform, in window units. */
    private static long randomWindow(SplittableRandom r) {
        double lo = Math.log(P.minCwnd);
        double hi = Math.log(P.maxCwnd);
        return Math.max(FP.minCwnd(), Math.min(FP.maxCwnd(), SwiftFixedModel.cwnd(Math.exp(lo + r.nextDouble() * (hi - lo)))));
    }

    @Test
    void oneUpdateFromTheSameStateIsWithinTheBoundOfTheExactOne() {
        long seed = BenchExtension.seed();
        SplittableRandom r = new SplittableRandom(seed);
        int samples = 1_000_000;
        int flips = 0;
        int compared = 0;
        double maxRel = 0;
        double sumRel = 0;
        double maxOverBound = 0;                 // |fixed - exact| beyond 0.1 % of exact, in window LSBs
        double maxTargetErr = 0;
        double maxPacingRel = 0;
        for (int k = 0; k < samples; k++) {
            SwiftFixedModel fixed = new SwiftFixedModel(1, FP);
            SwiftExactModel exact = new SwiftExactModel(1, P);
            SwiftFixedModel.Flow ff = fixed.flow(0);
            SwiftExactModel.Flow ef = exact.flow(0);
            fixed.setWindows(0, randomWindow(r), randomWindow(r));
            ff.endpointDelay = r.nextLong(20_000L << SwiftFixedModel.EWMA_FRAC);
            ff.rttNs = 12_000 + r.nextLong(40_000);
            ff.retransmitCount = r.nextInt(FP.retxResetThreshold());
            long now = 1_000_000_000L + r.nextLong(1_000_000);
            boolean decreasedBefore = r.nextBoolean();
            long tLast = now - r.nextLong(60_000);
            for (SwiftFixedModel.Window w : new SwiftFixedModel.Window[] {ff.fabric, ff.endpoint}) {
                w.decreased = decreasedBefore;
                w.tLastDecrease = tLast;
            }
            ef.fabric.cwnd = packets(ff.fabric.cwnd);
            ef.endpoint.cwnd = packets(ff.endpoint.cwnd);
            ef.endpointDelayNs = ff.endpointDelay / (double) (1 << SwiftFixedModel.EWMA_FRAC);
            ef.rttNs = ff.rttNs;
            ef.retransmitCount = ff.retransmitCount;
            for (SwiftExactModel.Window w : new SwiftExactModel.Window[] {ef.fabric, ef.endpoint}) {
                w.tLastDecrease = decreasedBefore ? tLast : Long.MIN_VALUE / 2;
            }
            int kind = r.nextInt(10);
            if (kind < 8) {
                long rtt = 12_000 + r.nextLong(40_000);
                long endpointDelay = r.nextLong(Math.min(rtt, 20_000));
                int hops = r.nextInt(7);
                long ackedUnits = (1 << SwiftFixedModel.ACKED_FRAC) / 4 + r.nextLong(4 << SwiftFixedModel.ACKED_FRAC); // a quarter to four packets
                double acked = ackedUnits / (double) (1 << SwiftFixedModel.ACKED_FRAC);
                double exactTarget = P.fabricTargetNs(hops, ef.fabric.cwnd);
                long fixedTarget = fixed.fabricTargetNs(hops, ff.fabric.cwnd);
                maxTargetErr = Math.max(maxTargetErr, Math.abs(fixedTarget - exactTarget));
                double fabricDelay = rtt - endpointDelay;
                exact.ack(0, rtt, endpointDelay, hops, acked, now);
                fixed.ack(0, rtt, endpointDelay, hops, ackedUnits, now);
                // the endpoint window's decision is on the average each model has just updated
                boolean flip = (fabricDelay < exactTarget) != (fabricDelay < fixedTarget)
                        || (ef.endpointDelayNs < P.endpointTargetNs)
                        != ((ff.endpointDelay >> SwiftFixedModel.EWMA_FRAC) < FP.endpointTargetNs());
                if (flip) {
                    flips++;
                    continue;
                }
            } else if (kind == 8) {
                exact.timeout(0, now);
                fixed.timeout(0, now);
            } else {
                exact.fastRecovery(0, now);
                fixed.fastRecovery(0, now);
            }
            for (double[] pair : new double[][] {{packets(ff.fabric.cwnd), ef.fabric.cwnd}, {packets(ff.endpoint.cwnd), ef.endpoint.cwnd}}) {
                double rel = Math.abs(pair[0] - pair[1]) / pair[1];
                maxRel = Math.max(maxRel, rel);
                maxOverBound = Math.max(maxOverBound, (Math.abs(pair[0] - pair[1]) - 1e-3 * pair[1]) * SwiftFixedModel.ONE);
                sumRel += rel;
                compared++;
            }
            // the pacing delay's own arithmetic: rtt / cwnd of the fixed window, exactly
            if (fixed.pacingDelayNs(0) > 0) {
                double exactPacing = ff.rttNs / packets(ff.cwnd());
                maxPacingRel = Math.max(maxPacingRel, Math.abs(fixed.pacingDelayNs(0) - exactPacing) / exactPacing);
            }
        }
        System.out.printf(Locale.ROOT, "swift fixed vs exact, %d random states (seed %d): window relative error max %.5f mean %.7f (%.2f LSB over 0.1 %%); "
                        + "decision flips %d (%.3f%%); fabric target error max %.1f ns; pacing relative error max %.5f%n",
                samples, seed, maxRel, sumRel / compared, maxOverBound, flips, 100.0 * flips / samples, maxTargetErr, maxPacingRel);
        // The tables' 2^-11 and the truncations stay inside 0.1 % plus the window's last bit (2^-18 packets,
        // 0.4 % of the smallest window, 0.001 packets).
        assertTrue(maxOverBound <= 1, "window error " + maxRel + " (" + maxOverBound + " LSB over 0.1 %), seed " + seed);
        // 1/sqrt by a 256-entry table: 2^-9 of alpha / sqrt(fs_min_cwnd) (4.1 us), plus alpha's and beta's rounding.
        assertTrue(maxTargetErr < 10, "target error " + maxTargetErr + " ns, seed " + seed);
        assertTrue(maxPacingRel < 1e-3, "pacing error " + maxPacingRel + ", seed " + seed);
        // A flip needs the delay within the target's error (10 ns) of it, or the EWMA within 1 ns.
        assertTrue(flips < samples / 200, flips + " decision flips, seed " + seed);
    }

    /** Sec. 3.2 in the fixed formats: each ACK below the target adds ai / cwnd (Alg. 1 line 8). */
    @Test
    void additiveIncreaseAddsAboutAiPerWindowOfAcks() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.setWindows(0, SwiftFixedModel.cwnd(10), FP.maxCwnd());
        long now = 0;
        for (int k = 0; k < 10; k++) {
            m.ack(0, 12_000, 0, 0, ACK_ONE, now += 1_000);
        }
        // each ACK divides by the window it reads (line 8)
        double expected = 10;
        for (int k = 0; k < 10; k++) {
            expected += P.ai / expected;
        }
        // each step's 1/cwnd within 2^-11 of the exact one: 10 x 0.1 x 2^-11 at most
        assertEquals(expected, packets(m.flow(0).fabric.cwnd), 1e-3);
    }

    /**
     * No ACK adds more than Alg. 1 would add from the window the ACK reads (lines 7-10): ai x acked / cwnd
     * from one packet up, ai x acked below it, within the reciprocal table's error and one LSB. Directed:
     * a window climbing from 0.001 packets goes 0.001 -> 1.001 -> about 2.0 (with a divisor lagging one
     * update it went to MAX_CWND, 73 packets here, in the second ACK). Then random windows with random
     * decreases and increases between the ACKs.
     */
    /** The reciprocal table's largest relative excess over 1/x: half a bin (2^-11) and the value's rounding (0.5 / 2^13). */
    private static final double TABLE_ERROR = Math.pow(2, -11) + Math.pow(2, -14);

    @Test
    void noAckAddsMoreThanAlg1FromTheWindowItReads() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP.withLimits(SwiftFixedModel.cwnd(0.001), SwiftFixedModel.cwnd(73)));
        m.setWindows(0, SwiftFixedModel.cwnd(0.001), SwiftFixedModel.cwnd(0.001));
        m.ack(0, 12_000, 0, 0, ACK_ONE, 1_000);
        assertEquals(1.001, packets(m.flow(0).fabric.cwnd), 1e-5, "below one packet: ai undivided");
        m.ack(0, 12_000, 0, 0, ACK_ONE, 2_000);
        assertEquals(1.001 + 1 / 1.001, packets(m.flow(0).fabric.cwnd), 1e-3, "from 1.001 packets: + 1 / 1.001");

        long seed = BenchExtension.seed();
        SplittableRandom r = new SplittableRandom(seed);
        SwiftFixedModel w = new SwiftFixedModel(1, FP);
        w.setWindows(0, randomWindow(r), randomWindow(r));
        long now = 0;
        for (int k = 0; k < 200_000; k++) {
            now += 1 + r.nextLong(100_000);
            if (r.nextInt(8) == 0) {
                w.ack(0, 200_000, 0, 0, ACK_ONE, now);                 // far above the target: a decrease when allowed
                continue;
            }
            if (r.nextInt(64) == 0) {
                w.setWindows(0, randomWindow(r), randomWindow(r));
            }
            long acked = 1 + r.nextLong(8L << SwiftFixedModel.ACKED_FRAC);
            long before = w.flow(0).fabric.cwnd;
            w.ack(0, 12_000, 0, 0, acked, now);                          // below the target: an increase
            long added = w.flow(0).fabric.cwnd - before;
            double aiAcked = P.ai * acked / (double) (1 << SwiftFixedModel.ACKED_FRAC);
            double alg1 = packets(before) >= 1 ? aiAcked / packets(before) : aiAcked;
            assertTrue(packets(added) <= alg1 * (1 + TABLE_ERROR) + packets(1),
                    "seed " + seed + ", ACK " + k + ": from " + packets(before) + " packets added " + packets(added)
                    + ", Alg. 1 adds " + alg1);
        }
    }

    /** Lines 11-14: one decrease per RTT however many ACKs are above the target, and the max_mdf floor. */
    @Test
    void oneDecreasePerRttWithTheMaxMdfFloor() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.setWindows(0, SwiftFixedModel.cwnd(40), FP.maxCwnd());
        long rtt = 200_000; // far above the target: 1 - beta x (rtt - target) / rtt < 1 - max_mdf
        m.ack(0, rtt, 0, 0, ACK_ONE, 1_000);
        assertEquals(20.0, packets(m.flow(0).fabric.cwnd), 1e-9, "halved at the max_mdf floor");
        for (int k = 0; k < 5; k++) {
            m.ack(0, rtt, 0, 0, ACK_ONE, 2_000 + k * 1_000);
        }
        assertEquals(20.0, packets(m.flow(0).fabric.cwnd), 1e-9, "no second decrease within the RTT");
        m.ack(0, rtt, 0, 0, ACK_ONE, 1_000 + rtt);
        assertEquals(10.0, packets(m.flow(0).fabric.cwnd), 1e-9, "the next RTT decreases again");
    }

    /** Lines 15-21: timeouts cut by max_mdf once per RTT, then reset to min_cwnd at the threshold. */
    @Test
    void timeoutsCutThenResetAtTheThreshold() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.flow(0).rttNs = 10_000;
        long before = m.flow(0).cwnd();
        m.timeout(0, 1_000);
        assertEquals(before / 2, m.flow(0).cwnd(), 1, "the first timeout halves (max_mdf 0.5)");
        for (int k = 2; k <= FP.retxResetThreshold(); k++) {
            m.timeout(0, 1_000 + k * 20_000L);
        }
        assertEquals(FP.minCwnd(), m.flow(0).cwnd(), "min_cwnd at RETX_RESET_THRESHOLD");
    }

    /** Lines 29-32: below one packet the flow is paced at rtt / cwnd; cwnd 0.5 gives 2 x RTT. */
    @Test
    void halfAPacketIsPacedAtTwoRtts() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.flow(0).fabric.cwnd = SwiftFixedModel.ONE / 2;
        m.flow(0).rttNs = 20_000;
        assertEquals(40_000, m.pacingDelayNs(0), 40, "2 x RTT within the table's 2^-11");
        m.flow(0).fabric.cwnd = SwiftFixedModel.ONE;
        assertEquals(0, m.pacingDelayNs(0), "no pacing from one packet up");
    }

    /** Sec. 3.3: the effective window is the smaller of the fabric and endpoint windows. */
    @Test
    void effectiveWindowIsTheSmaller() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.setWindows(0, SwiftFixedModel.cwnd(30), SwiftFixedModel.cwnd(12));
        assertEquals(SwiftFixedModel.cwnd(12), m.flow(0).cwnd());
    }

    /** Bad input is defined and counted: rtt 0 and an endpoint delay above the RTT leave a fabric delay of 0; hops above 15 count as 15. */
    @Test
    void badInputIsDefinedAndCounted() {
        SwiftFixedModel m = new SwiftFixedModel(1, FP);
        m.setWindows(0, m.flow(0).fabric.cwnd, FP.maxCwnd());
        long before = m.flow(0).fabric.cwnd;
        m.ack(0, 0, 0, 0, ACK_ONE, 1_000);
        assertTrue(m.flow(0).fabric.cwnd > before, "rtt 0: a fabric delay of 0 is below the target: AI");
        before = m.flow(0).fabric.cwnd;
        m.ack(0, 30_000, 40_000, 0, ACK_ONE, 2_000);
        assertTrue(m.flow(0).fabric.cwnd > before, "endpoint delay above the RTT: fabric delay 0, AI");
        before = m.flow(0).fabric.cwnd;
        // 200 hops act as 15: a 40 us RTT is above 12 us + 15 us + at most 4 us of flow scaling, so the
        // window decreases (at 200 hops the target would be 212 us and the window grow)
        m.ack(0, 40_000, 0, 200, ACK_ONE, 3_000);
        assertTrue(m.flow(0).fabric.cwnd < before, "hops above 15 act as 15");
        assertEquals(1, m.counters.get("RTT_ZERO"));
        assertEquals(1, m.counters.get("ENDPOINT_ABOVE_RTT"));
        assertEquals(1, m.counters.get("HOPS_CLAMPED"));
    }

    /**
     * The fixed law in the closed loop: the 8:1 incast of SwiftModelTest with every NIC on
     * SwiftFixedModel, against the exact law with the block's one-update lag (the arithmetic's
     * error) and against Alg. 1 as printed (what the lag changes).
     */
    @Tag("netsim")
    @Test
    void theFixedLawInTheIncastBehavesAsTheExactOne() throws Exception {
        long seed = BenchExtension.seed();
        IncastExperiment x = new IncastExperiment();
        SwiftParams lagged = P.clone();
        lagged.hardwareLag = true;
        java.util.List<SwiftWindows> laggedNics = new java.util.ArrayList<>();
        java.util.List<SwiftWindows> fixedNics = new java.util.ArrayList<>();
        IncastExperiment.Outcome printed = x.run(true, seed, null, (host, flows) -> new SwiftWindows(flows, P, x.mtu));
        IncastExperiment.Outcome exact = x.run(true, seed, null, (host, flows) -> {
            SwiftWindows w = new SwiftWindows(flows, lagged, x.mtu);
            laggedNics.add(w);
            return w;
        });
        IncastExperiment.Outcome fixed = x.run(true, seed, null, (host, flows) -> {
            SwiftWindows w = SwiftWindows.fixed(flows, P, x.mtu);
            fixedNics.add(w);
            return w;
        });
        double exactSum = laggedNics.stream().mapToDouble(w -> w.model.flow(0).cwnd()).sum();
        double fixedSum = fixedNics.stream().mapToDouble(w -> packets(w.fixedModel.flow(0).cwnd())).sum();
        long lastPrinted = java.util.Arrays.stream(printed.fctNs()).max().getAsLong();
        long lastExact = java.util.Arrays.stream(exact.fctNs()).max().getAsLong();
        long lastFixed = java.util.Arrays.stream(fixed.fctNs()).max().getAsLong();
        System.out.printf(Locale.ROOT, "swift 8:1 incast (seed %d), Alg. 1 as printed / exact with the lag / fixed: last completion "
                        + "%.4f / %.4f / %.4f of ideal, mean queue %.0f / %.0f / %.0f B, peak queue %d / %d / %d B, max/min "
                        + "throughput %.3f / %.3f / %.3f; final windows (exact, fixed) %.4f, %.4f packets%n", seed,
                (double) lastPrinted / printed.idealNs(), (double) lastExact / exact.idealNs(), (double) lastFixed / fixed.idealNs(),
                printed.meanQueueBytes(), exact.meanQueueBytes(), fixed.meanQueueBytes(), printed.peakQueueBytes(),
                exact.peakQueueBytes(), fixed.peakQueueBytes(), printed.throughputRatio(), exact.throughputRatio(),
                fixed.throughputRatio(), exactSum, fixedSum);
        // per update the two agree within 0.1 % (above); in the loop a decision a table's error flips (delay within
        // a few ns of the target) sends the two runs apart, so the final windows agree less than one update does
        assertTrue(fixedSum != exactSum && Math.abs(fixedSum - exactSum) < 5e-2 * exactSum, "seed " + seed);
        assertTrue(java.util.Arrays.stream(fixed.fctNs()).allMatch(f -> f > 0), "seed " + seed + ": every flow completed");
        assertEquals(1.0, (double) lastFixed / lastExact, 0.02, "seed " + seed + ": the last flow ends within 2 %");
        assertEquals(1.0, fixed.meanQueueBytes() / exact.meanQueueBytes(), 0.15, "seed " + seed + ": the mean queue within 15 %");
        // the lag itself: the incast ends within 5 % of Alg. 1 as printed
        assertEquals(1.0, (double) lastExact / lastPrinted, 0.05, "seed " + seed + ": the lag moves the last completion < 5 %");
    }
}
