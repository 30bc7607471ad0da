// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.experiments.IncastExperiment;
import uehw.model.swift.SwiftExactModel;
import uehw.model.swift.SwiftParams;
import uehw.netsim.SwiftWindows;

/**
 * Swift's exact model (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) against the paper's rules, each
 * computed by hand here, and Swift next to SMaRTT on the same incast (issue 15's model-level part;
 * the hardware law is not built yet).
 */
@Tag("model")
@ExtendWith(BenchExtension.class)
class SwiftModelTest {
    private static final double EPS = 1e-9;

    private static SwiftExactModel model(double cwnd) {
        SwiftExactModel m = new SwiftExactModel(1, new SwiftParams());
        m.flow(0).fabric.cwnd = cwnd;
        m.flow(0).endpoint.cwnd = m.p.maxCwnd;
        return m;
    }

    /** Sec. 3.2: below the target, cwnd += ai / cwnd per packet ACKed, about ai over one window of ACKs; below 1, ai per packet. */
    @Test
    void additiveIncreaseAddsAboutAiPerRtt() {
        SwiftExactModel m = model(10);
        double target = m.p.fabricTargetNs(1, 10);
        for (int i = 0; i < 10; i++) {
            m.ack(0, target - 1000, 0, 1, 1, i * 100L);
        }
        double grown = m.flow(0).fabric.cwnd - 10;
        assertTrue(grown > 0.9 * m.p.ai && grown <= m.p.ai, "one window of ACKs adds about ai: " + grown);
        SwiftExactModel small = model(0.5);
        small.ack(0, 5000, 0, 1, 1, 0);
        assertEquals(0.5 + small.p.ai, small.flow(0).fabric.cwnd, EPS, "below one packet: + ai x num_acked (line 10)");
    }

    /** Lines 11-14: above the target, cwnd x max(1 - beta (delay - target) / delay, 1 - max_mdf), once per RTT. */
    @Test
    void multiplicativeDecreaseOncePerRttWithTheMaxMdfFloor() {
        SwiftExactModel m = model(20);
        double rtt = 30_000;
        double target = m.p.fabricTargetNs(1, 20);
        double delay = rtt;
        double expected = 20 * Math.max(1 - m.p.beta * (delay - target) / delay, 1 - m.p.maxMdf);
        m.ack(0, rtt, 0, 1, 1, 1_000_000);
        assertEquals(expected, m.flow(0).fabric.cwnd, EPS);
        for (int i = 1; i <= 50; i++) {
            m.ack(0, rtt, 0, 1, 1, 1_000_000 + i * 500L); // 25 us later: still inside the RTT
        }
        assertEquals(expected, m.flow(0).fabric.cwnd, EPS, "no second MD inside one RTT");
        m.ack(0, rtt, 0, 1, 1, 1_000_000 + (long) rtt);
        assertEquals(expected * Math.max(1 - m.p.beta * (delay - m.p.fabricTargetNs(1, expected)) / delay, 1 - m.p.maxMdf),
                m.flow(0).fabric.cwnd, EPS, "the next RTT decreases again");
        SwiftExactModel floor = model(20);
        floor.ack(0, 10 * floor.p.fabricTargetNs(1, 20), 0, 1, 1, 1_000_000);
        assertEquals(20 * (1 - floor.p.maxMdf), floor.flow(0).fabric.cwnd, EPS, "far above the target: the max_mdf floor");
    }

    /** Lines 15-21: timeouts cut by max_mdf (once per RTT) and reset to min_cwnd at RETX_RESET_THRESHOLD; an ACK restarts the count. */
    @Test
    void timeoutsCutThenResetAtTheThreshold() {
        SwiftExactModel m = model(40);
        m.ack(0, 10_000, 0, 1, 1, 0); // an RTT sample: 10 us
        double cwnd = m.flow(0).cwnd();
        for (int i = 1; i < m.p.retxResetThreshold; i++) {
            m.timeout(0, i * 20_000L);
            cwnd *= 1 - m.p.maxMdf;
            assertEquals(cwnd, m.flow(0).fabric.cwnd, EPS, "timeout " + i);
        }
        m.timeout(0, m.p.retxResetThreshold * 20_000L);
        assertEquals(m.p.minCwnd, m.flow(0).cwnd(), EPS, "timeout " + m.p.retxResetThreshold + " resets to min_cwnd");
        SwiftExactModel again = model(40);
        again.ack(0, 10_000, 0, 1, 1, 0);
        for (int i = 1; i < again.p.retxResetThreshold; i++) {
            again.timeout(0, i * 20_000L);
        }
        again.ack(0, 10_000, 0, 1, 1, 200_000);
        again.timeout(0, 300_000);
        assertTrue(again.flow(0).cwnd() > again.p.minCwnd, "an ACK restarted the count (line 4)");
    }

