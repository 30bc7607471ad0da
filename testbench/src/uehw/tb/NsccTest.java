// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.bench.Simulation;
import uehw.bench.csr.NsccCsr;
import uehw.bench.nscc.NsccBench;
import uehw.bench.nscc.NsccBench.Csrs;
import uehw.hw.nscc.Nscc;
import uehw.hw.nscc.NsccConfig;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.nscc.NsccFixedModel.Event;
import uehw.model.nscc.NsccFixedModel.Kind;
import uehw.model.nscc.NsccFixedParams;
import uehw.model.nscc.NsccRule;

/** The NSCC window unit: RTL against the fixed-point model, the reset values, line rate. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class NsccTest {
    static final NsccConfig DEFAULT = new NsccConfig(1024, 16, 100, 4150, 14_022_720L);

    @FunctionalInterface
    interface BenchBody {
        void run(NsccBench bench, long seed) throws Exception;
    }

    static void withBench(NsccConfig cfg, String testName, BenchBody body) {
        String name = "n" + cfg.flows() + "_f" + cfg.flowIdWidth() + "_g" + cfg.linkGbps();
        BenchExtension.bench(Simulation.compile(NsccTest.class, name, () -> new Nscc(cfg)), testName, NsccBench::new, body::run);
    }

    /**
     * An event around the flow's state: RTTs near its base RTT plus 0..6 T (FastIncrease's 1 us,
     * T itself), ECN in phases, ACKs of 64 B to a few MTU; bad input: rtt 0 (no sample), RTTs far
     * below the base, zero and oversized bytes, every penalty, in-flight counts around the window.
     */
    static Event randomEvent(Random r, NsccFixedModel m, int flow, double ecnProbability) {
        int k = r.nextInt(100);
        Kind kind = k < 85 ? Kind.ACK : k < 93 ? Kind.NACK : k < 97 ? Kind.TIMEOUT : Kind.INIT;
        NsccFixedModel.State s = flow < m.flows() ? m.state(flow) : null;
        long base = s == null ? m.initBaseRtt : s.baseRtt;
        long t = m.p.targetNs();
        long rtt = switch (r.nextInt(20)) {
            case 0 -> 0;
            case 1 -> r.nextLong(1L << 24);
            case 2 -> 1 + r.nextLong(Math.max(1, base));                     // below the base
            case 3, 4 -> base + r.nextInt(1200);                              // FastIncrease's 1 us
            case 5, 6 -> base + t - 50 + r.nextInt(100);                      // near T
            default -> base + (long) (6 * t * r.nextDouble());
        };
        long mtu = m.p.mtu();
        long bytes = switch (r.nextInt(20)) {
            case 0 -> 0;
            case 1 -> r.nextLong(1L << 24);
            case 2 -> mtu + 1 + r.nextInt(1000);
            case 3 -> 64;
            default -> kind == Kind.ACK ? mtu * (1 + r.nextInt(4)) : mtu - r.nextInt(200);
        };
        int pen = r.nextInt(10) == 0 ? r.nextInt(256) : 255;
        long inFlight = s == null ? r.nextLong(1L << 24) : r.nextInt(8) == 0 ? r.nextLong(1L << 24) : r.nextLong(2 * s.cwnd + 1);
        return new Event(flow, kind, bytes, rtt, r.nextDouble() < ecnProbability, r.nextInt(3) == 0, pen, inFlight, 0);
    }

    /** Random CSRs in the registers' ranges around the reference's values: gains 0..4x, T and the RTT 0.1..3x, every switch. */
    static Csrs randomCsrs(Random r, Csrs d) {
        NsccFixedParams p = d.p();
        long target = Math.max(256, (long) (p.target() * (0.1 + 3 * r.nextDouble())));
        NsccFixedParams q = new NsccFixedParams(
                r.nextInt(8) == 0 ? 65 + r.nextInt(9000) : p.mtu(),
                target,
                r.nextInt(4) == 0 ? 1 + r.nextInt(1 << 20) : 4 * (target >> 8),
                r.nextInt(6) == 0 ? r.nextInt(24) : p.qaGate(),
                Math.max(256, (long) (p.networkRtt() * (0.1 + 3 * r.nextDouble()))),
                r.nextInt(5) == 0 ? r.nextInt(1 << 24) : p.adjustBytes(),
                Math.min((1L << 25) - 1, (long) (p.alpha() * 4 * r.nextDouble())),
                Math.min((1L << 26) - 1, (long) (p.fi() * 4 * r.nextDouble())),
                r.nextInt(1 << 16),
                Math.min((1L << 24) - 1, (long) (p.fiScale() * 4 * r.nextDouble())),
                r.nextInt((1 << 16) + 1),
                r.nextInt(3) == 0 ? r.nextInt((1 << 20) + 1) : p.delayAlpha(),
                r.nextInt(8) == 0 ? r.nextInt(1 << 26) : p.bytesPerNs(),
                r.nextInt(4) == 0 ? r.nextInt(1 << 24) : p.fastDelayNs(),
                r.nextBoolean(), r.nextInt(4) != 0);
        return new Csrs(q, r.nextInt(4) == 0 ? 1 + r.nextInt(1 << 24 - 1) : d.initBaseRtt(),
                r.nextInt(3) == 0 ? r.nextInt(1 << 24) : 0);
    }

    /**
     * Random events over many flows, a hot flow on consecutive clocks (its events wait the
     * same-flow spacing), every kind, RTTs around each flow's base and T, ECN in phases, bad input
     * (ids >= N, rtt 0, RTTs below the base, zero and oversized bytes, penalties), time advancing
     * slowly or in jumps past the network RTT and QuickAdapt's window and across the 2^32 wrap,
     * idle phases, the CSRs changed between phases and one at a time among the events (the model
     * following at the documented edges). Every update, retransmit request and counter equals the
     * fixed-point model's.
     */
    void randomEventsMatchModel(NsccConfig cfg, int events, String name) {
        withBench(cfg, name, (b, seed) -> {
            Random r = new Random(seed);
            int idSpan = 1 << cfg.flowIdWidth();
            int phases = 10;
            int writes = 0;
            Csrs reset = NsccBench.resetCsrs(cfg);
            for (int phase = 0; phase < phases; phase++) {
                b.idle(r, phase % 2 == 0 ? 0 : 0.3);
                long step = new long[] {3, 200, 4000}[phase % 3];
                if (phase == 5) {
                    b.setNow((1L << 32) - 2_000_000);   // the wrap comes in this phase
                }
                b.clock(t -> t + (r.nextInt(16) == 0 ? r.nextInt(100_000) : step));
                double ecn = new double[] {0, 0.05, 0.5, 0.95}[r.nextInt(4)];
                int hot = r.nextInt(cfg.flows());
                for (int i = 0; i < events / phases; i++) {
                    int pick = r.nextInt(100);
                    int flow = pick < 30 ? hot : pick < 32 ? r.nextInt(idSpan) : r.nextInt(Math.min(cfg.flows(), 256));
                    if (r.nextInt(50) == 0) {
                        hot = r.nextInt(cfg.flows());
                    }
                    b.push(randomEvent(r, b.model, flow, ecn));
                    if (r.nextInt(2000) == 0 && b.actions().csrIdle()) {
                        b.counter(NsccCsr.EVENTS);   // a CSR access with events presented: none taken twice or lost
                    }
                    if (r.nextInt(1500) == 0 && b.actions().csrIdle()) {
                        List<Integer> registers = List.copyOf(NsccBench.csrImage(reset).keySet());
                        b.writeRegisterAmongEvents(r, registers.get(r.nextInt(registers.size())), randomCsrs(r, reset));
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
                b.writeCsrs(phase % 3 == 2 ? reset : randomCsrs(r, reset));
            }
            b.drain();
            b.assertCounters();
            System.out.printf("nscc N=%d: %d events, %d updates matched, seed %d, %d CSR writes among events; %s%n", cfg.flows(), events,
                    b.updates.matched(), seed, writes, b.model.counters.snapshot());
            for (NsccRule rule : NsccRule.values()) {
                if (rule.counter != null) {
                    assertTrue(b.model.counters.get(rule.counter) > 0, "the traffic never took " + rule);
                }
            }
            for (String c : new String[] {"OUT_OF_RANGE", "FULFILLS", "ETAS", "BASE_RTT_LOWERED", "NO_RTT_SAMPLE", "ZERO_BYTES", "OVER_MTU"}) {
                assertTrue(b.model.counters.get(c) > 0, "the traffic never counted " + c);
            }
        });
    }

    @Tag("soak")
    @Test
    void millionRandomEventsMatchTheModel() {
        randomEventsMatchModel(DEFAULT, 1_000_000 * Seeds.scale(), "random_n1024");
    }

    /** N = 6 (not a power of two) behind 4-bit ids (6..15 out of range), at 800 Gb/s's reset values. */
    @Test
    void smallConfigurationMatchesTheModel() {
        randomEventsMatchModel(new NsccConfig(6, 4, 800, 4150, 14_022_720L), 100_000 * Seeds.scale(), "random_n6");
    }

    /** The generation parameters at their limits: one flow behind a 1-bit id; 65536 flows behind 24-bit ids. */
    @Tag("soak")
    @Test
    void generationLimitsMatchTheModel() {
        randomEventsMatchModel(new NsccConfig(1, 1, 100, 4150, 14_022_720L), 50_000 * Seeds.scale(), "limits_n1");
        randomEventsMatchModel(new NsccConfig(65536, 24, 400, 9000, 8_000_000L), 100_000 * Seeds.scale(), "limits_n65536");
    }

    /** The registers after reset: the reference's derivation (uec.cpp:86-159) for the generation parameters. */
    @Test
    void theResetValuesAreTheReferenceDerivation() {
        withBench(DEFAULT, "reset_values", (b, seed) -> {
            Map<Integer, Long> expected = NsccBench.csrImage(NsccBench.resetCsrs(DEFAULT));
            for (var e : expected.entrySet()) {
                assertEquals(e.getValue(), b.csr.read(e.getKey()), String.format("register 0x%02X after reset", e.getKey()));
            }
            // the initial window every flow has: 1.5 BDP of the network RTT
            assertEquals(b.model.state(0).cwnd, b.queryCwnd(0));
            assertEquals(b.model.state(DEFAULT.flows() - 1).cwnd, b.queryCwnd(DEFAULT.flows() - 1));
        });
    }

    /** One event a clock across flows; a flow's events Nscc.sameFlowSpacing clocks apart. */
    @Test
    void oneEventPerClockAcrossFlowsOneEveryLoopForOneFlow() {
        withBench(DEFAULT, "line_rate", (b, seed) -> {
            Random r = new Random(seed);
            int n = 20000;
            for (int i = 0; i < n; i++) {
                b.push(randomEvent(r, b.model, i % 64, 0.2));
            }
            long clocks = b.drain();
            System.out.printf("nscc line rate: %d events over 64 flows in %d clocks (latency %d)%n", n, clocks, Nscc.latency());
            assertEquals(n + Nscc.latency(), clocks);
            int m = 500;
            for (int i = 0; i < m; i++) {
                b.push(randomEvent(r, b.model, 7, 0.2));
            }
            long oneFlow = b.drain();
            System.out.printf("nscc one flow back to back: %d events in %d clocks%n", m, oneFlow);
            assertEquals((long) Nscc.sameFlowSpacing() * (m - 1) + 1 + Nscc.latency(), oneFlow);
            assertEquals(n + m, b.updates.matched());
            b.assertCounters();
        });
    }

    /**
     * The pending increase saturates at 2^44 - 1 and is counted (the reference's 32-bit
     * `_inc_bytes` would wrap): proportional increases of alpha x 2^24 B x T with the fulfill held
     * off (ADJUST_BYTES and NETWORK_RTT at their largest, FastIncrease off), then a fulfill adds
     * the saturated increase over the window.
     */
    @Test
    void thePendingIncreaseSaturatesAndIsCounted() {
        withBench(DEFAULT, "inc_saturated", (b, seed) -> {
            Csrs reset = NsccBench.resetCsrs(DEFAULT);
            NsccFixedParams p = reset.p();
            b.writeCsrs(new Csrs(new NsccFixedParams(p.mtu(), p.target(), p.qaThresholdNs(), p.qaGate(), (1L << 32) - 1,
                    (1L << 24) - 1, (1L << 25) - 1, p.fi(), p.eta(), p.fiScale(), p.gamma(), p.delayAlpha(), p.bytesPerNs(), 0,
                    p.receiverCc(), p.baseRttOnNack()), reset.initBaseRtt(), reset.initCwnd()));
            b.clock(t -> t + 1);
            long base = reset.initBaseRtt();
            for (int i = 0; i < 6; i++) {
                b.push(new Event(3, Kind.ACK, (1L << 24) - 1, base, false, false, 255, 0, 0));
            }
            b.drain();
            assertEquals(NsccFixedModel.INC_BITS, 64 - Long.numberOfLeadingZeros(b.model.state(3).inc));
            assertEquals((1L << NsccFixedModel.INC_BITS) - 1, b.model.state(3).inc);
            b.assertCounters();
            assertTrue(b.counter(NsccCsr.INC_SATURATED) >= 2, "INC_SATURATED " + b.counter(NsccCsr.INC_SATURATED));
        });
    }

    /**
     * The reference's runs on the RTL: the events of uet-htsim's `incast_3-1_overlapped` at
     * 100 Gb/s and of `one.cm` at 800 Gb/s (NsccReplayTest's traces; each flow's base RTT and window
     * written as INIT_BASE_RTT and INIT_CWND before its INIT at time 0, the reference's parameters as
     * the CSRs, each event at its own `now` in ns), every update equal to the fixed model's, and
     * every window the reference printed within the fixed model's measured deviation: mean below
     * 0.05 %, at most 1 % of them more than 1 % off (the decisions a ns clock takes differently).
     */
    @Test
    void theReferenceRunsOnTheRtl() {
        withBench(DEFAULT, "reference_runs", (b, seed) -> {
            for (String name : new String[] {"incast3-100g", "one-800g"}) {
                uehw.model.nscc.NsccReferenceTrace t = NsccReplayTest.trace(name);
                NsccFixedParams q = NsccFixedParams.of(NsccReplayTest.params(t, false));
                b.clock(now -> now);
                b.setNow(0);
                Map<String, Integer> index = new java.util.HashMap<>();
                for (uehw.model.nscc.NsccReferenceTrace.FlowInit f : t.flows.values()) {
                    int flow = 100 + index.size();
                    index.put(f.name(), flow);
                    b.writeCsrs(new Csrs(q, Math.round(f.baseRttPs() / 1000.0), f.cwnd()));
                    b.push(new Event(flow, Kind.INIT, 0, 0, false, false, 255, 0, 0));
                    b.drain();
                }
                double sum = 0;
                int compared = 0;
                int overOnePercent = 0;
                for (uehw.model.nscc.NsccReferenceTrace.Event e : t.events) {
                    int flow = index.get(e.flow());
                    b.setNow(e.timePs() / 1000);
                    b.push(new Event(flow, Kind.valueOf(e.kind().name()), e.bytes(), e.rttPs() / 1000, e.ecn(), false, 255,
                            e.inFlight(), 0));
                    while (!b.inputIdle()) {
                        b.step();
                    }
                    if (e.cwndAfter() > 0) {
                        double d = Math.abs(b.model.state(flow).cwnd - e.cwndAfter()) / (double) e.cwndAfter();
                        sum += d;
                        compared++;
                        if (d > 0.01) {
                            overOnePercent++;
                        }
                    }
                }
                b.drain();
                b.assertCounters();
                System.out.printf(java.util.Locale.ROOT, "nscc %s on the RTL: %d events, %d windows against the reference's, "
                        + "mean deviation %.4f %%, %d above 1 %%%n", name, t.events.size(), compared, 100 * sum / compared, overOnePercent);
                assertTrue(compared > 100 && sum / compared < 0.0005 && overOnePercent <= compared / 100,
                        name + ": mean deviation " + 100 * sum / compared + " %, " + overOnePercent + " above 1 %");
            }
        });
    }
}
