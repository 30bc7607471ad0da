// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
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
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the directed tests first: a mutant run stops at the first failure
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
        // whole ns half the time (as the reference's own values can be), so that compares meet them exactly
        long wholeNs = r.nextBoolean() ? ~255L : ~0L;
        long target = Math.max(256, (long) (p.target() * (0.1 + 3 * r.nextDouble())) & wholeNs);
        NsccFixedParams q = new NsccFixedParams(
                r.nextInt(8) == 0 ? 65 + r.nextInt(9000) : p.mtu(),
                target,
                r.nextInt(4) == 0 ? 1 + r.nextInt(1 << 20) : 4 * (target >> 8),
                r.nextInt(6) == 0 ? r.nextInt(24) : p.qaGate(),
                Math.max(256, (long) (p.networkRtt() * (0.1 + 3 * r.nextDouble())) & wholeNs),
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
        return new Csrs(q, r.nextInt(4) == 0 ? 1 + r.nextInt((1 << 24) - 1) : d.initBaseRtt(),
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
                Csrs next = phase % 3 == 2 ? reset : randomCsrs(r, reset);
                if (phase == 0 || phase == 3) { // phases 1 and 4 run with RECEIVER_CC, so that NACK_LAST_HOP is reached whatever the seed
                    next = new Csrs(next.p().withReceiverCc(true), next.initBaseRtt(), next.initCwnd());
                }
                b.writeCsrs(next);
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
    @Order(7)
    @Test
    void millionRandomEventsMatchTheModel() {
        randomEventsMatchModel(DEFAULT, 1_000_000 * Seeds.scale(), "random_n1024");
    }

    /** N = 6 (not a power of two) behind 4-bit ids (6..15 out of range), at 800 Gb/s's reset values. */
    @Order(6)
    @Test
    void smallConfigurationMatchesTheModel() {
        randomEventsMatchModel(new NsccConfig(6, 4, 800, 4150, 14_022_720L), 100_000 * Seeds.scale(), "random_n6");
    }

    /** The generation parameters at their limits: one flow behind a 1-bit id; 65536 flows behind 24-bit ids. */
    @Tag("soak")
    @Order(8)
    @Test
    void generationLimitsMatchTheModel() {
        randomEventsMatchModel(new NsccConfig(1, 1, 100, 4150, 14_022_720L), 50_000 * Seeds.scale(), "limits_n1");
        randomEventsMatchModel(new NsccConfig(65536, 24, 400, 9000, 8_000_000L), 100_000 * Seeds.scale(), "limits_n65536");
    }

    /** The registers after reset: the reference's derivation (uec.cpp:86-159) for the generation parameters. */
    @Order(3)
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
    @Order(4)
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

    /** One event at `now` (ns), taken before the next is presented. */
    static void eventAt(NsccBench b, long now, Event e) {
        b.setNow(now);
        b.push(e);
        while (!b.inputIdle()) {
            b.step();
        }
    }

    static Event ack(int flow, long bytes, long rtt, boolean ecn) {
        return new Event(flow, Kind.ACK, bytes, rtt, ecn, false, 255, 0, 0);
    }

    static Event init(int flow) {
        return new Event(flow, Kind.INIT, 0, 0, false, false, 255, 0, 0);
    }

    /** The reference's parameters with some replaced (CONTROL's switches kept). */
    static Csrs csrs(NsccFixedParams p, long target, long qaThreshold, long networkRtt, long adjustBytes, long fi,
            long delayAlpha, long fastDelay, long initBaseRtt, long initCwnd) {
        return new Csrs(new NsccFixedParams(p.mtu(), target, qaThreshold, p.qaGate(), networkRtt, adjustBytes, p.alpha(), fi,
                p.eta(), p.fiScale(), p.gamma(), delayAlpha, p.bytesPerNs(), fastDelay, p.receiverCc(), p.baseRttOnNack()),
                initBaseRtt, initCwnd);
    }

    /**
     * The pending increase saturates at 2^44 - 1 and is counted (the reference's 32-bit
     * `_inc_bytes` would wrap): sixteen fair increases of exactly 2^40 (FI = 2^25, 2^23 B a time)
     * with the fulfill held off (ADJUST_BYTES and NETWORK_RTT at their largest), the sixteenth
     * reaching 2^44 and fulfilling (2^24 ns after the INIT): the saturated increase over a window of
     * 10 000 B takes it to its largest, where a wrapped one (0) would have added nothing but eta.
     */
    @Order(2)
    @Test
    void thePendingIncreaseSaturatesAndIsCounted() {
        withBench(DEFAULT, "inc_saturated", (b, seed) -> {
            NsccFixedParams p = NsccBench.resetCsrs(DEFAULT).p();
            long base = 1_000_000;
            b.writeCsrs(csrs(p, p.target(), p.qaThresholdNs(), (1L << 32) - 1, (1L << 24) - 1, 1L << 25, p.delayAlpha(), 0,
                    base, 10_000));
            b.clock(t -> t);
            eventAt(b, 0, init(3));
            long rtt = base + 20_000;   // delay 20 us: at or above T, below 4 T: fair increases, no QuickAdapt
            for (int i = 1; i <= 15; i++) {
                eventAt(b, i, ack(3, 1L << 23, rtt, false));
            }
            assertEquals(15L << 40, b.model.state(3).inc);
            eventAt(b, (1L << 24) + 100, ack(3, 1L << 23, rtt, false));
            NsccFixedModel.State s = b.model.state(3);
            assertEquals(NsccRule.FAIR_INCREASE, s.rule);
            assertTrue(s.fulfilled);
            assertEquals((1L << 24) - 1, s.cwnd, "the saturated increase over 10 000 B fills the window to its largest");
            b.drain();
            b.assertCounters();
            assertEquals(1, b.counter(NsccCsr.INC_SATURATED));
        });
    }

    /**
     * Each of the law's compares at its exact value, on the RTL (the bench checks every update
     * against the model) and against the rule uec.cpp gives there: a fulfill exactly one network
     * RTT after the last (strict, :1341) and eta at exactly one (:1262); a decrease exactly one base
     * RTT after the last (strict, :1244) and with the average exactly T (strict); a delay of exactly
     * T (a decrease's case with ECN, :1325) and of exactly 1 us (not FastIncrease, :1222); an ACK
     * at exactly QuickAdapt's window end (not expired, :1159); ignored bytes reaching the count
     * exactly (no longer ignored, :1157); received bytes exactly ADJUST_BYTES (no fulfill); an RTT
     * exactly the base RTT (not lowered); a maxwnd below MTU (the MTU wins); the penalty's floor.
     * T = 10 us, the network RTT 20 us, the base RTT 14 us, DELAY_ALPHA 1 (the average is the sample).
     */
    @Order(1)
    @Test
    void theLawsComparesAtTheirExactValues() {
        withBench(DEFAULT, "exact_values", (b, seed) -> {
            NsccFixedParams p = NsccBench.resetCsrs(DEFAULT).p();
            long t = 10_000;
            long base = 14_000;
            b.writeCsrs(csrs(p, t << 8, 4 * t, 20_000L << 8, p.adjustBytes(), p.fi(), 1L << 20, 1000, base, 0));
            b.clock(now -> now);
            for (int f = 1; f <= 10; f++) {
                eventAt(b, 0, init(f));
            }
            // the fulfill and eta at exactly one network RTT
            eventAt(b, 20_000, ack(1, 100, base + t + 100, false));
            assertEquals(NsccRule.FAIR_INCREASE, b.model.state(1).rule);
            assertTrue(!b.model.state(1).fulfilled, "a fulfill at exactly one network RTT");
            eventAt(b, 20_001, ack(1, 100, base + t + 100, false));
            assertTrue(b.model.state(1).fulfilled);
            eventAt(b, 20_000, ack(2, p.adjustBytes() + 1, base + t + 100, false));
            assertTrue(b.model.state(2).fulfilled);
            assertEquals(20_000, b.model.state(2).lastAdjust, "eta at exactly one network RTT");
            // a decrease exactly one base RTT after the last; the average exactly T
            eventAt(b, 30_000, ack(3, 100, base + 2 * t, true));
            assertEquals(NsccRule.MULTIPLICATIVE_DECREASE, b.model.state(3).rule);
            eventAt(b, 30_000 + base, ack(3, 100, base + 2 * t, true));
            assertEquals(NsccRule.DECREASE_HELD, b.model.state(3).rule, "a decrease exactly a base RTT after the last");
            eventAt(b, 30_001 + base, ack(3, 100, base + 2 * t, true));
            assertEquals(NsccRule.MULTIPLICATIVE_DECREASE, b.model.state(3).rule);
            eventAt(b, 30_000, ack(4, 100, base + t, true));
            assertEquals(NsccRule.DECREASE_HELD, b.model.state(4).rule, "a delay of exactly T with ECN, the average exactly T");
            // a delay of exactly 1 us, with more bytes than the window
            eventAt(b, 100, ack(5, 1L << 23, base + 1000, false));
            assertEquals(NsccRule.PROPORTIONAL_INCREASE, b.model.state(5).rule, "a delay of exactly 1 us");
            // QuickAdapt's window end, then its ignore count reached exactly
            eventAt(b, 1000, ack(6, 100, base + 5000, false));
            assertEquals(NsccRule.PROPORTIONAL_INCREASE, b.model.state(6).rule);
            eventAt(b, 1000 + base + t, ack(6, 100, base + 50_000, false));
            assertEquals(NsccRule.FAIR_INCREASE, b.model.state(6).rule, "an ACK at exactly QuickAdapt's window end");
            eventAt(b, 1001 + base + t, new Event(6, Kind.ACK, 100, base + 50_000, false, false, 255, 50_000, 0));
            assertEquals(NsccRule.QUICK_ADAPT, b.model.state(6).rule);
            eventAt(b, 1002 + base + t, ack(6, 1000, base + 5000, true));
            assertEquals(NsccRule.IGNORED, b.model.state(6).rule);
            eventAt(b, 1003 + base + t, ack(6, 49_000, base + 5000, true));
            assertEquals(NsccRule.NOOP, b.model.state(6).rule, "ignored bytes reaching the count exactly");
            // an RTT of exactly the base RTT; received bytes of exactly ADJUST_BYTES
            eventAt(b, 100, ack(7, 100, base, false));
            assertEquals(0, b.model.counters.get("BASE_RTT_LOWERED"));
            eventAt(b, 100, ack(8, p.adjustBytes(), base + t + 100, false));
            assertTrue(!b.model.state(8).fulfilled, "exactly ADJUST_BYTES received");
            eventAt(b, 101, ack(8, 1, base + t + 100, false));
            assertTrue(b.model.state(8).fulfilled);
            // a 10 ns RTT: maxwnd 1.5 x 125 B = 187 B, below MTU, which wins
            eventAt(b, 100, ack(9, 100, 10, false));
            assertEquals(187, b.model.state(9).maxwnd);
            assertEquals(p.mtu(), b.model.state(9).cwnd);
            // the penalty: 10 000 - floor(10 000 x 128 / 255) = 4981 B off the window
            long before = b.model.state(10).cwnd;
            eventAt(b, 100, new Event(10, Kind.ACK, 10_000, base + t + 100, false, false, 128, 0, 0));
            assertEquals(before - 4981, b.model.state(10).cwnd);
            b.drain();
            b.assertCounters();
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
    @Order(5)
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

    /** A run's window updates, entropies and completions, one line each, in order. */
    private static List<String> traceOf(uehw.experiments.UetReference.Laws laws) {
        TraceLines t = new TraceLines();
        uehw.experiments.UetReference.run(uehw.experiments.UetReference.defaults().get(2), laws, net -> net.trace(t));
        return t.lines;
    }

    /**
     * Issue 33 deliverable 5: the reference's incast15 (`hwgen experiment uet-reference`) with every
     * NIC's windows from this RTL (NsccRtlLaw, one instance for the 16 hosts) gives the run on the
     * fixed-point law line for line: every window update, every entropy and every completion at
     * the same picosecond (the bench checks each update against its own model as it goes).
     */
    @Order(9)
    @Test
    void incast15WithTheRtlInTheLoopIsTheFixedLawsRun() {
        List<String> fixed = traceOf(uehw.experiments.UetReference.fixed());
        withBench(DEFAULT, "uet_reference_incast15", (b, seed) -> {
            uehw.netsim.rtl.NsccRtlLaw rtl = new uehw.netsim.rtl.NsccRtlLaw(b);
            List<String> onRtl = traceOf(uehw.experiments.UetReference.rtl(rtl, 1));
            b.drain();
            b.assertCounters();
            System.out.printf("nscc in the loop of incast15: %d events in %d clocks, %d trace lines%n", rtl.events, rtl.clocks,
                    onRtl.size());
            assertTrue(rtl.events > 7000 && fixed.size() > 15000, rtl.events + " events, " + fixed.size() + " lines");
            for (int i = 0; i < Math.min(fixed.size(), onRtl.size()); i++) {
                assertEquals(fixed.get(i), onRtl.get(i), "trace line " + i);
            }
            assertEquals(fixed.size(), onRtl.size());
        });
    }
}
