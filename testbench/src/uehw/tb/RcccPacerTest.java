// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import uehw.bench.CounterCheck;
import uehw.bench.ResetSweep;
import uehw.bench.Simulation;
import uehw.bench.csr.RcccPacerCsr;
import uehw.bench.rccc.RcccPacerBench;
import uehw.hw.rccc.RcccPacer;
import uehw.hw.rccc.RcccPacerConfig;
import uehw.model.rccc.RcccPacerModel.Event;
import uehw.model.rccc.RcccPacerModel.Pull;
import uehw.netsim.EventLoop;
import uehw.netsim.UecPullPacer;

/** RCCC's receiver pull pacer: RTL against the model clock by clock, the reference's order and rate, one event a clock. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class RcccPacerTest {
    /** 1000 connections (not a power of two: ids 1000..1023 are out of range), the reference's 100 Gb/s setting. */
    static final RcccPacerConfig CFG = new RcccPacerConfig(1000, 10, 20686, 4000, 64, 1027);
    static final Set<String> OCC_COUNTERS = Set.of("OCC_ARRIVALS", "OCC_MARKED", "OCC_TRIMMED_LAST_HOP", "OCC_TRIMMED_OTHER",
            "OCC_DECISIONS");

    interface Body {
        void run(RcccPacerBench b, long seed) throws Exception;
    }

    static void withBench(String name, Body body) {
        withBench(CFG, name, body);
    }

    static void withBench(RcccPacerConfig cfg, String name, Body body) {
        BenchExtension.bench(Simulation.compile(RcccPacerTest.class, "n" + cfg.connections() + "_id" + cfg.connIdWidth(),
                () -> new RcccPacer(cfg)), name, RcccPacerBench::new, body::run);
    }

    /**
     * Every counter against the model; with the oversubscription controller also its counters and
     * status (the arrivals must stand still meanwhile; its decisions go on, so OCC_DECISIONS is read
     * with the status, between two decisions).
     */
    static void assertCounters(RcccPacerBench b) {
        java.util.Map<String, Long> expected = new java.util.HashMap<>(b.model.counters.snapshot());
        if (b.model.occ != null) {
            expected.putAll(b.model.occ.counters.snapshot());
            expected.remove("OCC_DECISIONS");
        }
        CounterCheck.assertRegisters("rccc-pacer", RcccPacerCsr.ADDRESSES, RcccPacerCsr.COUNTERS, b::read, expected,
                b.model.occ != null ? Set.of("OCC_DECISIONS") : OCC_COUNTERS);
        if (b.model.occ == null) {
            return;
        }
        for (int tries = 0; ; tries++) {
            while (!b.model.occ.quiet(b.model.psPerQuantum)) {
                b.step();
            }
            long decisions = b.model.occ.counters.get("OCC_DECISIONS");
            long rtlDecisions = b.read(RcccPacerCsr.OCC_DECISIONS);
            long rate = b.read(RcccPacerCsr.OCC_RATE), g = b.read(RcccPacerCsr.OCC_G), ps = b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM);
            if (decisions != b.model.occ.counters.get("OCC_DECISIONS") || !b.model.occ.quiet(b.model.psPerQuantum)) {
                assertTrue(tries < 5, "the controller never stood still for the reads");
                continue;   // a decision landed among the reads
            }
            assertEquals(decisions, rtlDecisions, "OCC_DECISIONS");
            assertEquals(b.model.occ.rate(), rate, "OCC_RATE");
            assertEquals(b.model.occ.g(), g, "OCC_G");
            assertEquals(b.model.occ.psPerQuantum(), ps, "OCC_PS_PER_QUANTUM");
            return;
        }
    }

    /**
     * RTL == model, clock by clock, on 1M random events: connections opened and closed (their list
     * entries then dropped), pull targets ahead, equal, behind and 2^31 ahead (not ahead as a serial
     * number), near the 2^32 wrap, requests, ids out of range, opens of open connections; the event
     * port idle 0 / 30 %, the PULL port ready 100 / 50 / 5 % (long stalls: the lead clamped at
     * -2^32 ps with a short time per quantum); the settings changed between phases.
     */
    static Stream<Arguments> randomConfigs() {
        int scale = Seeds.scale();
        return Stream.of(Arguments.of("1000 connections", CFG, 1_000_000 * scale),
                Arguments.of("smallest", new RcccPacerConfig(2, 1, 20686, 4000, 64, 1027), 100_000 * scale),
                Arguments.of("largest", new RcccPacerConfig(65536, 24, 20686, 4000, 64, 1027), 100_000 * scale));
    }

    @Tag("soak")
    @ParameterizedTest(name = "{0}")
    @MethodSource("randomConfigs")
    void randomEventsMatchTheModel(String label, RcccPacerConfig cfg, int events) {
        withBench(cfg, "random_" + label.replace(' ', '_'), (b, seed) -> {
            Random r = new Random(seed);
            int n = cfg.connections();
            int[] hot = r.ints(8, 0, n).toArray();
            int idSpan = (int) Math.min(1L << cfg.connIdWidth(), n + 24L);
            int[] base = new int[n];
            java.util.Set<Integer> opened = new java.util.TreeSet<>();
            int phases = 8;
            int writes = 0;
            for (int phase = 0; phase < phases; phase++) {
                if (phase > 0) {
                    // settings change only while the pacer is quiet (they are sampled at use: docs/rccc.md)
                    b.write(RcccPacerCsr.PS_PER_QUANTUM, phase == 3 ? 1 : 50 + r.nextInt(phase == 5 ? 100 : 30_000));
                    int credit = 1 + r.nextInt(phase == 6 ? 4095 : 128);
                    b.write(RcccPacerCsr.CREDIT_PER_PULL, credit);
                    // phases 1 and 2: MAXWND_QUANTA a multiple of the credit (+ 1), where slow pulls stop at the compare's edge
                    b.write(RcccPacerCsr.MAXWND_QUANTA, phase == 4 ? 0 : phase <= 2 ? Math.min(credit * (1 + r.nextInt(8)) + phase - 1, (1 << 20) - 1)
                            : r.nextInt(phase == 7 ? (1 << 20) - 1 : 600));
                    b.write(RcccPacerCsr.CLOCK_PS, 1000 + r.nextInt(8000));
                }
                b.pattern(new Random(seed + phase), phase % 2 == 0 ? 0 : 0.3, phase == 5 ? 0.05 : phase % 3 == 0 ? 0.5 : 1);
                for (int i = 0; i < events / phases; i++) {
                    int conn = r.nextInt(3) > 0 ? hot[r.nextInt(hot.length)] : r.nextInt(idSpan);
                    int c = Math.min(conn, n - 1);
                    int k = r.nextInt(1000);
                    Event e;
                    if (k < 15) {
                        base[c] = r.nextInt(8) == 0 ? -1 - r.nextInt(5000) : r.nextInt();   // some start just below the wrap
                        e = Event.open(conn, base[c]);
                        opened.add(conn);
                    } else if (k < 20) {
                        e = Event.close(conn);
                    } else if (k < 350) {
                        e = Event.request(conn);
                    } else {
                        int ahead = switch (r.nextInt(10)) {
                            case 0 -> -r.nextInt(300);                 // behind or equal
                            case 1 -> Integer.MIN_VALUE;               // 2^31 ahead: not ahead
                            case 2 -> Integer.MAX_VALUE - r.nextInt(4);
                            default -> r.nextInt(400);
                        };
                        base[c] += r.nextInt(3) == 0 ? r.nextInt(100) : 0;
                        e = Event.target(conn, base[c] + ahead);
                    }
                    b.push(e);
                    if (r.nextInt(1500) == 0 && !b.settingPending()) {
                        // a setting written among the traffic: the model follows at the edge the register takes it
                        int which = r.nextInt(4);
                        b.post(new int[] {RcccPacerCsr.PS_PER_QUANTUM, RcccPacerCsr.CLOCK_PS, RcccPacerCsr.CREDIT_PER_PULL,
                                RcccPacerCsr.MAXWND_QUANTA}[which], new long[] {50 + r.nextInt(30_000), 1000 + r.nextInt(8000),
                                1 + r.nextInt(128), r.nextInt(600)}[which]);
                        writes++;
                    }
                    if (i % 32 == 31) {
                        b.flush();
                        for (int g = r.nextInt(4) == 0 ? r.nextInt(600) : 0; g > 0; g--) {
                            b.step();   // gaps: the pacer runs on its own, its lists drain to idle and slow pulls
                        }
                    }
                }
                // every connection closed: the engine drops their list entries and goes quiet; then the counts
                opened.forEach(c -> b.push(Event.close(c)));
                opened.clear();
                b.drain();
                assertCounters(b);
            }
            var m = b.model.counters;
            System.out.printf("rccc-pacer %s (seed %d): %d events, %d edges equal; %d PULLs (%d slow, %d zero), %d dropped, "
                            + "%d stale targets, %d not open, %d out of range, %d lag clamps; %d settings written among the events%n", label, seed, b.eventsTaken(), b.edges(),
                    m.get("PULLS"), m.get("SLOW_PULLS"), m.get("ZERO_PULLS"), m.get("DROPPED"), m.get("STALE_TARGETS"),
                    m.get("NOT_OPEN"), m.get("OUT_OF_RANGE"), m.get("LAG_CLAMPS"), writes);
            assertTrue(m.get("SLOW_PULLS") > 0 && m.get("ZERO_PULLS") > 0 && m.get("DROPPED") > 0 && m.get("STALE_TARGETS") > 0
                    && m.get("NOT_OPEN") > 0 && m.get("PULL_STALLS") > 0, "seed " + seed + ": the traffic reached every case");
            assertTrue(cfg.connections() == 1 << cfg.connIdWidth() || m.get("OUT_OF_RANGE") > 0, "seed " + seed + ": ids out of range");
        });
    }

    /**
     * The reference's pacer (uec.cpp:3044-3175, the exact model UecPullPacer in ps) and the block on
     * the same story give the same PULLs in the same order: four connections' targets at once,
     * served round robin 64 quanta at a time, the last grants short, then slow pulls to each in
     * turn up to MAXWND_QUANTA beyond its target. Twice: at the reference's MAXWND_QUANTA and at
     * one where the slow pulls stop exactly at its compare.
     */
    @Test
    void pullsAreTheReferencePacersInOrder() {
        withBench("reference_order", (b, seed) -> {
            // MAXWND_QUANTA: the reference's 1027, and 129 = 2 x 64 + 1, where a slow pull's excess (128)
            // is one below it: the compare's edge (uec.cpp:3108-3109 is strict)
            for (int maxwnd : new int[] {1027, 129}) {
                b.write(RcccPacerCsr.MAXWND_QUANTA, maxwnd);
                int[] targets = {300, 64, 1000, 130};
                long init = 1000;
                int from = b.pulls.size();
                for (int c = 0; c < 4; c++) {
                    b.push(Event.open(c, (int) init));
                }
                b.drain();
                for (int c = 0; c < 4; c++) {
                    b.push(Event.target(c, (int) (init + targets[c])));
                }
                b.drain();
                // the reference: same targets handed to its pacer at one instant
                EventLoop loop = new EventLoop();
                List<Pull> reference = new ArrayList<>();
                UecPullPacer pacer = new UecPullPacer(loop, CFG.psPerQuantum(), CFG.creditPerPull(), (long) maxwnd << 8,
                        (s, slow) -> reference.add(new Pull(s.flow, (int) (s.latestPull - UecPullPacer.INIT_PULL + init), slow)));
                UecPullPacer.Sink[] sinks = new UecPullPacer.Sink[4];
                for (int c = 0; c < 4; c++) {
                    sinks[c] = pacer.sink(c);
                }
                for (int c = 0; c < 4; c++) {
                    pacer.pullTarget(sinks[c], UecPullPacer.INIT_PULL + targets[c]);
                }
                loop.run(Long.MAX_VALUE);
                List<Pull> rtl = b.pulls.subList(from, b.pulls.size()).stream().map(RcccPacerBench.Taken::pull).toList();
                System.out.printf("rccc-pacer, MAXWND_QUANTA %d: %d PULLs as the reference's pacer sends them (%d slow)%n", maxwnd,
                        rtl.size(), rtl.stream().filter(Pull::slow).count());
                assertEquals(reference, rtl, "MAXWND_QUANTA " + maxwnd + ": the block's PULLs are the reference pacer's, in order");
            }
            assertCounters(b);
        });
    }

    /**
     * uec.cpp:3122-3128: the next event comes the granted quanta x the time per quantum after the
     * one before. A connection with a target far ahead gets 64 quanta a PULL; over 200 (2000) PULLs the
     * quanta granted x PS_PER_QUANTUM equal the time between the first and the last PULL's edges
     * (x CLOCK_PS) within 0.1 %, at the reference's 100 Gb/s and at a rate near the engine's limit.
     */
    @Test
    void grantRateIsTheConfiguredRate() {
        withBench("rate", (b, seed) -> {
            for (long psq : new long[] {20686, 700}) {
                b.write(RcccPacerCsr.PS_PER_QUANTUM, psq);
                int conn = psq == 20686 ? 5 : 6;
                b.push(Event.open(conn, 0));
                b.push(Event.target(conn, 1 << 30));
                int count = psq == 20686 ? 200 : 2000;   // 66,000 and 22,000 clocks: an edge is 1 / 22,000 of the span
                int from = b.pulls.size();
                while (b.pulls.size() < from + count + 1) {
                    b.step();
                }
                var first = b.pulls.get(from);
                var last = b.pulls.get(from + count);
                long quanta = (long) count * CFG.creditPerPull();
                double measured = (double) (last.edge() - first.edge()) * CFG.clockPs() / (quanta * psq);
                System.out.printf("rccc-pacer rate at %d ps a quantum: %d quanta in %d clocks, %.5f of the configured rate%n",
                        psq, quanta, last.edge() - first.edge(), 1 / measured);
                assertEquals(1.0, measured, 0.001, "the PULLs' time per quantum is PS_PER_QUANTUM");
                b.push(Event.close(conn));
                b.drain();
            }
            assertCounters(b);
        });
    }

    /**
     * One event a clock: with the PULL port held (one PULL waits, no event starts), 20,000 targets
     * and requests of open connections are taken in 20,000 clocks; then the PULLs flow again.
     */
    @Test
    void oneEventPerClock() {
        withBench("linerate", (b, seed) -> {
            Random r = new Random(seed);
            for (int c = 0; c < 64; c++) {
                b.push(Event.open(c, 0));
            }
            b.push(Event.target(0, 1000));
            b.drain();
            b.pattern(r, 0, 0);
            b.push(Event.target(1, 10));
            b.flush();
            while (b.model.pull() == null) {
                b.step();   // until the PULL for connection 1 is presented; it is held
            }
            int events = 20_000;
            int[] next = new int[64];
            for (int i = 0; i < events; i++) {
                int c = r.nextInt(64);
                next[c] += r.nextInt(5);
                b.push(r.nextInt(4) == 0 ? Event.request(c) : Event.target(c, next[c]));
            }
            long clocks = b.flush();
            System.out.printf("rccc-pacer line rate (seed %d): %d events taken in %d clocks%n", seed, events, clocks);
            assertEquals(events, clocks, "seed " + seed + ": one event a clock");
            b.pattern(r, 0, 1);
            b.drain();
            assertCounters(b);
        });
    }

    /**
     * docs/rccc.md, "The lead": a PULL port held for longer than 2^32 ps leaves the pacer 2^32 ps
     * behind, not more (LAG_CLAMPS counts the clocks clamped); released, it repays exactly that, a
     * PULL every engine's 11 clocks until its lead is back above 0, then paces again. With
     * CLOCK_PS = 65535 the clamp comes after 65,537 clocks.
     */
    @Test
    void aLongStallIsForgottenBeyondTheLagLimit() {
        withBench("lag", (b, seed) -> {
            b.write(RcccPacerCsr.CLOCK_PS, 65535);
            b.push(Event.open(9, 0));
            b.push(Event.target(9, 1 << 30));
            b.flush();
            b.pattern(new Random(seed), 0, 0);
            for (int i = 0; i < 70_000; i++) {
                b.step();
            }
            long clamps = b.read(RcccPacerCsr.LAG_CLAMPS);
            assertTrue(clamps > 4000 && clamps < 4600, clamps + " clocks clamped: 70,000 held, the clamp reached after 65,537");
            b.pattern(new Random(seed), 0, 1);
            int from = b.pulls.size();
            while (b.model.lead() <= 0) {
                b.step();
            }
            int burst = b.pulls.size() - from;
            // each PULL repays 64 x 20686 ps less the engine's 11 clocks of 65535 ps
            long perPull = 64L * 20686 - 11L * 65535;
            System.out.printf("rccc-pacer: a 70,000-clock stall (%d clocks clamped) repaid by %d back-to-back PULLs%n", clamps, burst);
            assertEquals((double) (1L << 32) / perPull, burst, 3, "the repayment is the clamped 2^32 ps, not the whole stall");
            b.push(Event.close(9));
            b.drain();
            assertCounters(b);
        });
    }

    /** docs/rccc.md: the post-reset sweep takes N clocks with the event port closed; every connection then starts closed. */
    @Test
    void theSweepTakesNClocksAndLeavesEveryConnectionClosed() {
        Simulation.compile(RcccPacerTest.class, "n1000_id10", () -> new RcccPacer(CFG)).run("sweep", BenchExtension.seed(), sim -> {
            var io = sim.dut().io();
            sim.poke(io.event().valid(), false);
            long steps = ResetSweep.stepsUntilInitDone(sim, io.initDone(), List.of(io.event().ready()), 4 * CFG.connections());
            assertEquals(CFG.connections(), steps, "a sweep of N clocks (ResetSweep's count is S)");
        });
        withBench("first_events", (b, seed) -> {
            int last = CFG.connections() - 1;
            b.push(Event.target(last, 5));
            b.push(Event.request(0));
            b.push(Event.close(last));
            b.push(Event.target(last + 1, 5));
            b.drain();
            assertEquals(3, b.read(RcccPacerCsr.NOT_OPEN), "connections start closed");
            assertEquals(1, b.read(RcccPacerCsr.OUT_OF_RANGE));
            assertTrue(b.pulls.isEmpty());
            assertCounters(b);
        });
    }

    /** A run's PULLs, windows and completions, a line each, in order. */
    private static List<String> traceOf(uehw.experiments.UetReference.Scenario s, uehw.netsim.PullPacer.Factory pacers,
                                        uehw.experiments.UetReference.Result[] result) {
        TraceLines t = new TraceLines();
        result[0] = uehw.experiments.UetReference.run(s, uehw.experiments.UetReference.exact(), pacers, net -> net.trace(t));
        return t.lines;
    }

    /**
     * Issue 34 deliverable 4: RCCC's two incast15 rows of `hwgen experiment uet-reference` with the
     * receiver's pull pacer the Verilated block at 250 MHz (RcccRtlPacer: the transport's calls
     * become events at the next clock edge, each PULL the port hands over leaves at its edge) give
     * the run on the block's model line for line: every PULL, window and completion at the same
     * picosecond (the bench also checks RTL against its own model at every edge); and the rows stay
     * within the bounds of the reference's figures.
     */
    @Test
    void incast15WithTheRtlInTheLoopIsTheModelsRun() {
        // the default generation with the oversubscription controller (the oversubscribed row feeds it)
        RcccPacerConfig cfg = new RcccPacerConfig(1024, 16, 20686, 4000, 64, 1027)
                .withOversubscribedCc(5259, 10_737_418, uehw.netsim.ClockedPullPacer.OCC_SEED);
        long clockPs = cfg.clockPs();
        List<uehw.experiments.UetReference.Scenario> rows = new ArrayList<>(uehw.experiments.UetReference.rccc());
        rows.add(uehw.experiments.UetReference.rcccOversubscribed());
        BenchExtension.bench(uehw.netsim.rtl.RcccRtlPacer.simulation(cfg), "uet_reference_incast15", sim -> sim, (sim, seed) -> {
            for (uehw.experiments.UetReference.Scenario s : rows) {
                uehw.experiments.UetReference.Result[] onModel = new uehw.experiments.UetReference.Result[1];
                uehw.experiments.UetReference.Result[] onRtl = new uehw.experiments.UetReference.Result[1];
                List<String> model = traceOf(s, uehw.netsim.ClockedPullPacer.models(cfg.connections(), clockPs), onModel);
                List<RcccPacerBench> benches = new ArrayList<>();
                List<String> rtl = traceOf(s, uehw.netsim.rtl.RcccRtlPacer.factory(() -> {
                    benches.add(new RcccPacerBench(sim));
                    return benches.get(benches.size() - 1);
                }, clockPs), onRtl);
                assertEquals(1, benches.size(), s.name() + ": one receiving node, one block");
                RcccPacerBench b = benches.get(0);
                assertCounters(b);
                long pullLines = rtl.stream().filter(l -> l.contains(" pull ")).count();
                System.out.printf("rccc-pacer in the loop of %s: %d edges, %d PULLs, %d trace lines; %s%n", s.name(), b.edges(),
                        b.pulls.size(), rtl.size(), uehw.experiments.UetReference.row(onRtl[0]));
                assertEquals(b.pulls.size(), pullLines, "every PULL the block handed over left");
                assertTrue(pullLines > 1500 && b.edges() > 500_000, pullLines + " PULLs in " + b.edges() + " edges");
                for (int i = 0; i < Math.min(model.size(), rtl.size()); i++) {
                    assertEquals(model.get(i), rtl.get(i), s.name() + ": trace line " + i);
                }
                assertEquals(model.size(), rtl.size(), s.name() + ": trace lines");
                assertTrue(uehw.experiments.UetReference.withinBounds(onRtl[0]), uehw.experiments.UetReference.row(onRtl[0]));
            }
        });
    }
}
