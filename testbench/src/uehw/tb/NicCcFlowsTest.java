// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.nic.NicCcFlows;
import uehw.hw.nic.NicCcFlowsConfig;
import uehw.hw.nic.NicCcFlowsIo;
import uehw.model.nic.FlowGrants;

/**
 * The NIC engine's flow state and grant path (docs/nic-engine.md, "Flow state and grants"): the
 * grant, refusal and ready outputs equal FlowGrants' at every edge under random ops and grant
 * backpressure; independently of the model, new grants of a flow carry PSNs 0, 1, 2, ..., never
 * grant more than was queued, and once the windows open every queued and resent byte is granted;
 * a window alone admits the number of packets the rule gives; and 256 busy flows get a grant a
 * clock.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class NicCcFlowsTest {
    static final NicCcFlowsConfig CFG = new NicCcFlowsConfig(64, true, 5, 8);
    static final NicCcFlowsConfig WIDE = new NicCcFlowsConfig(256, false, 5, 8);
    /** With pacing: each grant holds its flow until the bench releases it. */
    static final NicCcFlowsConfig PACED = new NicCcFlowsConfig(64, true, 5, 8, true);
    static final int MSS = 1000;
    static final int OVERHEAD = 64;

    /** The DUT and the model side by side; the test's own ledger beside them. */
    static final class Bench {
        final Sim<NicCcFlows> sim;
        final NicCcFlowsIo io;
        final FlowGrants model;
        final long[] queued;
        final long[] resend;
        final long[] newGranted;
        final long[] resent;
        final long[] wireGranted;
        final long[] nextPsn;
        final List<FlowGrants.Grant> grants = new ArrayList<>();
        private final boolean credit;
        private final long[] inFlightAsked = new long[3];
        private int queries;
        /** Timeouts applied (the op port's timedOut), and the timeout ops the bench gave (as the engine does on a free clock). */
        final List<FlowGrants.TimedOut> timeouts = new ArrayList<>();
        int timeoutOps;
        /** With pacing: the grants' releases the bench will give, {edge due, flow, paced toggle}, each 0..80 edges after the grant's write. */
        private final boolean pacing;
        private final List<long[]> releases = new ArrayList<>();
        private final Random releaseDelays = new Random(7);
        long released;

        /** Message ends the bench wrote and the grants have not reached, per flow; ends written; grants with last. */
        private final boolean messages;
        final List<Deque<Long>> ends = new ArrayList<>();
        final long[] endsWritten;
        long lasts;

        Bench(Sim<NicCcFlows> sim, NicCcFlowsConfig cfg) {
            this.sim = sim;
            this.io = sim.dut().io();
            this.credit = cfg.credit();
            this.pacing = cfg.pacing();
            this.messages = cfg.messages();
            int n = cfg.flows();
            model = new FlowGrants(n, cfg.credit(), cfg.pickerDepth(), cfg.grantFifo(), MSS, OVERHEAD, pacing, cfg.messageEnds());
            for (int f = 0; f < n; f++) {
                ends.add(new ArrayDeque<>());
            }
            endsWritten = new long[n];
            queued = new long[n];
            resend = new long[n];
            newGranted = new long[n];
            resent = new long[n];
            wireGranted = new long[n];
            nextPsn = new long[n];
            sim.poke(io.op().valid(), false);
            sim.poke(io.grant().ready(), false);
            sim.poke(io.mss(), MSS);
            sim.poke(io.overhead(), OVERHEAD);
            sim.poke(io.rto(), 0);
            sim.poke(io.now(), 0);
            sim.poke(io.timeoutHold(), false);
            sim.poke(io.timeout().ready(), false);
            if (pacing) {
                sim.poke(io.release().valid(), false);
            }
            sim.reset(4);
            // the post-reset sweep: the model's edge 0 is the first that samples ready
            for (int c = 0; !sim.peekBool(io.ready()); c++) {
                assertTrue(c <= n + 2, "the sweep took more than flows + 2 clocks");
                sim.step();
            }
            model.edge(null, false, 0, false);
        }

        /** The retransmission timeout from the next edge on (ns; the bench's time is one ns a clock). */
        void rto(long ns) {
            sim.poke(io.rto(), ns);
            model.setRto(ns);
        }

        /**
         * One edge: the op (or null: the timeout scan's candidate, if any, as the engine gives it) and
         * the grant output's ready; checks the outputs against the model.
         */
        void edge(FlowGrants.Op op, boolean ready) {
            FlowGrants.Grant expected = model.grant();
            boolean refused = model.refused();
            FlowGrants.Candidate candidate = model.timeoutCandidate();
            FlowGrants.TimedOut timedOut = model.timedOut();
            FlowGrants.PaceSent sent = pacing ? model.paceSent() : null;
            int scan = model.timeoutScan();
            // with pacing: the earliest release due at this edge (one an edge)
            FlowGrants.PaceRelease release = null;
            if (pacing) {
                long e = sim.cycle() + 1;
                long[] due = releases.stream().filter(x -> x[0] <= e).min((x, y) -> Long.compare(x[0], y[0])).orElse(null);
                if (due != null) {
                    releases.remove(due);
                    release = new FlowGrants.PaceRelease((int) due[1], due[2] == 1);
                    released++;
                }
                sim.poke(io.release().valid(), release != null);
                if (release != null) {
                    sim.poke(io.release().payload().flow(), release.flow());
                    sim.poke(io.release().payload().paced(), release.paced());
                }
            }
            if (op == null && candidate != null) {
                op = FlowGrants.Op.timeout(candidate);
                timeoutOps++;
            }
            long now = (sim.cycle() + 1) & 0xFFFF_FFFFL;
            sim.poke(io.now(), now);
            sim.poke(io.timeout().ready(), op != null && op.timeout());
            // the in-flight query sampled at this edge (edge c0 + 1), answered at edge c0 + 3
            long c0 = sim.cycle();
            int query = (int) (c0 * 37 % model.flows());
            sim.poke(io.inFlightFlow(), query);
            inFlightAsked[(int) (c0 % 3)] = model.inFlight(query);
            sim.poke(io.op().valid(), op != null);
            if (op != null) {
                sim.poke(io.op().payload().flow(), op.flow());
                sim.poke(io.op().payload().queued(), op.queued());
                sim.poke(io.op().payload().retired(), op.retired());
                sim.poke(io.op().payload().resend(), op.resend());
                if (credit) {
                    sim.poke(io.op().payload().credit(), op.credit());
                }
                sim.poke(io.op().payload().setWindow(), op.setWindow());
                sim.poke(io.op().payload().window(), op.window());
                sim.poke(io.op().payload().timeout(), op.timeout());
                sim.poke(io.op().payload().expect(), op.expect());
                if (messages) {
                    sim.poke(io.op().payload().end(), op.end());
                }
            }
            sim.poke(io.grant().ready(), ready);
            sim.step();
            long c = sim.cycle();
            assertTrue(sim.peekBool(io.op().ready()), "op ready at edge " + c);
            if (queries++ >= 2) {
                assertEquals(inFlightAsked[(int) ((c - 3) % 3)], sim.peek(io.inFlight()), "in flight asked two edges before edge " + c);
            }
            assertEquals(refused, sim.peekBool(io.refused()), "refused at edge " + c);
            assertEquals(scan, sim.peek(io.timeoutScan()), "the timeout scan's flow at edge " + c);
            assertEquals(candidate != null, sim.peekBool(io.timeout().valid()), "timeout candidate at edge " + c);
            if (candidate != null) {
                var p = io.timeout().payload();
                assertEquals(candidate, new FlowGrants.Candidate((int) sim.peek(p.flow()), (int) sim.peek(p.bytes()), (int) sim.peek(p.resend()),
                        sim.peek(p.expect())), "timeout candidate at edge " + c);
            }
            assertEquals(timedOut != null, sim.peekBool(io.timedOut().valid()), "timed out at edge " + c);
            if (timedOut != null) {
                assertEquals(timedOut, new FlowGrants.TimedOut((int) sim.peek(io.timedOut().payload().flow()),
                        (int) sim.peek(io.timedOut().payload().bytes())), "timed out at edge " + c);
                timeouts.add(timedOut);
                // what the timeout asks to resend (its op's resend, applied)
                resend[timedOut.flow()] += Math.max(0, timedOut.bytes() - OVERHEAD);
            }
            if (pacing) {
                assertEquals(sent != null, sim.peekBool(io.sent().valid()), "sent at edge " + c);
                if (sent != null) {
                    assertEquals(sent, new FlowGrants.PaceSent((int) sim.peek(io.sent().payload().flow()),
                            (int) sim.peek(io.sent().payload().wire()), sim.peekBool(io.sent().payload().paced())), "sent at edge " + c);
                    releases.add(new long[] {c + 1 + releaseDelays.nextInt(80), sent.flow(), sent.paced() ? 1 : 0});
                }
            }
            assertEquals(expected != null, sim.peekBool(io.grant().valid()), "grant valid at edge " + c);
            if (expected != null) {
                FlowGrants.Grant got = new FlowGrants.Grant((int) sim.peek(io.grant().payload().flow()),
                        sim.peek(io.grant().payload().psn()), (int) sim.peek(io.grant().payload().bytes()),
                        sim.peekBool(io.grant().payload().resend()), messages && sim.peekBool(io.grant().payload().last()));
                assertEquals(expected, got, "grant at edge " + c);
                if (ready) {
                    ledger(got);
                }
            }
            if (op != null) {
                queued[op.flow()] += op.queued();
                if (op.end()) {
                    ends.get(op.flow()).add(queued[op.flow()]);
                    endsWritten[op.flow()]++;
                }
                if (!op.timeout()) {
                    resend[op.flow()] += op.resend();   // a timeout's when it applies (timedOut)
                }
            }
            model.edge(op, ready, now, false, release);
        }

        /** The test's own bookkeeping of a taken grant. */
        private void ledger(FlowGrants.Grant g) {
            grants.add(g);
            int f = g.flow();
            if (g.resend()) {
                resent[f] += g.bytes();
                assertTrue(resent[f] <= resend[f], "flow " + f + " resent more than it was asked to");
            } else {
                assertEquals(nextPsn[f]++, g.psn(), "flow " + f + ": new packets' PSNs in order");
                newGranted[f] += g.bytes();
                assertTrue(newGranted[f] <= queued[f], "flow " + f + " granted more than was queued");
                // the message ends the bench wrote: a packet never crosses the next, and says last when it reaches it
                Long end = ends.get(f).peek();
                assertTrue(end == null || newGranted[f] <= end, "flow " + f + ": a packet crossed the message end " + end);
                assertEquals(end != null && newGranted[f] == end, g.last(), "flow " + f + ": last at " + newGranted[f] + " (end " + end + ")");
                if (g.last()) {
                    ends.get(f).poll();
                    lasts++;
                }
            }
            // 0 bytes: an empty message's packet only
            assertTrue(g.bytes() <= MSS && (g.bytes() >= 1 || g.last()), "grant of " + g.bytes() + " bytes");
            wireGranted[f] += g.bytes() + OVERHEAD;
        }
    }

    /**
     * Random ops and backpressure against the model, edge by edge; with pacing the bench releases
     * each grant 0 to 80 edges after its write (`io_sent`), one release an edge.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"credit", "credit, pacing"})
    void grantsAreTheModelsUnderRandomOpsAndBackpressure(String variant) {
        long seed = BenchExtension.seed();
        NicCcFlowsConfig cfg = variant.contains("pacing") ? PACED : CFG;
        Simulation<NicCcFlows> build = Simulation.compile(NicCcFlowsTest.class, cfg.pacing() ? "f64_credit_paced" : "f64_credit",
                () -> new NicCcFlows(cfg));
        build.run("random", seed, sim -> {
            Random r = new Random(seed);
            Bench b = new Bench(sim, cfg);
            int n = cfg.flows();
            long[] retired = new long[n];
            int clocks = 12000 * Seeds.scale();
            b.rto(1500);   // flows whose ACKs stop time out
            for (int c = 0; c < clocks; c++) {
                int phase = c / 2000 % 3;      // dense ops; sparse ops; ops on 4 flows only
                FlowGrants.Op op = null;
                if (r.nextInt(phase == 1 ? 6 : 2) == 0) {
                    int f = phase == 2 ? r.nextInt(4) : r.nextInt(n);
                    long outstanding = b.wireGranted[f] - retired[f];
                    switch (r.nextInt(6)) {
                        // a doorbell; one in three ends a message (some empty) while the flow holds fewer than messageEnds ends
                        case 0 -> op = FlowGrants.Op.doorbell(f, r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(r.nextBoolean() ? 200 : 5000),
                                r.nextInt(3) == 0 && b.ends.get(f).size() < cfg.messageEnds());
                        case 1 -> op = FlowGrants.Op.window(f, r.nextInt(8) == 0 ? r.nextInt(500) : 1000 + r.nextInt(20000));
                        case 2, 3 -> {     // an ACK: some of what is in flight (or, rarely, more)
                            long bytes = outstanding > 0 ? 1 + (long) (r.nextDouble() * outstanding) : r.nextInt(16) == 0 ? 100 : 0;
                            op = new FlowGrants.Op(f, 0, bytes, 0, r.nextBoolean() ? 1500 : 0, r.nextInt(4) == 0,
                                    2000 + r.nextInt(30000));
                        }
                        case 4 -> {        // a NACK: a packet retired and to be resent
                            int p = 1 + r.nextInt(MSS);
                            op = new FlowGrants.Op(f, 0, p + OVERHEAD, p, 0, false, 0);
                        }
                        default -> op = new FlowGrants.Op(f, r.nextInt(3000), 0, 0, r.nextInt(3) == 0 ? 0xFFFF_F000L : 3000, false, 0);
                    }
                    retired[f] += op.retired();
                }
                boolean ready = phase == 1 ? r.nextInt(4) == 0 : r.nextInt(8) > 0;
                b.edge(op, ready);
            }
            // windows and credit wide open, the output ready: everything queued or to resend goes
            b.rto(0);
            for (int f = 0; f < n; f++) {
                b.edge(new FlowGrants.Op(f, 0, 0, 0, 1L << 30, true, 0x7FFF_FFFFL), true);
            }
            for (int c = 0, idle = 0; idle < 300; c++, idle++) {   // until 300 clocks without a grant
                assertTrue(c < 200_000, "the grants never stopped");
                int before = b.grants.size();
                b.edge(null, true);
                idle = b.grants.size() > before ? 0 : idle;
            }
            long refusals = b.model.refusals();
            for (int f = 0; f < n; f++) {
                assertEquals(b.queued[f] & 0xFFFF_FFFFL, b.newGranted[f] & 0xFFFF_FFFFL, "flow " + f + ": every queued byte granted");
                assertEquals(b.resend[f], b.resent[f], "flow " + f + ": every resend granted");
            }
            System.out.printf("nic-cc flows (%s): %d grants, %d refused picks, %d timeouts (%d timeout ops), %d releases, %d messages over %d clocks%n",
                    variant, b.grants.size(), refusals, b.timeouts.size(), b.timeoutOps, b.released, b.lasts, clocks);
            assertTrue(!cfg.pacing() || b.released == b.grants.size(), "every grant released (" + b.released + ")");
            assertEquals(b.model.messages(), b.lasts, "grants with last");
            long endsWritten = java.util.Arrays.stream(b.endsWritten).sum();
            assertEquals(endsWritten, b.lasts, "every message end reached");
            assertTrue(b.lasts > 50, "messages " + b.lasts);
            assertTrue(b.grants.size() > clocks / 10, "grants " + b.grants.size());
            assertTrue(b.timeouts.size() > 10, "timeouts " + b.timeouts.size());
        });
    }

    /**
     * uec.cpp:1130-1135: one flow with a window of W wire bytes and nothing retired sends k
     * packets of MSS + overhead while k x (MSS + overhead) <= W; then an ACK of one packet's bytes
     * admits one more.
     */
    @Test
    void aWindowAdmitsWhatTheRuleGives() {
        long seed = BenchExtension.seed();
        Simulation<NicCcFlows> build = Simulation.compile(NicCcFlowsTest.class, "f64_credit", () -> new NicCcFlows(CFG));
        build.run("window", seed, sim -> {
            Bench b = new Bench(sim, CFG);
            int packet = MSS + OVERHEAD;
            long window = 5L * packet + packet - 1;   // five packets, not six
            b.edge(new FlowGrants.Op(9, 100_000, 0, 0, 1_000_000, true, window), true);
            for (int c = 0; c < 100; c++) {
                b.edge(null, true);
            }
            assertEquals(5, b.grants.size(), "packets a window of " + window + " bytes admits");
            b.edge(new FlowGrants.Op(9, 0, packet, 0, 0, false, 0), true);
            for (int c = 0; c < 100; c++) {
                b.edge(null, true);
            }
            assertEquals(6, b.grants.size(), "one more after an ACK of one packet");
            // credit: spent below zero, no grant until a PULL's credit
            b.edge(new FlowGrants.Op(9, 0, 6L * packet, 0, 0, false, 0), true);   // all retired
            b.edge(new FlowGrants.Op(9, 0, 0, 0, -1_000_000L + 6L * packet & 0xFFFF_FFFFL, false, 0), true);
            for (int c = 0; c < 100; c++) {
                b.edge(null, true);
            }
            assertEquals(6, b.grants.size(), "no grant with the credit at zero");
            b.edge(new FlowGrants.Op(9, 0, 0, 0, 1, false, 0), true);
            for (int c = 0; c < 100; c++) {
                b.edge(null, true);
            }
            assertEquals(7, b.grants.size(), "one grant for one byte of credit");
        });
    }

    /**
     * uec.cpp:1297-1304, 2319-2430 (docs/nic-engine.md, "Timeouts"): a flow with packets in flight
     * and no progress times out RTO after its first packet, one packet (MSS + overhead wire bytes)
     * retired and its payload resent; the timer then runs from that timeout. An ACK before RTO
     * restarts it (no timeout).
     */
    @Test
    void aFlowWithoutProgressTimesOutOnePacketAnRto() {
        long seed = BenchExtension.seed();
        Simulation<NicCcFlows> build = Simulation.compile(NicCcFlowsTest.class, "f64_credit", () -> new NicCcFlows(CFG));
        build.run("timeout", seed, sim -> {
            Bench b = new Bench(sim, CFG);
            int packet = MSS + OVERHEAD;
            long rto = 700;
            b.rto(rto);
            b.edge(new FlowGrants.Op(9, 3L * MSS, 0, 0, 1_000_000, true, 100L * packet), true);
            while (b.grants.size() < 3) {
                b.edge(null, true);
            }
            long sent = sim.cycle();
            // an ACK of one packet half an RTO later: the timer restarts
            while (sim.cycle() < sent + rto / 2) {
                b.edge(null, true);
            }
            long acked = sim.cycle();
            b.edge(new FlowGrants.Op(9, 0, packet, 0, 0, false, 0), true);
            while (b.timeouts.isEmpty()) {
                assertTrue(sim.cycle() < acked + rto + 2L * CFG.flows() + 20, "no timeout within RTO and a scan after the ACK");
                b.edge(null, true);
            }
            long first = sim.cycle();
            assertTrue(first >= acked + rto, "timed out " + (first - acked) + " clocks after the ACK, before RTO");
            assertEquals(new FlowGrants.TimedOut(9, packet), b.timeouts.get(0), "one packet's wire bytes");
            // its payload is resent; the next timeout is an RTO after this one
            while (b.timeouts.size() < 2) {
                assertTrue(sim.cycle() < first + rto + 2L * CFG.flows() + 20, "no second timeout");
                b.edge(null, true);
            }
            assertTrue(sim.cycle() - first >= rto, "the second timeout " + (sim.cycle() - first) + " clocks after the first");
            assertTrue(b.grants.stream().filter(FlowGrants.Grant::resend).count() >= 1, "the timed-out payload resent");
            assertEquals(MSS, b.grants.stream().filter(FlowGrants.Grant::resend).findFirst().get().bytes(), "a resend of one packet's payload");
            // the next candidate meets an ACK of the flow at its edge: the timeout op after it changes nothing
            while (b.model.timeoutCandidate() == null) {
                assertTrue(sim.cycle() < first + 3 * rto + 4L * CFG.flows(), "no third candidate");
                b.edge(null, true);
            }
            int before = b.timeouts.size();
            int ops = b.timeoutOps;
            b.edge(new FlowGrants.Op(9, 0, 100, 0, 0, false, 0), true);
            for (int c = 0; c < 10; c++) {
                b.edge(null, true);
            }
            assertEquals(ops + 1, b.timeoutOps, "the candidate was taken after the ACK");
            assertEquals(before, b.timeouts.size(), "a timeout after progress does not apply");
        });
    }

    /** 256 flows with large windows and backlogs, the output always ready: a grant every clock. */
    @Test
    void busyFlowsGetAGrantEveryClock() {
        long seed = BenchExtension.seed();
        Simulation<NicCcFlows> build = Simulation.compile(NicCcFlowsTest.class, "f256", () -> new NicCcFlows(WIDE));
        build.run("line-rate", seed, sim -> {
            Bench b = new Bench(sim, WIDE);
            for (int f = 0; f < WIDE.flows(); f++) {
                b.edge(new FlowGrants.Op(f, 10_000_000, 0, 0, 0, true, 100_000_000), true);
            }
            for (int c = 0; c < 100; c++) {
                b.edge(null, true);
            }
            int before = b.grants.size();
            int clocks = 3000;
            for (int c = 0; c < clocks; c++) {
                b.edge(null, true);
            }
            int grants = b.grants.size() - before;
            System.out.printf("nic-cc flows: %d grants in %d clocks with %d busy flows%n", grants, clocks, WIDE.flows());
            assertTrue(grants >= clocks - 3, grants + " grants in " + clocks + " clocks");
        });
    }
}
