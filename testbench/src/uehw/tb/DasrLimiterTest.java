// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import uehw.bench.AxiLite4Master;
import uehw.bench.CounterCheck;
import uehw.bench.ResetSweep;
import uehw.bench.Simulation;
import uehw.bench.csr.DasrLimiterCsr;
import uehw.bench.dart.DasrLimiterBench;
import uehw.bench.dart.DasrLimiterBench.Event;
import uehw.hw.dart.DasrLimiter;
import uehw.hw.dart.DasrLimiterConfig;
import uehw.model.dart.DasrLimiterModel;

/** DASR's sender-side pacer: RTL against the model, line rate / n from the paper's rule, one event a clock. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class DasrLimiterTest {
    /** 1000 flows (not a power of two: ids 1000..1023 are out of range), 100 Gb/s. */
    static final DasrLimiterConfig CFG = new DasrLimiterConfig(1000, 10, 5243);

    interface Body {
        void run(DasrLimiterBench b, long seed) throws Exception;
    }

    static void withBench(String name, Body body) {
        withBench(CFG, name, body);
    }

    static void withBench(DasrLimiterConfig cfg, String name, Body body) {
        BenchExtension.bench(Simulation.compile(DasrLimiterTest.class, "f" + cfg.flows() + "_id" + cfg.flowIdWidth(),
                () -> new DasrLimiter(cfg)), name, DasrLimiterBench::new, body::run);
    }

    static void assertCounters(DasrLimiterBench b) {
        CounterCheck.assertRegisters("dasr-limiter", DasrLimiterCsr.ADDRESSES, DasrLimiterCsr.COUNTERS, b::read,
                b.model.counters.snapshot(), Set.of());
    }

    /**
     * RTL == model on 1M random events: a few hot flows (back-to-back sends of one flow, an ACK
     * then a send on the next clock), n from 0 to 65535, sizes 0-65535, ids out of range and kind
     * 3, BYTE_TIME changed between phases and written at random edges among the events (the
     * model following at the documented edge; large ones saturate the gap), input idle 0 / 30%, `now`
     * advancing 0-3 ns a clock with jumps (past 2^31 ns and the wrap).
     */
    static Stream<Arguments> randomConfigs() {
        int scale = Seeds.scale();
        return Stream.of(Arguments.of("1000 flows", CFG, 1_000_000 * scale),
                // the generation parameters at their limits: 2 flows behind a 1-bit id; 65536 behind 24-bit ids
                Arguments.of("smallest", new DasrLimiterConfig(2, 1, 5243), 100_000 * scale),
                Arguments.of("largest", new DasrLimiterConfig(65536, 24, 5243), 200_000 * scale));
    }

    @Tag("soak")
    @ParameterizedTest(name = "{0}")
    @MethodSource("randomConfigs")
    void randomEventsMatchTheModel(String label, DasrLimiterConfig cfg, int events) {
        withBench(cfg, "random_" + label.replace(' ', '_'), (b, seed) -> {
            Random r = new Random(seed);
            b.clock(t -> r.nextInt(100_000) == 0 ? t + (1L << 31) + r.nextInt(1 << 20) : t + r.nextInt(4));
            int[] hot = r.ints(6, 0, cfg.flows()).toArray();
            // in-range ids and some above the range (none exist when F = 2^id-width)
            int idSpan = (int) Math.min(1L << cfg.flowIdWidth(), cfg.flows() + 24L);
            int[] ns = {0, 1, 2, 3, 4, 8, 16, 17, 255, 4096, 65535};
            int phases = 8;
            int writes = 0;
            for (int phase = 0; phase < phases; phase++) {
                b.idle(new Random(seed + phase), phase % 2 == 0 ? 0 : 0.3);
                if (phase > 0) {
                    b.byteTime(phase == 5 ? (1 << 24) - 1 : r.nextInt(40_000));
                }
                for (int i = 0; i < events / phases; i++) {
                    int flow = r.nextInt(3) > 0 ? hot[r.nextInt(hot.length)] : r.nextInt(idSpan);
                    int k = r.nextInt(100);
                    Event e = k < 15 ? Event.ack(flow, ns[r.nextInt(ns.length)])
                            : k < 55 ? Event.sent(flow, r.nextInt(4) == 0 ? r.nextInt(65536) : 4160)
                            : k < 99 ? Event.query(flow) : new Event(3, flow, 0, 0);
                    b.push(e);
                    if (r.nextInt(2000) == 0 && b.actions().csrIdle()) {
                        b.read(DasrLimiterCsr.SENTS);   // a CSR access with events presented: none taken twice or lost
                    }
                    if (r.nextInt(1000) == 0 && b.actions().csrIdle()) {
                        // BYTE_TIME written at an edge among the events queued, the model following at its edge.
                        b.byteTimeAt(b.cycle() + 2 + r.nextInt(40), r.nextInt(8) == 0 ? (1 << 24) - 1 : r.nextInt(40_000));
                        writes++;
                    }
                    if (i % 64 == 63) {
                        while (!b.inputIdle()) {
                            b.step();
                        }
                    }
                }
                b.drain();
                assertCounters(b);
            }
            System.out.printf("DASR limiter (seed %d): %d answers equal; %d eligible of %d queries, %d gaps saturated; "
                            + "%d BYTE_TIME writes among events%n", seed, b.answers.matched(), b.model.counters.get("ELIGIBLE_QUERIES"), b.model.counters.get("QUERIES"), b.model.counters.get("GAP_SATURATED"), writes);
            assertTrue(b.model.counters.get("GAP_SATURATED") > 0 && b.model.counters.get("ELIGIBLE_QUERIES") > 0 && b.model.counters.get("ELIGIBLE_QUERIES") < b.model.counters.get("QUERIES"),
                    "seed " + seed + ": the traffic reached saturation and both answers");
        });
    }

    /**
     * Sec. III-A: with n = 4 a flow sends at a quarter of the line rate. At 100 Gb/s a 4160-byte
     * packet takes 332.8 ns on the wire, so the flow's next packet may go 4 x 332.8 = 1331.2 ns
     * later (BYTE_TIME rounds 0.08 ns to 5243 x 2^-16: within 0.1 ns). The n of an ACK applies to
     * the packet sent on the next clock; a flow with n = 1 is paced at line rate.
     */
    @Test
    void lineRateOverN() {
        withBench("rate", (b, seed) -> {
            b.clock(t -> t);
            b.setNow(1000);
            b.push(Event.ack(7, 4));
            b.push(Event.sent(7, 4160));        // on the clock after the ACK
            b.drain();
            double next = b.lastAnswer.nextNs();
            assertEquals(1000 + 1331.2, next, 1.0, "next packet of a flow at n = 4");
            assertFalse(b.lastAnswer.eligible());
            b.setNow(2330);
            b.push(Event.query(7));
            b.drain();
            assertFalse(b.lastAnswer.eligible(), "before its time");
            b.setNow(2332);
            b.push(Event.query(7));
            b.drain();
            assertTrue(b.lastAnswer.eligible(), "at its time");
            // n = 1: line rate, one packet every 332.8 ns; 1000 packets back to back take 332.8 us
            b.push(Event.ack(7, 1));
            long start = 5000;
            b.setNow(start);
            long t = start;
            for (int i = 0; i < 1000; i++) {
                b.setNow(t);
                b.push(Event.sent(7, 4160));
                b.drain();
                t = Math.max(t, b.lastAnswer.nextNs());
            }
            double us = (t - start) / 1000.0;
            System.out.printf("DASR limiter: 1000 packets of 4160 B at n = 1 paced over %.2f us (line rate: 332.8 us)%n", us);
            assertEquals(332.8, us, 0.4, "line rate within BYTE_TIME's rounding and the ns the answer drops");
            assertCounters(b);
        });
    }

    /**
     * docs/dasr-limiter.md, "Times": two sends whose gaps saturate, 1 ns apart, push the flow's next
     * time 33.5 ms ahead, beyond the 16.7 ms the pacer tells from a wrapped clock. The first answer
     * waits 16.7 ms (2^32 - 1 units); the second is already eligible, and the flow's next send
     * starts from now: the debt beyond 16.7 ms is dropped. RTL and model agree answer by answer.
     */
    @Test
    void paceDebtBeyondTheLargestGapIsDropped() {
        withBench("debt", (b, seed) -> {
            b.clock(t -> t);
            b.setNow(1000);
            b.push(Event.ack(3, 65535));
            b.push(Event.sent(3, 65535));
            b.drain();
            assertFalse(b.lastAnswer.eligible(), "one saturated gap: the flow waits");
            assertEquals(1000 + (((1L << 32) - 1) >> 8), b.lastAnswer.nextNs(), "next = now + (2^32 - 1) x 2^-8 ns");
            b.setNow(1001);
            b.push(Event.sent(3, 65535));
            b.drain();
            assertTrue(b.lastAnswer.eligible(), "two saturated gaps: 33.5 ms ahead reads as eligible");
            b.push(Event.sent(3, 64));
            b.drain();
            // From now: 65535 x 64 B x 5243 x 2^-16 ns = 335539.6 ns, rounded down to 2^-8 ns, answered in ns.
            assertEquals(1001 + 65535L * 64 * 5243 / 65536, b.lastAnswer.nextNs(), "the next send starts from now");
            assertEquals(2, b.read(DasrLimiterCsr.GAP_SATURATED));
            assertCounters(b);
        });
    }

    /** One event per clock: 20000 back-to-back events, sends of one flow on consecutive clocks, all taken. */
    @Test
    void oneEventPerClock() {
        withBench("linerate", (b, seed) -> {
            Random r = new Random(seed);
            b.push(Event.query(1));
            b.drain();
            int events = 20_000;
            for (int i = 0; i < events - 1; i++) {
                int flow = r.nextInt(3) == 0 ? 5 : r.nextInt(1000);
                b.push(r.nextBoolean() ? Event.sent(flow, 1500) : r.nextBoolean() ? Event.query(flow) : Event.ack(flow, 1 + r.nextInt(8)));
            }
            b.push(Event.query(5));   // the last one answers: its answer ends the count
            long clocks = b.drain();
            System.out.printf("DASR limiter line rate (seed %d): %d events accepted in %d clocks%n", seed, events,
                    clocks - DasrLimiter.latency());
            assertEquals(events + DasrLimiter.latency(), clocks, "seed " + seed + ": one event a clock, the last answer "
                    + DasrLimiter.latency() + " edges later");
            assertCounters(b);
        });
    }

    /**
     * Boundaries of the reset and of the flow space: docs/dasr-limiter.md gives the sweep as F
     * clocks with `ready` low until `initDone` rises, and every flow starting at next = 0, n = 1.
     * The first events after the sweep (at now = 0, the smallest time) read flows 0 and F - 1
     * before anything wrote them: a query is eligible with next 0, a packet goes at line rate
     * (n = 1); then flow F (the first out of range) and F - 1 again at the top of the time range.
     */
    @Test
    void theFirstEventsAfterTheSweepReadEveryFlowsInitialState() {
        Simulation.compile(DasrLimiterTest.class, "f1000", () -> new DasrLimiter(CFG)).run("sweep", BenchExtension.seed(), sim -> {
            var io = sim.dut().io();
            sim.poke(io.event().valid(), false);
            long steps = ResetSweep.stepsUntilInitDone(sim, io.initDone(), List.of(io.event().ready()), 4 * CFG.flows());
            assertEquals(CFG.flows(), steps, "a sweep of F clocks (ResetSweep's count is S)");
        });
        withBench("first_events", (b, seed) -> {
            b.clock(t -> t);
            b.setNow(0);
            int last = CFG.flows() - 1;
            b.push(Event.query(last));
            b.drain();
            assertTrue(b.lastAnswer.eligible(), "flow F - 1 is eligible at now = 0 before any event");
            assertEquals(0, b.lastAnswer.nextNs());
            b.push(Event.query(0));
            b.push(Event.sent(last, 4160));
            b.drain();
            assertEquals(332, b.lastAnswer.nextNs(), "n = 1 before any ACK: 4160 B x 5243 x 2^-16 ns = 332.8 ns");
            b.push(Event.sent(last + 1, 4160));   // flow F: out of range, not eligible, next 0
            b.drain();
            assertFalse(b.lastAnswer.eligible());
            assertEquals(0, b.lastAnswer.nextNs());
            b.setNow((1L << 32) - 1);   // the last ns before the wrap
            b.push(Event.query(last));
            b.push(Event.sent(last, 64));
            b.drain();
            assertCounters(b);
        });
    }

    /**
     * The n port (the limiter inside the NIC engine, `pacing` = `dasr`): an update sampled at edge u
     * writes n as an ACK event accepted at u would, so a send accepted at u + 1 already uses it and
     * one at u does not. Random sends and queries of a few hot flows beside random n updates (0, out
     * of range, the same flow as the send of the next clock), ACK events (not a kind with the
     * port), idle clocks: every answer against the model (the event of an edge applied before the
     * edge's update), at its edge, and the counters.
     */
    @Test
    void theNPortWritesNAsAnAckEventAtItsEdgeWould() {
        final int ACK = 0, SENT = 1, QUERY = 2, BAD = 3;   // the event kinds (docs/dasr-limiter.md, "Ports")
        long seed = BenchExtension.seed();
        Simulation.compile(DasrLimiterTest.class, "f1000_nport", () -> new DasrLimiter(CFG, true)).run("nport", seed, sim -> {
            var io = sim.dut().io();
            Random r = new Random(seed);
            AxiLite4Master csr = new AxiLite4Master(sim, io.ctrl());
            sim.poke(io.event().valid(), false);
            sim.poke(io.nUpdate().valid(), false);
            sim.reset(16);
            while (!sim.peekBool(io.initDone())) {
                sim.step();
            }
            sim.step();
            DasrLimiterModel model = new DasrLimiterModel(CFG.flows(), CFG.byteTime());
            java.util.ArrayDeque<Object[]> answers = new java.util.ArrayDeque<>();   // {edge, answer}
            int[] hot = {3, 4, 999};
            int[] ns = {0, 1, 2, 3, 8, 255, 65535};
            long now = 1000;
            int matched = 0;
            for (int c = 0; c < 20_000; c++) {
                long edge = sim.cycle() + 1;
                now += r.nextInt(3);
                int k = r.nextInt(10);
                boolean ev = k < 8;
                int evKind = k < 4 ? SENT : k < 7 ? QUERY : r.nextBoolean() ? ACK : BAD;
                int evFlow = r.nextInt(4) > 0 ? hot[r.nextInt(hot.length)] : r.nextInt(1024);
                int bytes = r.nextInt(4) == 0 ? r.nextInt(65536) : 4160;
                boolean nValid = r.nextInt(3) == 0;
                int nFlow = r.nextInt(4) > 0 ? hot[r.nextInt(hot.length)] : r.nextInt(1024);
                int n = ns[r.nextInt(ns.length)];
                sim.poke(io.event().valid(), ev);
                sim.poke(io.event().payload().kind(), evKind);
                sim.poke(io.event().payload().flow(), evFlow);
                sim.poke(io.event().payload().bytes(), bytes);
                sim.poke(io.nUpdate().valid(), nValid);
                sim.poke(io.nUpdate().payload().flow(), nFlow);
                sim.poke(io.nUpdate().payload().n(), n);
                sim.poke(io.now(), now);
                sim.step();
                assertTrue(!ev || sim.peekBool(io.event().ready()), "the event port is always ready after the sweep");
                if (ev) {
                    DasrLimiterModel.Answer a = evKind == SENT ? model.sent(evFlow, bytes, now)
                            : evKind == QUERY ? model.query(evFlow, now) : null;
                    if (evKind == ACK || evKind == BAD) {
                        model.badKind();
                    }
                    if (a != null) {
                        answers.add(new Object[] {edge + DasrLimiter.latency(), a});
                    }
                }
                if (nValid) {
                    model.ack(nFlow, n);
                }
                boolean due = !answers.isEmpty() && (long) answers.peek()[0] == edge;
                assertEquals(due, sim.peekBool(io.answer().valid()), "seed " + seed + ": an answer at edge " + edge);
                if (due) {
                    var a = io.answer().payload();
                    assertEquals(answers.poll()[1], new DasrLimiterModel.Answer((int) sim.peek(a.flow()), sim.peekBool(a.eligible()),
                            sim.peek(a.nextNs())), "seed " + seed + ": the answer at edge " + edge);
                    matched++;
                }
            }
            sim.poke(io.event().valid(), false);
            sim.poke(io.nUpdate().valid(), false);
            for (int i = 0; i < 12; i++) {
                sim.step();
            }
            CounterCheck.assertRegisters("dasr-limiter n port", DasrLimiterCsr.ADDRESSES, DasrLimiterCsr.COUNTERS, a -> csr.read(a),
                    model.counters.snapshot(), Set.of());
            System.out.printf("DASR limiter n port (seed %d): %d answers equal, %d n updates, %d gaps saturated%n", seed, matched,
                    model.counters.get("ACKS"), model.counters.get("GAP_SATURATED"));
        });
    }
}
