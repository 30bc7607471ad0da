// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.bench.ResetSweep;
import uehw.bench.Simulation;
import uehw.bench.csr.SwiftCsr;
import uehw.bench.swift.SwiftBench;
import uehw.experiments.IncastExperiment;
import uehw.hw.swift.Swift;
import uehw.hw.swift.SwiftConfig;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.swift.SwiftFixedModel.Change;
import uehw.model.swift.SwiftFixedModel.Event;
import uehw.model.swift.SwiftFixedModel.Kind;
import uehw.model.swift.SwiftFixedParams;
import uehw.model.swift.SwiftParams;
import uehw.netsim.SwiftWindows;
import uehw.netsim.rtl.SwiftRtlWindows;

/** Swift window unit: RTL against the bit-exact model, the paper's rules on the RTL, bad input, line rate. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class SwiftTest {
    static final SwiftConfig DEFAULT = new SwiftConfig(1024, 16, 24);
    /** N = 6 (not a power of two) behind 4-bit flow ids, 16-bit delays: ids 6..15 are out of range. */
    static final SwiftConfig SMALL = new SwiftConfig(6, 4, 16);
    static final long ONE = SwiftFixedModel.ONE;
    static final long ACK_ONE = 1L << SwiftFixedModel.ACKED_FRAC;

    @FunctionalInterface
    interface BenchBody {
        void run(SwiftBench bench, long seed) throws Exception;
    }

    static void withBench(SwiftConfig cfg, String testName, BenchBody body) {
        BenchExtension.bench(Simulation.compile(SwiftTest.class, "n" + cfg.flows() + "_f" + cfg.flowIdWidth() + "_d" + cfg.delayWidth(),
                () -> new Swift(cfg)), testName, SwiftBench::new, body::run);
    }

    static Event ack(int flow, long rtt, long endpointDelay, int hops, long acked) {
        return new Event(flow, Kind.ACK, rtt, endpointDelay, hops, acked, 0);
    }

    static Event of(int flow, Kind kind) {
        return new Event(flow, kind, 0, 0, 0, 0, 0);
    }

    /** An event with every field random around the law's targets, bad input included. */
    static Event randomEvent(Random r, SwiftFixedParams p, int flow, int delayWidth) {
        int k = r.nextInt(100);
        Kind kind = k < 84 ? Kind.ACK : k < 91 ? Kind.NACK : k < 97 ? Kind.TIMEOUT : Kind.INIT;
        long target = p.baseTargetNs() + 3 * p.perHopNs();
        long rtt = switch (r.nextInt(20)) {
            case 0 -> 0;
            case 1 -> r.nextLong(1L << delayWidth);
            case 2, 3 -> r.nextLong(Math.max(1, target));
            default -> (long) (target * (0.6 + 1.2 * r.nextDouble()));
        };
        long endpointDelay = switch (r.nextInt(10)) {
            case 0 -> rtt + r.nextInt(5000);                                    // above the RTT
            case 1 -> 0;
            case 2 -> r.nextLong(1L << delayWidth);
            default -> (long) (p.endpointTargetNs() * 2 * r.nextDouble());
        };
        int hops = switch (r.nextInt(20)) {
            case 0 -> 16 + r.nextInt(240);
            default -> r.nextInt(8);
        };
        long acked = switch (r.nextInt(10)) {
            case 0 -> 0;
            case 1 -> r.nextLong(1 << 13);
            default -> ACK_ONE / 4 + r.nextLong(2 * ACK_ONE);
        };
        return new Event(flow, kind, rtt, endpointDelay, hops, acked, 0);
    }

    /** Random CSRs: gains above one, windows out of order, thresholds 0..7, every EWMA gain. */
    static SwiftFixedParams randomParams(Random r, SwiftFixedParams d) {
        long min = r.nextInt(4) == 0 ? r.nextInt(300) : d.minCwnd() + r.nextInt((int) ONE);
        long max = r.nextInt(8) == 0 ? r.nextLong(min + 1) : (long) (ONE * (2 + 200 * r.nextDouble()));
        return new SwiftFixedParams(r.nextInt(1 << 13), r.nextInt(8) == 0 ? r.nextInt(1 << 16) : r.nextInt(1 << 15),
                r.nextInt(8) == 0 ? r.nextInt(1 << 16) : r.nextInt(1 << 15), min, max, r.nextLong(1L << 26), r.nextInt(8),
                4000 + r.nextInt(30000), r.nextInt(4000), r.nextInt(1 << 16), r.nextInt(1 << 20), -r.nextInt(1 << 19),
                1000 + r.nextInt(20000), r.nextInt(16), r.nextBoolean());
    }

    /**
     * Random events over many flows, a hot flow on consecutive clocks, every kind, delays around
     * both targets, bad input (rtt 0, endpoint delay above the RTT, hops above 15, ids >= N, acked
     * 0 or large), time advancing slowly or in jumps past RTTs and across the 2^32 wrap, idle
     * phases, and the CSRs changed between phases (one phase with MAX_CWND below MIN_CWND and
     * INIT_CWND below both) and one at a time among the events (the model following at the
     * documented edges). Every update, retransmit request and counter
     * equals the fixed-point model's.
     */
    void randomEventsMatchModel(SwiftConfig cfg, int events, String name) {
        withBench(cfg, name, (b, seed) -> {
            Random r = new Random(seed);
            int idSpan = 1 << cfg.flowIdWidth();
            int phases = 10;
            int writes = 0;
            SwiftFixedParams reset = SwiftBench.resetParams();
            for (int phase = 0; phase < phases; phase++) {
                b.idle(r, phase % 2 == 0 ? 0 : 0.3);
                long step = new long[] {3, 200, 4000}[phase % 3];
                if (phase == 5) {
                    b.setNow((1L << 32) - 2_000_000);   // the wrap comes in this phase
                }
                b.clock(t -> t + (r.nextInt(16) == 0 ? r.nextInt(100_000) : step));
                int hot = r.nextInt(cfg.flows());
                for (int i = 0; i < events / phases; i++) {
                    int pick = r.nextInt(100);
                    int flow = pick < 40 ? hot : pick < 42 ? r.nextInt(idSpan) : r.nextInt(Math.min(cfg.flows(), 64));
                    if (r.nextInt(50) == 0) {
                        hot = r.nextInt(cfg.flows());
                    }
                    b.push(randomEvent(r, b.model.p, flow, cfg.delayWidth()));
                    if (r.nextInt(1000) == 0) {
                        // Timeouts back to back on one flow up to the reset threshold (lines 15-21): with
                        // ACKs among them the random traffic reaches a reset only when a phase draws a low threshold.
                        for (int t = 0; t <= b.model.p.retxResetThreshold(); t++) {
                            b.push(new Event(flow, Kind.TIMEOUT, 0, 0, 0, 0, 0));
                        }
                    }
                    if (r.nextInt(2000) == 0 && b.actions().csrIdle()) {
                        b.counter(SwiftCsr.EVENTS);   // a CSR access with events presented: none taken twice or lost
                    }
                    if (r.nextInt(1500) == 0 && b.actions().csrIdle()) {
                        // One register written among the events, the model following at its documented edge.
                        List<Integer> registers = List.copyOf(SwiftBench.csrImage(b.model.p).keySet());
                        b.writeRegisterAmongEvents(r, registers.get(r.nextInt(registers.size())), randomParams(r, reset));
                        writes++;
                    }
                    if (i % 256 == 0) {
                        while (!b.inputIdle()) {
                            b.step();
                        }
                    }
                }
                b.drain();
                b.assertCounters();
                SwiftFixedParams next = phase % 3 == 2 ? reset : randomParams(r, reset);
                if (phase == 3) {
                    // the next phase at the limits: MAX_CWND below MIN_CWND, INIT_CWND below both
                    long min = reset.minCwnd() + r.nextInt((int) ONE);
                    next = new SwiftFixedParams(next.ai(), next.beta(), next.maxMdf(), min, min / 2 + 1, min / 4,
                            next.retxResetThreshold(), next.baseTargetNs(), next.perHopNs(), next.fsRangeNs(), next.fsAlpha(),
                            next.fsBeta(), next.endpointTargetNs(), next.endpointEwmaShift(), next.line27AsPrinted());
                }
                b.writeParams(next);
            }
            b.drain();
            b.assertCounters();
            for (int a : new int[] {SwiftCsr.FABRIC_INCREASES, SwiftCsr.FABRIC_DECREASES, SwiftCsr.ENDPOINT_INCREASES,
                    SwiftCsr.ENDPOINT_DECREASES, SwiftCsr.HELD, SwiftCsr.RESETS, SwiftCsr.OUT_OF_RANGE, SwiftCsr.RTT_ZERO,
                    SwiftCsr.ENDPOINT_ABOVE_RTT, SwiftCsr.HOPS_CLAMPED, SwiftCsr.CLAMPED_MAX, SwiftCsr.CLAMPED_MIN, SwiftCsr.PACED}) {
                assertTrue(b.counter(a) > 0, String.format("the traffic never counted at 0x%02X", a));
            }
            System.out.printf("swift N=%d: %d events, %d updates matched, seed %d, %d CSR writes among events; fabric +%d -%d, endpoint +%d -%d, held %d, "
                            + "resets %d, clamped max %d min %d, paced %d%n", cfg.flows(), events, b.updates.matched(), seed,
                    writes, b.counter(SwiftCsr.FABRIC_INCREASES), b.counter(SwiftCsr.FABRIC_DECREASES),
                    b.counter(SwiftCsr.ENDPOINT_INCREASES), b.counter(SwiftCsr.ENDPOINT_DECREASES), b.counter(SwiftCsr.HELD),
                    b.counter(SwiftCsr.RESETS), b.counter(SwiftCsr.CLAMPED_MAX), b.counter(SwiftCsr.CLAMPED_MIN),
                    b.counter(SwiftCsr.PACED));
        });
    }

    @Tag("soak")
    @Test
    void millionRandomEventsMatchTheModel() {
        randomEventsMatchModel(DEFAULT, 1_000_000 * Seeds.scale(), "random_n1024");
    }

    @Tag("soak")
    @Test
    void smallConfigurationMatchesTheModel() {
        randomEventsMatchModel(SMALL, 100_000 * Seeds.scale(), "random_n6");
    }

    /** The generation parameters at their limits: one flow behind a 1-bit id with 16-bit delays; 65536 behind 24-bit ids with 24-bit delays. */
    @Tag("soak")
    @Test
    void generationLimitsMatchTheModel() {
        randomEventsMatchModel(new SwiftConfig(1, 1, 16), 50_000 * Seeds.scale(), "limits_n1");
        randomEventsMatchModel(new SwiftConfig(65536, 24, 24), 100_000 * Seeds.scale(), "limits_n65536");
    }

    /**
     * Alg. 1 on the RTL, with values from the paper's rules written out: below the target one
     * window of ACKs adds about ai; above it one decrease per RTT, at the max_mdf floor far above;
     * timeouts halve, then reset to min_cwnd at RETX_RESET_THRESHOLD; half a packet is paced at
     * 2 x RTT; the effective window is the smaller.
     */
    @Test
    void thePapersRulesOnTheRtl() {
        withBench(DEFAULT, "paper_rules", (b, seed) -> {
            b.clock(t -> t + 10);
            // AI (lines 6-10): a 10-packet window, 10 ACKs of one packet at 12 us: + about 1 packet
            b.push(of(1, Kind.INIT));
            long target = 12_000 + 4_000;                        // base + flow scaling at most
            for (int i = 0; i < 10; i++) {
                b.push(ack(1, 12_000, 0, 0, ACK_ONE));
            }
            b.drain();
            double afterAcks = b.model.flow(1).fabric.cwnd / (double) ONE;
            assertEquals(36.6 + 10 / 36.6, afterAcks, 2e-3, "10 ACKs at 36.6 packets add 10 / 36.6");
            // MD (lines 11-14) at the max_mdf floor: rtt 200 us is far above the target
            b.push(ack(1, 200_000, 0, 0, ACK_ONE));
            b.drain();
            long halved = b.model.flow(1).fabric.cwnd;
            assertEquals(afterAcks / 2, halved / (double) ONE, 1e-4, "halved at the max_mdf floor");
            for (int i = 0; i < 20; i++) {
                b.push(ack(1, 200_000, 0, 0, ACK_ONE));       // 200 ns apart: inside one RTT
            }
            b.drain();
            assertEquals(halved, b.model.flow(1).fabric.cwnd, "no second decrease inside one RTT");
            b.setNow(b.now() + 200_000);
            b.push(ack(1, 200_000, 0, 0, ACK_ONE));
            b.drain();
            assertEquals(halved / 2.0, b.model.flow(1).fabric.cwnd, 1, "the next RTT decreases again");
            assertTrue(target < 200_000);
            // Timeouts (lines 15-21): halve once per RTT, reset to min_cwnd at the threshold (5)
            b.push(of(2, Kind.INIT));
            b.drain();
            long w = b.model.flow(2).cwnd();
            b.push(of(2, Kind.TIMEOUT));
            b.drain();
            assertEquals(w / 2, b.model.flow(2).cwnd(), 1, "the first timeout halves");
            for (int i = 2; i <= 5; i++) {
                b.push(of(2, Kind.TIMEOUT));
            }
            b.drain();
            assertEquals(SwiftBench.resetParams().minCwnd(), b.model.flow(2).cwnd(), "min_cwnd at the fifth timeout");
            assertEquals(5, b.counter(SwiftCsr.TIMEOUTS));
            assertEquals(1, b.counter(SwiftCsr.RESETS));
            // Pacing (lines 29-32): INIT at half a packet, an ACK with rtt 20 us far above the target... keeps it:
            SwiftFixedParams half = new SwiftFixedParams(b.model.p.ai(), b.model.p.beta(), b.model.p.maxMdf(), ONE / 2, ONE / 2, ONE / 2,
                    b.model.p.retxResetThreshold(), b.model.p.baseTargetNs(), b.model.p.perHopNs(), b.model.p.fsRangeNs(),
                    b.model.p.fsAlpha(), b.model.p.fsBeta(), b.model.p.endpointTargetNs(), b.model.p.endpointEwmaShift(), false);
            b.writeParams(half);
            b.push(of(3, Kind.INIT));
            b.push(ack(3, 20_000, 0, 0, ACK_ONE));
            b.drain();
            SwiftFixedModel.Update last = b.updates.lastMatched();
            assertEquals(ONE / 2, last.cwnd());
            assertEquals(40_000, last.pacingNs(), 40, "half a packet: one packet every 2 x RTT");
            // The effective window is the smaller (Sec. 3.3): an endpoint delay far above its target
            b.writeParams(SwiftBench.resetParams());
            b.push(of(4, Kind.INIT));
            for (int i = 0; i < 40; i++) {
                b.setNow(b.now() + 100_000);
                b.push(ack(4, 14_000, 12_000, 0, ACK_ONE));   // fabric delay 2 us: AI; endpoint 12 us > 5 us: MD
            }
            b.drain();
            last = b.updates.lastMatched();
            assertTrue(last.endpointCwnd() < last.fabricCwnd(), "the endpoint window came down, the fabric one went up");
            assertEquals(Math.min(last.fabricCwnd(), last.endpointCwnd()), last.cwnd());
            assertEquals(Change.INCREASE, last.fabric());
            assertEquals(last.cwnd(), b.queryCwnd(4), "the query port gives the effective window");
            // No ACK adds more than Alg. 1 from the window it reads: 0.001 -> 1.001 -> about 2.0 packets,
            // back to back (a divisor lagging one update gave MAX_CWND, 73 packets, at the second ACK)
            SwiftFixedParams p = SwiftBench.resetParams();
            b.writeParams(new SwiftFixedParams(p.ai(), p.beta(), p.maxMdf(), SwiftFixedModel.cwnd(0.001), SwiftFixedModel.cwnd(73),
                    SwiftFixedModel.cwnd(0.001), p.retxResetThreshold(), p.baseTargetNs(), p.perHopNs(), p.fsRangeNs(), p.fsAlpha(),
                    p.fsBeta(), p.endpointTargetNs(), p.endpointEwmaShift(), false));
            b.push(of(5, Kind.INIT));
            b.push(ack(5, 12_000, 0, 0, ACK_ONE));
            b.push(ack(5, 12_000, 0, 0, ACK_ONE));
            b.drain();
            last = b.updates.lastMatched();
            assertEquals(1.001 + 1 / 1.001, last.fabricCwnd() / (double) ONE, 1e-3, "0.001 -> 1.001 -> 2.0, on the RTL");
            b.writeParams(SwiftBench.resetParams());
            b.assertCounters();
        });
    }

    /**
     * Hardware in the loop: the 8:1 incast of the network simulator with every sender's windows
     * and pacing from the Swift RTL (uehw.netsim.rtl.SwiftRtlWindows) ends as it does on the fixed
     * law: every completion time, the port's queue, marks and trims identical.
     */
    @Test
    void theIncastWithTheRtlInTheLoopEndsAsOnTheFixedLaw() throws Exception {
        IncastExperiment x = new IncastExperiment();
        long seed = 1;
        IncastExperiment.Outcome model = x.run(true, seed, null, (host, flows) -> SwiftWindows.fixed(flows, new SwiftParams(), x.mtu));
        withBench(DEFAULT, "network_hil", (b, s) -> {
            SwiftRtlWindows rtl = new SwiftRtlWindows(b, 16, x.mtu);
            long start = System.nanoTime();
            IncastExperiment.Outcome hw = x.run(true, seed, null, rtl::forHost);
            System.out.printf("swift hardware in the loop, 8:1 incast: %d window events through the RTL in %d clocks, %.1f s; "
                            + "last completion %.4f of ideal%n", rtl.events, rtl.clocks, (System.nanoTime() - start) / 1e9,
                    (double) java.util.Arrays.stream(hw.fctNs()).max().getAsLong() / hw.idealNs());
            assertEquals(java.util.Arrays.toString(model.fctNs()), java.util.Arrays.toString(hw.fctNs()));
            assertEquals(model.peakQueueBytes(), hw.peakQueueBytes());
            assertEquals(model.meanQueueBytes(), hw.meanQueueBytes());
            assertEquals(model.trims(), hw.trims());
            assertEquals(model.marks(), hw.marks());
            assertEquals(model.packetsSent(), hw.packetsSent());
            assertTrue(hw.trims() > 0 && b.counter(SwiftCsr.FABRIC_DECREASES) > 0, "the incast trims and decreases");
        });
    }

    /**
     * One event per clock across flows: 20000 back-to-back events over 64 flows in rotation take
     * 20000 clocks plus the latency. One flow back to back: an event every Swift.sameFlowSpacing = 6 clocks.
     */
    @Test
    void oneEventPerClockAcrossFlowsOneEverySixClocksForOneFlow() {
        withBench(DEFAULT, "line_rate", (b, seed) -> {
            Random r = new Random(seed);
            int n = 20000;
            for (int i = 0; i < n; i++) {
                b.push(randomEvent(r, b.model.p, i % 64, 24));
            }
            long clocks = b.drain();
            System.out.printf("swift line rate: %d events over 64 flows in %d clocks (latency %d)%n", n, clocks, Swift.latency());
            assertEquals(n + Swift.latency(), clocks);
            int m = 2000;
            for (int i = 0; i < m; i++) {
                b.push(randomEvent(r, b.model.p, 7, 24));
            }
            long oneFlow = b.drain();
            System.out.printf("swift one flow back to back: %d events in %d clocks%n", m, oneFlow);
            assertEquals((long) Swift.sameFlowSpacing() * (m - 1) + 1 + Swift.latency(), oneFlow);
            assertEquals(n + m, b.updates.matched());
            b.assertCounters();
        });
    }

    /**
     * The reset sweep and the state before the first event (docs/window-unit.md: the sweep writes
     * every flow's initial state, one a clock, N clocks, events waiting): the event port is not ready
     * before `io_initDone`, which reads high after the sweep's N clocks; the window read port gives
     * the same initial window for flow N - 1 (the sweep's last write) as for flow 0 before any
     * event; then the first events of flows N - 1, 0 and N (the first id out of range) against the model.
     */
    @Test
    void theFirstEventsAfterTheSweepReadEveryFlowsInitialState() {
        int n = SMALL.flows();
        Simulation.compile(SwiftTest.class, "n" + n + "_f" + SMALL.flowIdWidth() + "_d" + SMALL.delayWidth(),
                () -> new Swift(SMALL)).run("sweep", BenchExtension.seed(), sim -> {
            var io = sim.dut().io();
            sim.poke(io.event().valid(), false);
            long steps = ResetSweep.stepsUntilInitDone(sim, io.initDone(), List.of(io.event().ready()), 4L * n);
            assertEquals(n, steps, "a sweep of N clocks (ResetSweep's count is S)");
        });
        withBench(SMALL, "first_events", (b, seed) -> {
            Random r = new Random(seed);
            long initial = b.queryCwnd(0);
            assertEquals(initial, b.queryCwnd(n - 1), "flow N - 1 starts with the initial window, as flow 0");
            for (int flow : new int[] {n - 1, 0, n, n - 1}) {
                b.push(randomEvent(r, b.model.p, flow, SMALL.delayWidth()));
            }
            b.drain();
            b.assertCounters();
        });
    }

    /**
     * Compares at their exact values (Alg. 1): a fabric decrease exactly one RTT after the last is
     * allowed (line 3, now - t_last_decrease >= rtt) and one nanosecond earlier is not; an endpoint
     * delay exactly at ENDPOINT_TARGET (its EWMA taking each sample whole) is not below it, so the
     * endpoint window decreases. Time stands
     * still between events, so each `now` is exact. Every update against the model.
     */
    @Test
    void comparesAtTheirExactValues() {
        withBench(DEFAULT, "exact_values", (b, seed) -> {
            b.clock(t -> t);
            long t0 = 1_000_000;
            long rtt = 200_000;
            b.setNow(t0);
            b.push(of(6, Kind.INIT));
            b.push(ack(6, rtt, 0, 0, ACK_ONE));            // far above the target: decreases at t0
            b.drain();
            assertEquals(Change.DECREASE, b.updates.lastMatched().fabric());
            b.setNow(t0 + rtt - 1);
            b.push(ack(6, rtt, 0, 0, ACK_ONE));
            b.drain();
            assertEquals(Change.NONE, b.updates.lastMatched().fabric(), "one ns short of an RTT: held");
            b.setNow(t0 + rtt);
            b.push(ack(6, rtt, 0, 0, ACK_ONE));
            b.drain();
            assertEquals(Change.DECREASE, b.updates.lastMatched().fabric(), "exactly one RTT later: decreases");
            SwiftFixedParams p = b.model.p;   // the endpoint delay's EWMA takes each sample whole (shift 0)
            b.writeParams(new SwiftFixedParams(p.ai(), p.beta(), p.maxMdf(), p.minCwnd(), p.maxCwnd(), p.initCwnd(), p.retxResetThreshold(),
                    p.baseTargetNs(), p.perHopNs(), p.fsRangeNs(), p.fsAlpha(), p.fsBeta(), p.endpointTargetNs(), 0,
                    p.line27AsPrinted()));
            long target = p.endpointTargetNs();
            b.push(of(7, Kind.INIT));
            b.push(ack(7, 12_000 + target, target, 0, ACK_ONE));
            b.drain();
            assertEquals(Change.DECREASE, b.updates.lastMatched().endpoint(), "an endpoint delay at its target is not below it");
            b.assertCounters();
        });
    }

    /**
     * docs/swift.md, "CSR writes", at the shortest quiet span the docs allow: B, accepted the edge
     * its flow's previous event A left stage 0, waits 5 clocks there, and the write is taken 23
     * edges after B's acceptance. B reads the old value in every stage, S4's too (line 27's CONTROL
     * and flow scaling's FS_RANGE, read in stage 19); the flow's next event C shows what B read.
     */
    @Test
    void aWaitingEventReadsTheOldCsrsUpToTheShortestQuietSpan() {
        withBench(DEFAULT, "csr_shortest_quiet", (b, seed) -> {
            b.clock(t -> t + 200);
            // CONTROL: B increases by 0 (nothing acked, no delay), a decrease as line 27 is printed
            SwiftFixedParams asPrinted = b.model.p.withLine27AsPrinted(true);
            b.writeParams(asPrinted);
            b.push(ack(5, 1000, 0, 0, ACK_ONE));
            b.push(ack(5, 1000, 0, 0, 0));
            b.writeRegisterAfterShortestQuiet(SwiftCsr.CONTROL, asPrinted.withLine27AsPrinted(false));
            b.push(ack(5, 1_000_000, 0, 0, ACK_ONE));   // far above the target, within an RTT of B
            b.drain();
            assertEquals(Change.NONE, b.updates.lastMatched().fabric(), "B read the old CONTROL: its decrease holds C");
            // FS_RANGE: B's flow scaling (of the window A left) clamped to the old range, 0
            b.writeParams(b.model.p.withFsRange(0));
            b.push(ack(9, 1000, 0, 0, ACK_ONE));
            b.push(ack(9, 1000, 0, 0, 0));
            SwiftFixedParams wide = b.model.p.withFsRange(0xFFFF);
            b.writeRegisterAfterShortestQuiet(SwiftCsr.FS_RANGE, wide);
            long fsWide = new SwiftFixedModel(1, wide).flowScalingNs(b.model.flow(9).fabric.cwnd);
            assertTrue(fsWide > 1, "the scenario needs flow scaling above the old range: " + fsWide);
            b.push(ack(9, b.model.p.baseTargetNs() + fsWide / 2, 0, 0, ACK_ONE));  // between target + old fs and target + new fs
            b.drain();
            assertEquals(Change.DECREASE, b.updates.lastMatched().fabric(), "B read the old FS_RANGE: C is above target + fs");
            b.assertCounters();
        });
    }
}