    /** Sec. 3.4, lines 29-32: below one packet the flow is paced at rtt / cwnd: cwnd 0.5 sends a packet every 2 RTTs. */
    @Test
    void fractionalWindowsArePaced() {
        SwiftExactModel m = model(0.5);
        m.flow(0).rttNs = 10_000;
        assertEquals(20_000, m.pacingDelayNs(0), EPS);
        SwiftExactModel one = model(1);
        one.flow(0).rttNs = 10_000;
        assertEquals(0, one.pacingDelayNs(0), EPS, "no pacing from one packet up");
        SwiftWindows nic = new SwiftWindows(1, new SwiftParams(), 4096);
        nic.model.flow(0).fabric.cwnd = 0.25;
        nic.model.flow(0).rttNs = 8_000;
        assertEquals(32_000, nic.pacingNs(0), "the NIC's gap");
    }

    /** Sec. 3.3: the endpoint window follows an EWMA of the endpoint delay; the effective window is the smaller. */
    @Test
    void effectiveWindowIsTheSmallerOfFabricAndEndpoint() {
        SwiftExactModel m = new SwiftExactModel(1, new SwiftParams());
        double rtt = 14_000;
        for (int i = 0; i < 200; i++) {
            m.ack(0, rtt, 12_000, 1, 1, i * 20_000L); // fabric delay 2 us: far below target; endpoint 12 us: above
        }
        SwiftExactModel.Flow f = m.flow(0);
        assertTrue(f.fabric.cwnd > m.p.initCwnd && f.endpoint.cwnd < m.p.initCwnd, f.fabric.cwnd + " / " + f.endpoint.cwnd);
        assertEquals(Math.min(f.fabric.cwnd, f.endpoint.cwnd), f.cwnd(), EPS);
        assertEquals(f.endpoint.cwnd, f.cwnd(), EPS);
    }

    /** Sec. 3.5: base + hops x per_hop + alpha / sqrt(fcwnd) + beta, clamped to [0, fs_range]; fs_range at fs_min_cwnd, 0 at fs_max_cwnd. */
    @Test
    void targetScalesWithHopsAndWindow() {
        SwiftParams p = new SwiftParams();
        assertEquals(p.baseTargetNs + 3 * p.perHopNs + p.fsRangeNs, p.fabricTargetNs(3, p.fsMinCwnd), 1e-6);
        assertEquals(p.baseTargetNs + 3 * p.perHopNs, p.fabricTargetNs(3, p.fsMaxCwnd), 1e-6);
        assertEquals(p.fsRangeNs, p.flowScalingNs(0.001), 1e-6, "clamped at fs_range");
        assertEquals(0, p.flowScalingNs(10_000), 1e-6, "clamped at 0");
        double alpha = p.fsRangeNs / (1 / Math.sqrt(p.fsMinCwnd) - 1 / Math.sqrt(p.fsMaxCwnd));
        assertEquals(alpha / Math.sqrt(4) - alpha / Math.sqrt(p.fsMaxCwnd), p.flowScalingNs(4), 1e-6);
    }

    /**
     * The 8:1 incast of SMaRTT's experiment (100 Gb/s star, 150 KB port with RED and trimming) with
     * Swift's windows next to SMaRTT's: Swift holds the queue near its target (the RTT it aims at is
     * 1 us a hop plus the flow scaling above the base RTT); SMaRTT fills more of the port. Writes
     * build/experiments/swift-vs-smartt-incast.csv.
     */
    @Tag("netsim")
    @Test
    void swiftNextToSmarttOnTheIncast() throws Exception {
        long seed = BenchExtension.seed();
        IncastExperiment x = new IncastExperiment();
        IncastExperiment.Outcome smartt = x.run(true, seed, null);
        SwiftParams sp = new SwiftParams();
        IncastExperiment.Outcome swift = x.run(true, seed, null, (host, flows) -> new SwiftWindows(flows, sp, x.mtu));
        Path csv = Path.of("build", "experiments", "swift-vs-smartt-incast.csv");
        Files.createDirectories(csv.getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("law,last_over_ideal,max_min_ratio,peak_queue_bytes,mean_queue_bytes,trims,timeouts");
            for (var e : new Object[][] {{"smartt", smartt}, {"swift", swift}}) {
                IncastExperiment.Outcome o = (IncastExperiment.Outcome) e[1];
                long last = Arrays.stream(o.fctNs()).max().getAsLong();
                String line = String.format(Locale.ROOT, "%s,%.4f,%.4f,%d,%.0f,%d,%d", e[0], (double) last / o.idealNs(),
                        o.throughputRatio(), o.peakQueueBytes(), o.meanQueueBytes(), o.trims(), o.timeouts());
                out.println(line);
                System.out.println("8:1 incast (seed " + seed + "): " + line);
                assertTrue(Arrays.stream(o.fctNs()).allMatch(f -> f > 0), e[0] + ": every flow completed");
            }
        }
        double slackBytes = (sp.fabricTargetNs(1, 4.5) - x.baseRttNs) * x.gbps / 8;
        assertTrue(swift.meanQueueBytes() < 3 * slackBytes,
                "seed " + seed + ": Swift's mean queue " + swift.meanQueueBytes() + " B near its target's " + slackBytes + " B");
        assertTrue(swift.meanQueueBytes() < smartt.meanQueueBytes(), "seed " + seed + ": Swift holds a smaller queue than SMaRTT");
    }
}
