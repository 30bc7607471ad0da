// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import uehw.bench.Axi4StreamPackets;
import uehw.bench.AxiLite4Master;
import uehw.bench.csr.NicCcCsr;
import uehw.bench.csr.NsccCsr;
import uehw.bench.nic.NicCcModels;
import uehw.bench.nscc.NsccBench;
import uehw.bench.smartt.SmarttBench;
import uehw.bench.swift.SwiftBench;
import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.bench.facade.SpinalSimFacade;
import uehw.hw.common.PacketFormat;
import uehw.hw.nic.NicCc;
import uehw.hw.nic.NicCcConfig;
import uehw.hw.nic.NicCcFlowOp;
import uehw.hw.nic.NicCcIo;
import uehw.hw.nscc.Nscc;
import uehw.hw.nscc.NsccEvent;
import uehw.hw.nscc.NsccUpdate;
import uehw.hw.smartt.SmarttEvent;
import uehw.hw.smartt.SmarttUpdate;
import uehw.hw.swift.Swift;
import uehw.hw.swift.SwiftEvent;
import uehw.hw.swift.SwiftUpdate;
import uehw.model.nic.ControlFrames;
import uehw.model.nic.FlowGrants;
import uehw.model.nic.NicEngineModel;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.smartt.SmarttFixedModel;
import uehw.model.swift.SwiftFixedModel;
import spinal.core.Bundle;

/**
 * The engine (docs/nic-engine.md, "The engine") with the test as its network: every grant is a
 * packet that comes back as an ACK (the cumulative bytes its flow's receiver has, the grant's time
 * echoed) or, trimmed, as a NACK, after a random round trip. Checked at every edge: the grants
 * equal FlowGrants' fed with the ops the flow state took; the law's events (ACK and NACK) are the
 * ones the test derives from the frames it sent, in order (newly acknowledged bytes, RTT, ECN,
 * last hop, packet bytes, each in the law's own format); the law's windows are its fixed model's
 * (NsccFixedModel, SmarttFixedModel, SwiftFixedModel) for the events it took, and each window the
 * flow state is given is that window in bytes. Bad, foreign and out-of-range frames and doorbells
 * for ids >= N come in between. At the end: every queued byte granted, every NACKed packet's payload resent, a
 * retransmit request for every NACK, every counter what the test saw.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class NicCcTest {
    static final NicCcConfig CFG = new NicCcConfig(64, 64, 16, "nscc", false, 64, 256, 100, 4150, 14022720L);
    static final int MSS = 4086;
    static final int OVERHEAD = 64;
    /** Edges from a frame's last beat to the edge whose `now` its RTT is measured at: the receiver's 6, 2 stages. */
    static final int FRAME_TO_RTT = 6 + 2;

    private record Frame(long due, long order, byte[] bytes) {
    }

    private record Expected(int flow, int kind, long bytes, long rttFromTimestamp, boolean ecn, boolean lastHop) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"nscc", "smartt", "swift"})
    void trafficThroughTheEngineMatchesItsParts(String law) {
        long seed = BenchExtension.seed();
        NicCcConfig cfg = law.equals("nscc") ? CFG : new NicCcConfig(64, 64, 16, law, false, 64, 256, 100, 4150, 14022720L);
        Simulation<NicCc> build = Simulation.compile(NicCcTest.class, "f64_" + law, () -> exposed(cfg));
        build.run("traffic", seed, sim -> traffic(sim, cfg, new Random(seed), 20000 * Seeds.scale()));
    }

    /**
     * The engine's model (NicEngineModel: the parts' models composed, clock by clock) against the
     * RTL at every edge: the grant offered, the retransmit request, the doorbell's ready, under the
     * test's network (ACKs, NACKs, losses that time out), bursts of frames that make ACKs and NACKs
     * bypass the law, bad, foreign and out-of-range frames, doorbells for ids >= N, and backpressure
     * on the grants; at the end the counters against the model's.
     */
    @ParameterizedTest
    @ValueSource(strings = {"nscc", "smartt", "swift", "smartt reps", "nscc ops", "nscc dasr", "swift reps dasr", "nscc ends0"})
    void theEngineModelPredictsEveryEdge(String variant) {
        long seed = BenchExtension.seed();
        List<String> words = List.of(variant.split(" "));
        String law = words.get(0);
        String lb = words.stream().filter(NicCcConfig.lbs()::contains).filter(w -> !w.equals("none")).findFirst().orElse("none");
        String pacing = words.contains("dasr") ? "dasr" : "none";
        // "ends0": no message boundaries (message-ends 0)
        int messageEnds = words.contains("ends0") ? 0 : 2;
        NicCcConfig cfg = variant.equals("nscc") ? CFG : new NicCcConfig(64, 64, 16, law, false, 64, 256, 100, 4150, 14022720L, lb, pacing,
                messageEnds);
        Simulation<NicCc> build = Simulation.compile(NicCcTest.class, "f64_" + variant.replace(' ', '_'), () -> exposed(cfg));
        build.run("model", seed, sim -> modelAgainstRtl(sim, cfg, new Random(seed), 12000 * Seeds.scale()));
    }

    private static void modelAgainstRtl(Sim<NicCc> sim, NicCcConfig cfg, Random r, int clocks) {
        NicCcIo io = sim.dut().io();
        int n = cfg.flows();
        AxiLite4Master csr = start(sim, false);
        long rto = 3000;
        csr.write(NicCcCsr.RTO, rto);
        while (!sim.peekBool(io.initDone())) {
            sim.step();
        }
        NicEngineModel model = NicCcModels.model(cfg, rto);
        if (cfg.paced() && cfg.withLb()) {
            // the limiter's BYTE_TIME (0x308) at 50: gaps of a few ns, most flows due at their first look (n = 255: 800 ns)
            csr.write(0x308, 50);
            model.pacer().byteTime = 50;
        }
        model.setTimeoutScan((int) ((sim.peek(sim.dut().flows().io().timeoutScan()) + 1) % n));
        PriorityQueue<Frame> network = new PriorityQueue<>((a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.order, b.order));
        Deque<NicEngineModel.Doorbell> doorbells = new ArrayDeque<>();
        // message ends each flow's doorbells gave and its grants have not reached (the bench keeps at most two, but in its bursts)
        int[] pendingEnds = new int[n];
        for (int f = 0; f < n; f++) {
            boolean last = cfg.messages() && r.nextBoolean();
            doorbells.add(new NicEngineModel.Doorbell(f, 20_000 + r.nextInt(60_000), true, last));
            pendingEnds[f] += last ? 1 : 0;
        }
        long[] received = new long[n];
        long order = 0;
        long grants = 0, retransmits = 0, junk = 0;
        java.util.Set<Integer> entropies = new java.util.HashSet<>();
        // a tail without input, with the grants stalled and the time stopped, so that the counters settle before the reads
        // (REFUSED; PACED, counted at an entry's first look: with the time stopped no flow comes due during the reads)
        int tail = 400;
        long stopped = sim.cycle() + clocks + 1;
        for (int c = 0; c < clocks + tail; c++) {
            long edge = sim.cycle() + 1;
            boolean inTail = c >= clocks;
            // a frame from the network, a burst of one flow's ACKs now and then (they overrun NSCC's FIFO and bypass it), or junk
            Frame due = !inTail && network.peek() != null && network.peek().due() <= edge ? network.poll() : null;
            byte[] frame = due != null ? due.bytes() : null;
            boolean bad = false;
            if (!inTail && frame == null && r.nextInt(30) == 0) {
                int kind = r.nextInt(3);
                ControlFrames.Control ctl = new ControlFrames.Control(ControlFrames.ACK, kind == 2 ? n + r.nextInt(1000) : r.nextInt(n), 0,
                        false, 0, edge, r.nextInt(1 << 20), 255, false);
                frame = ControlFrames.build(ctl, false, 4000, 0);
                bad = kind == 0;
                if (kind == 1) {
                    frame[PacketFormat.Ipv4UdpOffset() + PacketFormat.UdpDstPort() + 1] ^= 1;
                }
                junk++;
            }
            sim.poke(io.s_axis().valid(), frame != null);
            if (frame != null) {
                Axi4StreamPackets.poke(sim, io.s_axis().payload(), Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(frame, bad ? 1 : 0), 64).get(0));
            }
            if (doorbells.isEmpty() && r.nextInt(150) == 0) {
                // with messages: half end one while the flow holds fewer than two ends (as a host that counts them); now and
                // then four short messages (one empty) on a flow with none pending, more than its two ends: the third waits.
                // (Not with pacing: a flow whose ACK said n = 255 sends a packet in 85 us, and its waiting doorbell would hold
                // every doorbell behind it for the rest of the run.)
                long f = r.nextInt(5) == 0 ? n + r.nextInt(65536 - n) : r.nextInt(n);
                boolean inRange = f < n;
                if (cfg.messages() && !cfg.paced() && inRange && pendingEnds[(int) f] == 0 && r.nextInt(3) == 0) {
                    for (int k = 0; k < 4; k++) {
                        doorbells.add(new NicEngineModel.Doorbell(f, k == 2 ? 0 : 1 + r.nextInt(6000), false, true));
                    }
                    pendingEnds[(int) f] += 4;
                } else {
                    boolean last = cfg.messages() && r.nextBoolean() && (!inRange || pendingEnds[(int) f] < 2);
                    doorbells.add(new NicEngineModel.Doorbell(f, 1 + r.nextInt(30_000), false, last));
                    if (last && inRange) {
                        pendingEnds[(int) f]++;
                    }
                }
            }
            NicEngineModel.Doorbell db = inTail ? null : doorbells.peek();
            sim.poke(io.doorbell().valid(), db != null);
            if (db != null) {
                sim.poke(io.doorbell().payload().flow(), db.flow());
                sim.poke(io.doorbell().payload().bytes(), db.bytes());
                sim.poke(io.doorbell().payload().start(), db.start());
                if (cfg.messages()) {
                    sim.poke(io.doorbell().payload().last(), db.last());
                }
            }
            boolean ready = !inTail && ((c / 3000) % 2 == 0 ? r.nextInt(8) > 0 : r.nextInt(3) == 0);
            sim.poke(io.grant().ready(), ready);
            long now = Math.min(edge, stopped);
            sim.poke(io.now(), now & 0xFFFF_FFFFL);
            NicEngineModel.Grant offer = model.grant();
            NicEngineModel.Retransmit rtx = model.retransmit();
            boolean dbReady = model.doorbellReady(db);
            model.edge(frame, bad, false, db, ready, now);
            sim.step();
            assertEquals(offer != null, sim.peekBool(io.grant().valid()), "grant valid at edge " + edge);
            if (offer != null) {
                assertEquals(offer, new NicEngineModel.Grant((int) sim.peek(io.grant().payload().flow()), sim.peek(io.grant().payload().psn()),
                        (int) sim.peek(io.grant().payload().bytes()), sim.peekBool(io.grant().payload().resend()),
                        cfg.withLb() ? (int) sim.peek(io.grant().payload().entropy()) : -1,
                        cfg.messages() && sim.peekBool(io.grant().payload().last())), "grant at edge " + edge);
            }
            assertEquals(rtx != null, sim.peekBool(io.retransmit().valid()), "retransmit valid at edge " + edge);
            if (rtx != null) {
                assertEquals(rtx, new NicEngineModel.Retransmit((int) sim.peek(io.retransmit().payload().flow()), sim.peek(io.retransmit().payload().psn()),
                        sim.peekBool(io.retransmit().payload().timeout())), "retransmit at edge " + edge);
                retransmits++;
            }
            if (db != null) {
                assertEquals(dbReady, sim.peekBool(io.doorbell().ready()), "doorbell ready at edge " + edge);
                if (dbReady) {
                    doorbells.poll();
                }
            }
            if (offer != null && ready) {
                grants++;
                pendingEnds[offer.flow()] -= offer.last() ? 1 : 0;
                entropies.add(offer.entropy());
                int f = offer.flow();
                long wire = offer.bytes() + OVERHEAD;
                int fate = r.nextInt(40);
                if (fate == 0) {
                    continue;   // lost: it times out
                }
                ControlFrames.Control ctl;
                if (fate < 6) {
                    ctl = new ControlFrames.Control(ControlFrames.NACK, f, offer.psn(), false, Math.max(0, offer.entropy()), edge, wire, 255,
                            r.nextBoolean());
                } else {
                    received[f] += wire;
                    // the entropy echoed (REPS's feedback with load balancing)
                    // with pacing, DASR's n: mostly 0 to 3 (a packet's gap n x 332 ns, 1 ns an edge), now and then 16 or 255
                    int activeSenders = !cfg.paced() ? 0 : r.nextInt(50) == 0 ? (r.nextBoolean() ? 16 : 255) : r.nextInt(4);
                    ctl = new ControlFrames.Control(ControlFrames.ACK, f, offer.psn(), r.nextInt(10) == 0, Math.max(0, offer.entropy()), edge,
                            received[f], 255, false, activeSenders);
                }
                // a burst now and then: the answers of one flow come back together
                long back = (c / 1000) % 4 == 3 ? edge + 200 : edge + 100 + r.nextInt(300);
                network.add(new Frame(back, order++, ControlFrames.build(ctl, false, 4000, 0)));
            }
        }
        System.out.printf("NicCcTest model %s: %d clocks, %d grants, %d law events, %d ACKs and %d NACKs bypassed, %d timeouts, %d retransmits, %d junk frames%n",
                cfg.law(), clocks, grants, model.lawEvents(), model.acksBypassed(), model.nacksBypassed(), model.timeouts(), retransmits, junk);
        // the traffic reached every part: grants (the windows limit them: 64 flows, round trips of 100-400 clocks), timeouts,
        // NACKs' requests, and with NSCC (a flow's next event 37 clocks after its last) ACKs past the law
        assertTrue(grants > clocks / 20, "grants " + grants);
        assertTrue(model.timeouts() > 0 && retransmits > model.timeouts(), "timeouts " + model.timeouts() + ", retransmits " + retransmits);
        // (pacing thins the traffic: the bypass is the unpaced variants')
        assertTrue(!cfg.law().equals("nscc") || cfg.paced() || model.acksBypassed() > 0, "no ACK bypassed NSCC");
        sim.poke(io.s_axis().valid(), false);
        sim.poke(io.doorbell().valid(), false);
        // a last doorbell still waiting (its flow's ends not passed while the grants are stalled) counts ENDS_FULL each clock
        long modelEnd = sim.cycle();
        long endsFull = cfg.messages() ? csr.read(NicCcCsr.ENDS_FULL) : 0;
        long readEnd = sim.cycle();
        assertEquals(model.frames(), csr.read(NicCcCsr.FRAMES), "FRAMES");
        assertEquals(model.acksBypassed(), csr.read(NicCcCsr.ACKS_BYPASSED), "ACKS_BYPASSED");
        assertEquals(model.nacksBypassed(), csr.read(NicCcCsr.NACKS_BYPASSED), "NACKS_BYPASSED");
        assertEquals(model.timeouts(), csr.read(NicCcCsr.TIMEOUTS), "TIMEOUTS");
        assertEquals(model.flowState().refusals(), csr.read(NicCcCsr.REFUSED), "REFUSED");
        if (cfg.withLb()) {
            assertTrue(entropies.size() > 16, "REPS gave " + entropies.size() + " entropies");
            // LB_DROPS, the counter after TIMEOUTS (the generated NicCcCsr is the default engine's, without lb)
            assertEquals(model.lbDrops(), csr.read(NicCcCsr.TIMEOUTS + 4), "LB_DROPS");
            // REPS's map at 0x200 (its INFO: block id 0x52 'R')
            assertEquals(0x52, csr.read(0x200) & 0xFF, "REPS's INFO at 0x200");
            assertEquals(0, csr.lastResponse(), "OKAY from REPS's map");
        }
        if (cfg.paced()) {
            // PACED two counters after TIMEOUTS; the limiter's map at 0x300 (its INFO: block id 0x4C 'L'), its SENTS at 0x44
            System.out.printf("NicCcTest pacing: %d grants waited for their pacing time%n", model.paced());
            assertTrue(model.paced() > 0, "no grant waited for its pacing time");
            assertEquals(model.paced(), csr.read(NicCcCsr.TIMEOUTS + 8), "PACED");
            assertEquals(0x4C, csr.read(0x300) & 0xFF, "the DASR limiter's INFO at 0x300");
            assertEquals(model.pacer().counters.get("SENTS"), csr.read(0x344), "the limiter's SENTS");
            assertEquals(model.pacer().counters.get("ACKS"), csr.read(0x340), "the limiter's ACKS (the n port)");
        }
        if (cfg.messages()) {
            // MESSAGES and ENDS_FULL after PACED
            System.out.printf("NicCcTest messages: %d grants ended a message; a last doorbell waited %d clocks for its flow's ends%n",
                    model.messages(), model.endsFull());
            assertTrue(model.messages() > 20 && (cfg.paced() || model.endsFull() > 0), "messages " + model.messages() + ", ends full " + model.endsFull());
            assertEquals(model.messages(), csr.read(NicCcCsr.MESSAGES), "MESSAGES");
            if (model.doorbellWaitsFull()) {
                assertTrue(endsFull >= model.endsFull() && endsFull <= model.endsFull() + readEnd - modelEnd,
                        "ENDS_FULL " + endsFull + ", the model's " + model.endsFull() + " and a clock each of the " + (readEnd - modelEnd) + " of its read");
            } else {
                assertEquals(model.endsFull(), endsFull, "ENDS_FULL");
            }
        }
        if (cfg.withLb() != cfg.paced()) {
            // the absent one of REPS (0x200) and the limiter (0x300) answers SLVERR, data 0; a write too
            int absent = cfg.withLb() ? 0x300 : 0x200;
            assertEquals(0, csr.read(absent + 0x44), "an absent map reads 0");
            assertEquals(2, csr.lastResponse(), "SLVERR from an absent map");
            csr.write(absent, 0x1234);
            assertEquals(2, csr.lastResponse(), "SLVERR for a write to an absent map");
            assertEquals(0x45, csr.read(0x000) & 0xFF, "the engine's INFO after the unmapped accesses");
        }
    }

    /**
     * dart.txt Sec. III-A through the engine (`pacing` = `dasr`, 250 MHz: `now` 4 ns a clock): a
     * backlogged flow sends at line rate / n, n its ACKs' active senders. At 100 Gb/s a packet of
     * MSS + OVERHEAD = 4150 wire bytes takes 332.0 ns (BYTE_TIME 5243 x 2^-16 ns a byte), so a
     * flow whose ACKs carry n = 1 is granted every 332.0 ns on average, and with n = 4 every 1328.0
     * ns: the expectation is the paper's rule with these numbers, not the model. The receiver ACKs
     * every packet 2 us after its grant. PACE_LEAD keeps the release's own latency out of the rate;
     * without it (0) each gap grows by that latency. Before, with BYTE_TIME 0 (no gap) and no ACKs,
     * another flow is granted as often as the engine's pacing loop lets a flow alone go.
     */
    /**
     * A flow's messages (docs/nic-engine.md, "Messages"; MSS 4086): doorbells of 10 x MSS + 5
     * bytes, of MSS and of none, each with `last`, then 3 bytes without. The grants, in order: ten
     * of MSS, 5 (last), MSS (last), 0 (last: the empty message's packet), 3. The expectation is the
     * rule's, not the model's. With the grant output stalled, the grants written stop before the
     * first message's end (the FIFO and the path hold 8), so the flow holds its two ends: the third
     * last doorbell waits in the doorbell's register, each clock counted by ENDS_FULL, and the
     * doorbell behind it is not taken until the grants go on.
     */
    @Test
    void grantsStopAtMessageEndsAndALastDoorbellWaitsForItsFlowsEnds() {
        long seed = BenchExtension.seed();
        Simulation.compile(NicCcTest.class, "f64_nscc", () -> exposed(CFG)).run("messages", seed, sim -> {
            NicCcIo io = sim.dut().io();
            AxiLite4Master csr = start(sim, false);
            while (!sim.peekBool(io.initDone())) {
                sim.step();
            }
            int mss = 4150 - 64;
            int flow = 9;
            boolean[] grantReady = {false};
            List<long[]> grants = new ArrayList<>();   // {flow, psn, bytes, resend, last}
            // (a peek after a step gives what that edge sampled)
            Runnable clock = () -> {
                sim.poke(io.grant().ready(), grantReady[0]);
                sim.step();
                if (grantReady[0] && sim.peekBool(io.grant().valid())) {
                    grants.add(new long[] {sim.peek(io.grant().payload().flow()), sim.peek(io.grant().payload().psn()),
                        sim.peek(io.grant().payload().bytes()), sim.peekBool(io.grant().payload().resend()) ? 1 : 0,
                        sim.peekBool(io.grant().payload().last()) ? 1 : 0});
                }
            };
            // offers a doorbell for at most `clocks` clocks; true if taken
            java.util.function.BiPredicate<long[], Integer> offer = (d, clocks) -> {
                sim.poke(io.doorbell().valid(), true);
                sim.poke(io.doorbell().payload().flow(), flow);
                sim.poke(io.doorbell().payload().bytes(), d[0]);
                sim.poke(io.doorbell().payload().start(), d[1] == 1);
                sim.poke(io.doorbell().payload().last(), d[2] == 1);
                for (int c = 0; c < clocks; c++) {
                    clock.run();
                    if (sim.peekBool(io.doorbell().ready())) {
                        sim.poke(io.doorbell().valid(), false);
                        return true;
                    }
                }
                sim.poke(io.doorbell().valid(), false);
                return false;
            };
            assertTrue(offer.test(new long[] {10L * mss + 5, 1, 1}, 10), "the first message's doorbell");
            assertTrue(offer.test(new long[] {mss, 0, 1}, 10), "the second message's doorbell");
            // the third end enters the doorbell's register and waits there: the doorbell after it is not taken
            assertTrue(offer.test(new long[] {0, 0, 1}, 10), "the empty message's doorbell into the register");
            assertFalse(offer.test(new long[] {3, 0, 0}, 300), "a doorbell behind a third end while the first two are not reached");
            long waited = csr.read(NicCcCsr.ENDS_FULL);
            assertTrue(waited >= 298, "ENDS_FULL " + waited + " after 300 clocks");
            grantReady[0] = true;
            assertTrue(offer.test(new long[] {3, 0, 0}, 200), "3 bytes without an end, once the first end is reached");
            for (int c = 0; c < 300; c++) {
                clock.run();
            }
            List<String> got = grants.stream().map(g -> g[2] + (g[4] == 1 ? " last" : "")).toList();
            List<String> expected = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                expected.add(String.valueOf(mss));
            }
            expected.addAll(List.of("5 last", mss + " last", "0 last", "3"));
            assertEquals(expected, got, "the grants' bytes and last");
            for (int k = 0; k < grants.size(); k++) {
                assertEquals(flow, grants.get(k)[0], "grant " + k + "'s flow");
                assertEquals(k, grants.get(k)[1], "grant " + k + "'s PSN");
                assertEquals(0, grants.get(k)[3], "grant " + k + " is new");
            }
            assertEquals(3, csr.read(NicCcCsr.MESSAGES), "MESSAGES");
            System.out.printf("NicCcTest messages: the third last doorbell waited %d clocks (ENDS_FULL after 300)%n", waited);
        });
    }

    /** Clocks between two grants of a flow alone with pacing and no gap (docs/nic-engine.md, "Pacing"). */
    static final int PACED_FLOW_ALONE_CLOCKS = 30;

    @Test
    void dasrPacesABackloggedFlowAtLineRateOverN() {
        NicCcConfig cfg = new NicCcConfig(64, 64, 16, "nscc", false, 64, 256, 100, 4150, 14022720L, "none", "dasr");
        long seed = BenchExtension.seed();
        Simulation.compile(NicCcTest.class, "f64_nscc_dasr", () -> exposed(cfg)).run("dasr_rate", seed, sim -> {
            NicCcIo io = sim.dut().io();
            AxiLite4Master csr = start(sim, true);
            while (!sim.peekBool(io.initDone())) {
                sim.step();
            }
            int[] flow = {5};
            boolean[] acking = {false};
            long[] now = {0};
            int[] n = {1};
            long[] ackFrames = {0};
            List<Long> grantNs = new ArrayList<>();
            long[] received = {0};
            Deque<Object[]> acks = new ArrayDeque<>();   // {due ns, frame}
            Runnable clock = () -> {
                now[0] += 4;
                Object[] ack = acks.peek() != null && (long) acks.peek()[0] <= now[0] ? acks.poll() : null;
                sim.poke(io.s_axis().valid(), ack != null);
                if (ack != null) {
                    Axi4StreamPackets.poke(sim, io.s_axis().payload(),
                            Axi4StreamPackets.beats(new Axi4StreamPackets.Packet((byte[]) ack[1], 0), 64).get(0));
                    ackFrames[0]++;
                }
                sim.poke(io.now(), now[0]);
                sim.step();
                if (sim.peekBool(io.grant().valid())) {
                    assertEquals(flow[0], sim.peek(io.grant().payload().flow()));
                    grantNs.add(now[0]);
                    if (acking[0]) {
                        received[0] += sim.peek(io.grant().payload().bytes()) + OVERHEAD;
                        ControlFrames.Control c = new ControlFrames.Control(ControlFrames.ACK, flow[0], sim.peek(io.grant().payload().psn()),
                                false, 0, now[0], received[0], 255, false, n[0]);
                        acks.add(new Object[] {now[0] + 2000, ControlFrames.build(c, false, 4000, 0)});
                    }
                }
            };
            Runnable start = () -> {
                sim.poke(io.doorbell().valid(), true);
                sim.poke(io.doorbell().payload().flow(), flow[0]);
                sim.poke(io.doorbell().payload().bytes(), 40_000_000);
                sim.poke(io.doorbell().payload().start(), true);
                do {
                    clock.run();
                } while (!sim.peekBool(io.doorbell().ready()));
                sim.poke(io.doorbell().valid(), false);
            };
            // first a flow alone with no gap (the limiter's BYTE_TIME 0) and no ACKs, in NSCC's first window (42 packets):
            // the engine's own pacing loop (no timeouts: the flow's packets stay in flight)
            csr.write(NicCcCsr.RTO, 0);
            csr.write(0x308, 0);
            start.run();
            for (int c = 0; c < 10_000 && grantNs.size() < 30; c++) {
                clock.run();
            }
            assertTrue(grantNs.size() >= 30, "a flow alone: 30 grants, got " + grantNs.size());
            double alone = (grantNs.get(29) - grantNs.get(9)) / 20.0 / 4;
            csr.write(0x308, 5243);
            // until its window is used up (no grant for 1000 clocks)
            for (int quiet = 0; quiet < 1000; quiet++) {
                int before = grantNs.size();
                clock.run();
                quiet = grantNs.size() > before ? 0 : quiet;
            }
            // then flow 3, ACKed: n = 1, n = 4, n = 4 with PACE_LEAD 0
            flow[0] = 3;
            acking[0] = true;
            grantNs.clear();
            start.run();
            double[] spacing = new double[3];
            int[] ns = {1, 4, 4};
            for (int phase = 0; phase < 3; phase++) {
                if (phase == 2) {
                    csr.write(0x1C, 0);   // PACE_LEAD 0
                }
                n[0] = ns[phase];
                int from = grantNs.size();
                for (int c = 0; c < 40_000 && grantNs.size() < from + 40; c++) {
                    clock.run();
                }
                assertTrue(grantNs.size() >= from + 40, "phase " + phase + ": 40 grants, got " + (grantNs.size() - from));
                // the last 20 (the ACKs of the phase's n arrive 2 us after its first grant)
                spacing[phase] = (grantNs.get(from + 39) - grantNs.get(from + 19)) / 20.0;
            }
            System.out.printf("NicCcTest DASR pacing (seed %d): a flow alone with no gap every %.1f clocks; grants every %.1f ns at n = 1, "
                    + "%.1f ns at n = 4, %.1f ns at n = 4 without PACE_LEAD; %d paced%n", seed, alone, spacing[0], spacing[1], spacing[2],
                    csr.read(NicCcCsr.TIMEOUTS + 8));
            assertEquals(PACED_FLOW_ALONE_CLOCKS, alone, 0.01, "a flow alone with no gap: docs/nic-engine.md, \"Pacing\"");
            assertEquals(332.0, spacing[0], 0.5, "n = 1: line rate");
            assertEquals(4 * 332.0, spacing[1], 0.5, "n = 4: a quarter of line rate");
            assertTrue(spacing[2] > 4 * 332.0 + 20, "PACE_LEAD 0: the release's latency adds to each gap");
            assertEquals(0x4C, csr.read(0x300) & 0xFF, "the limiter's INFO at 0x300");
            assertEquals(ackFrames[0], csr.read(0x340), "the limiter's ACKS: one n a frame");
        });
    }

    /**
     * docs/nic-engine.md, "The engine", step 4: a burst of NACKs for one flow, one a clock, fills the
     * law's FIFO (NSCC takes the flow's next event 37 clocks after its last) while stages 3 and 4
     * push: each NACK reaches the law or bypasses it and is counted (NACKS_BYPASSED); none is lost,
     * and each gives a retransmit request.
     */
    @Test
    void aBurstOfNacksFillsTheLawFifoAndLosesNone() {
        long seed = BenchExtension.seed();
        Simulation<NicCc> build = Simulation.compile(NicCcTest.class, "f64_nscc", () -> exposed(CFG));
        build.run("nack_burst", seed, sim -> {
            NicCcIo io = sim.dut().io();
            AxiLite4Master csr = start(sim, true);
            while (!sim.peekBool(io.initDone())) {
                sim.step();
            }
            int burst = 150;
            int flow = new Random(seed).nextInt(CFG.flows());
            long lawNacks = 0, retransmits = 0;
            var lawIo = sim.dut().law().io();
            for (int c = 0; c < burst + 6000; c++) {
                long now = sim.cycle() + 1;
                sim.poke(io.now(), now);
                sim.poke(io.s_axis().valid(), c < burst);
                if (c < burst) {
                    ControlFrames.Control ctl = new ControlFrames.Control(ControlFrames.NACK, flow, c, false, 0, now, 4150, 255, false);
                    Axi4StreamPackets.poke(sim, io.s_axis().payload(),
                            Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(ControlFrames.build(ctl, false, 4000, 0), 0), 64).get(0));
                }
                sim.step();
                if (sim.peekBool(lawIo.event().valid()) && sim.peekBool(lawIo.event().ready())
                        && sim.peek(((uehw.hw.window.WindowEvent) lawIo.event().payload()).kind()) == 1) {
                    lawNacks++;
                }
                if (sim.peekBool(io.retransmit().valid())) {
                    retransmits++;
                }
            }
            long bypassed = csr.read(NicCcCsr.NACKS_BYPASSED);
            System.out.printf("nic-cc: a burst of %d NACKs for flow %d: %d to the law, %d bypassed it%n", burst, flow, lawNacks, bypassed);
            assertEquals(burst, csr.read(NicCcCsr.NACKS), "NACKS");
            assertTrue(bypassed > 0, "the burst filled the law's FIFO");
            assertEquals(burst, lawNacks + bypassed, "every NACK reaches the law or bypasses it, counted");
            assertEquals(burst, retransmits, "a retransmit request for every NACK");
        });
    }

    /**
     * docs/nic-engine.md, "Registers": the one port adds an edge before each map. A write whose AW
     * and W are taken at edge E is the map's at E + 1, so BVALID rises at E + 2 (docs/integration.md's
     * CSR timing one edge later: first sampled at E + 3); a read whose AR is taken at edge E gets
     * RVALID at E + 2 (first sampled at E + 3), with the value written before.
     */
    @Test
    void registersAreOneEdgeBehindThePort() {
        long seed = BenchExtension.seed();
        Simulation<NicCc> build = Simulation.compile(NicCcTest.class, "f64_nscc", () -> exposed(CFG));
        build.run("csr_timing", seed, sim -> {
            NicCcIo io = sim.dut().io();
            start(sim, true);
            for (long[] write : new long[][] {{NicCcCsr.MSS, 1234}, {0x100 + NsccCsr.MTU, 4000}}) {
                sim.poke(io.ctrl().aw().valid(), true);
                sim.poke(io.ctrl().aw().payload().addr(), write[0]);
                sim.poke(io.ctrl().w().valid(), true);
                sim.poke(io.ctrl().w().payload().data(), write[1]);
                sim.poke(io.ctrl().w().payload().strb(), 0xF);
                sim.step();
                assertTrue(sim.peekBool(io.ctrl().aw().ready()) && sim.peekBool(io.ctrl().w().ready()), "AW and W taken at the first edge");
                long e = sim.cycle();
                sim.poke(io.ctrl().aw().valid(), false);
                sim.poke(io.ctrl().w().valid(), false);
                long b = -1;
                for (int i = 0; i < 8 && b < 0; i++) {
                    sim.step();
                    b = sim.peekBool(io.ctrl().b().valid()) ? sim.cycle() : -1;
                }
                assertEquals(e + 3, b, "B of the write to " + Long.toHexString(write[0]) + ": the first edge that samples it");
                sim.poke(io.ctrl().ar().valid(), true);
                sim.poke(io.ctrl().ar().payload().addr(), write[0]);
                sim.step();
                assertTrue(sim.peekBool(io.ctrl().ar().ready()), "AR taken at once");
                e = sim.cycle();
                sim.poke(io.ctrl().ar().valid(), false);
                long r = -1;
                for (int i = 0; i < 8 && r < 0; i++) {
                    sim.step();
                    if (sim.peekBool(io.ctrl().r().valid())) {
                        r = sim.cycle();
                        assertEquals(write[1], sim.peek(io.ctrl().r().payload().data()), "the value read back");
                    }
                }
                assertEquals(e + 3, r, "R of the read of " + Long.toHexString(write[0]) + ": the first edge that samples it");
            }
        });
    }

    /**
     * Benchmark (prints; asserts only what the engine guarantees): 1024 flows started with large
     * backlogs, then one ACK frame a clock (64 B at 512 bits, the flows in turn, each acknowledging
     * one more packet) with the grant output always ready. It prints control frames taken per
     * clock and grants per clock (the engine's FRAMES and GRANTS counters; the grant output is
     * ready only in the measured clocks) and the ACKs that bypassed the law.
     */
    @Test
    void benchmarkOneFrameAndOneGrantAClockAt1024Flows() {
        long seed = BenchExtension.seed();
        NicCcConfig cfg = new NicCcConfig(64, 1024, 16, "nscc", false, 64, 256, 100, 4150, 14022720L);
        Simulation<NicCc> build = Simulation.compile(NicCcTest.class, "f1024_nscc", () -> new NicCc(cfg));
        build.run("benchmark", seed, sim -> {
            NicCcIo io = sim.dut().io();
            int n = cfg.flows();
            AxiLite4Master csr = start(sim, true);
            while (!sim.peekBool(io.initDone())) {
                sim.step();
            }
            // every flow started with a backlog of 1 GB
            for (int f = 0; f < n; ) {
                sim.poke(io.doorbell().valid(), true);
                sim.poke(io.doorbell().payload().flow(), f);
                sim.poke(io.doorbell().payload().bytes(), 1L << 30);
                sim.poke(io.doorbell().payload().start(), true);
                sim.step();
                if (sim.peekBool(io.doorbell().ready())) {
                    f++;
                }
            }
            sim.poke(io.doorbell().valid(), false);
            sim.step(200);
            long[] cumulative = new long[n];
            // the grant output is held off while the counters are read, so GRANTS moves only in the measured clocks
            sim.poke(io.grant().ready(), false);
            long framesBefore = csr.read(NicCcCsr.FRAMES), grantsBefore = csr.read(NicCcCsr.GRANTS);
            long bypassBefore = csr.read(NicCcCsr.ACKS_BYPASSED);
            sim.poke(io.grant().ready(), true);
            int clocks = 4000;
            for (int c = 0; c < clocks; c++) {
                int f = c % n;
                cumulative[f] += 4150;
                long now = sim.cycle() + 1;
                ControlFrames.Control ctl = new ControlFrames.Control(ControlFrames.ACK, f, c, false, 0, now - 2000, cumulative[f], 255, false);
                sim.poke(io.now(), now);
                sim.poke(io.s_axis().valid(), true);
                Axi4StreamPackets.poke(sim, io.s_axis().payload(),
                        Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(ControlFrames.build(ctl, false, 4000, 0), 0), 64).get(0));
                sim.step();
            }
            sim.poke(io.s_axis().valid(), false);
            sim.poke(io.grant().ready(), false);
            // the counters: the frames' results trail by 6 edges and the counts by 2 or 3
            sim.step(20);
            long frames = csr.read(NicCcCsr.FRAMES) - framesBefore;
            long bypassed = csr.read(NicCcCsr.ACKS_BYPASSED) - bypassBefore;
            long grants = csr.read(NicCcCsr.GRANTS) - grantsBefore;
            System.out.printf("nic-cc benchmark, %d flows, %d clocks of one ACK frame each: %.3f control frames taken a clock,"
                    + " %.3f grants a clock (the GRANTS counter, output ready in the measured clocks), %d ACKs bypassed the law%n", n, clocks, frames / (double) clocks,
                    grants / (double) clocks, bypassed);
            assertEquals(clocks, frames, "every frame taken");
            assertTrue(grants >= clocks - 2, grants + " grants in " + clocks + " clocks");
        });
    }

    /** The engine at cfg with the inner signals the checks read. */
    private static NicCc exposed(NicCcConfig cfg) {
        NicCc t = new NicCc(cfg);
        SpinalSimFacade.exposeToSim(t.flows().io().op());
        SpinalSimFacade.exposeToSim(t.law().io().event());
        SpinalSimFacade.exposeToSim(t.law().io().update());
        SpinalSimFacade.exposeToSim(t.bypassNow());
        SpinalSimFacade.exposeToSim(t.flows().io().timeoutHold());
        SpinalSimFacade.exposeToSim(t.flows().io().timedOut());
        SpinalSimFacade.exposeToSim(t.flows().io().timeoutScan());
        return t;
    }

    /** Inputs idle (the grant output ready or not), the CSR master, reset; returns the master. */
    private static AxiLite4Master start(Sim<NicCc> sim, boolean grantReady) {
        NicCcIo io = sim.dut().io();
        sim.poke(io.s_axis().valid(), false);
        sim.poke(io.doorbell().valid(), false);
        sim.poke(io.grant().ready(), grantReady);
        sim.poke(io.now(), 0);
        AxiLite4Master csr = new AxiLite4Master(sim, io.ctrl());
        sim.reset(4);
        return csr;
    }

    /**
     * The engine's law as the test checks it: the event at the law's port against the one the
     * test derived from a frame (null: a doorbell's INIT), then into the law's fixed model; the
     * window the model gives; that window in bytes, as the flow state gets it.
     */
    private interface LawCheck {
        /** The event the law took at `edge`, checked against x; returns the window the model gives. */
        long taken(Sim<NicCc> sim, Bundle event, Expected x, long edge);
        long window(Sim<NicCc> sim, Bundle update);
        long bytes(long window);
    }

    private static LawCheck lawCheck(NicCcConfig cfg) {
        int n = cfg.flows();
        long now32 = 0xFFFF_FFFFL;
        switch (cfg.law()) {
            case "nscc": {
                NsccBench.Csrs csrs = NsccBench.resetCsrs(cfg.nscc());
                NsccFixedModel model = new NsccFixedModel(n, csrs.p(), csrs.initBaseRtt(), csrs.initCwnd());
                long max = (1L << Nscc.windowBits()) - 1;
                return new LawCheck() {
                    public long taken(Sim<NicCc> sim, Bundle b, Expected x, long edge) {
                        NsccEvent ev = (NsccEvent) b;
                        int flow = (int) sim.peek(ev.flow());
                        if (x != null) {
                            assertEquals(Math.min(max, x.bytes()), sim.peek(ev.bytes()), "NSCC event bytes at edge " + edge);
                            assertEquals(Math.min(max, x.rttFromTimestamp()), sim.peek(ev.rtt()), "NSCC event RTT at edge " + edge);
                            assertEquals(x.ecn(), sim.peekBool(ev.ecn()), "NSCC event ECN at edge " + edge);
                            assertEquals(x.lastHop(), sim.peekBool(ev.lastHop()), "NSCC event last hop at edge " + edge);
                        }
                        model.apply(new NsccFixedModel.Event(flow, NsccFixedModel.Kind.values()[(int) sim.peek(ev.kind())], sim.peek(ev.bytes()),
                                sim.peek(ev.rtt()), sim.peekBool(ev.ecn()), sim.peekBool(ev.lastHop()), (int) sim.peek(ev.rcvWndPen()),
                                sim.peek(ev.inFlight()), edge & now32));
                        return model.state(flow).cwnd;
                    }
                    public long window(Sim<NicCc> sim, Bundle u) {
                        return sim.peek(((NsccUpdate) u).cwnd());
                    }
                    public long bytes(long window) {
                        return window;
                    }
                };
            }
            case "smartt": {
                SmarttFixedModel model = SmarttBench.modelOf(cfg.smartt());
                long rttMax = (1L << cfg.smartt().rttWidth()) - 1;
                return new LawCheck() {
                    public long taken(Sim<NicCc> sim, Bundle b, Expected x, long edge) {
                        SmarttEvent ev = (SmarttEvent) b;
                        if (x != null) {
                            assertEquals(Math.min(65535, x.bytes()), sim.peek(ev.size()), "SMaRTT event size at edge " + edge);
                            assertEquals(Math.min(rttMax, x.rttFromTimestamp()), sim.peek(ev.rtt()), "SMaRTT event RTT at edge " + edge);
                            assertEquals(x.ecn(), sim.peekBool(ev.ecn()), "SMaRTT event ECN at edge " + edge);
                        }
                        SmarttFixedModel.Update u = model.apply(new SmarttFixedModel.Event((int) sim.peek(ev.flow()),
                                SmarttFixedModel.Kind.values()[(int) sim.peek(ev.kind())], (int) sim.peek(ev.size()), sim.peek(ev.rtt()),
                                sim.peekBool(ev.ecn()), sim.peek(ev.unacked()), edge & now32));
                        return u.cwnd();
                    }
                    public long window(Sim<NicCc> sim, Bundle u) {
                        return sim.peek(((SmarttUpdate) u).cwnd());
                    }
                    public long bytes(long window) {
                        return window;
                    }
                };
            }
            default: {
                SwiftFixedModel model = new SwiftFixedModel(n, SwiftBench.resetParams());
                long rttMax = (1L << cfg.swift().delayWidth()) - 1;
                long one = 1L << Swift.cwndFrac();
                return new LawCheck() {
                    public long taken(Sim<NicCc> sim, Bundle b, Expected x, long edge) {
                        SwiftEvent ev = (SwiftEvent) b;
                        if (x != null) {
                            assertEquals(Math.min(rttMax, x.rttFromTimestamp()), sim.peek(ev.rtt()), "Swift event RTT at edge " + edge);
                            // acked: the ACK's bytes over the MTU, u6.7, by the engine's reciprocal (docs/nic-engine.md); NACKs 0
                            long bytes = x.kind() == 0 ? Math.min(x.bytes(), (1L << cfg.packetsCapBits()) - 1) : 0;
                            assertEquals(bytes * cfg.packetsRecip() >> cfg.packetsShift(), sim.peek(ev.acked()), "Swift event acked at edge " + edge);
                            assertEquals(0, sim.peek(ev.endpointDelay()), "Swift event endpoint delay");
                            assertEquals(0, sim.peek(ev.hops()), "Swift event hops");
                        }
                        SwiftFixedModel.Update u = model.apply(new SwiftFixedModel.Event((int) sim.peek(ev.flow()),
                                SwiftFixedModel.Kind.values()[(int) sim.peek(ev.kind())], sim.peek(ev.rtt()), sim.peek(ev.endpointDelay()),
                                (int) sim.peek(ev.hops()), sim.peek(ev.acked()), edge & now32));
                        return u.cwnd();
                    }
                    public long window(Sim<NicCc> sim, Bundle u) {
                        return sim.peek(((SwiftUpdate) u).cwnd());
                    }
                    public long bytes(long window) {
                        return Math.max(window, one) * cfg.mtu() >> Swift.cwndFrac();
                    }
                };
            }
        }
    }

    /** Some flow has bytes in flight (the flow state's counters as its model holds them). */
    private static boolean anyInFlight(FlowGrants model) {
        for (int f = 0; f < model.flows(); f++) {
            if (model.inFlight(f) > 0) {
                return true;
            }
        }
        return false;
    }

    /** Some flow has bytes asked to resend that are not resent yet. */
    private static boolean owed(long[] asked, long[] done) {
        for (int f = 0; f < asked.length; f++) {
            if (asked[f] != done[f]) {
                return true;
            }
        }
        return false;
    }

    private static void traffic(Sim<NicCc> sim, NicCcConfig cfg, Random r, int clocks) {
        NicCcIo io = sim.dut().io();
        int n = cfg.flows();
        AxiLite4Master csr = start(sim, false);
        // the settings' reset values are the test's (UDP_PORT the transport's, MSS = MTU - 64, OVERHEAD 64)
        assertEquals(PacketFormat.TransportUdpPort(), csr.read(NicCcCsr.UDP_PORT));
        assertEquals(MSS, csr.read(NicCcCsr.MSS));
        assertEquals(OVERHEAD, csr.read(NicCcCsr.OVERHEAD));
        // packets lost one in 40 (no ACK, no NACK): the flow times out RTO after its last progress
        long rto = 3000;
        csr.write(NicCcCsr.RTO, rto);
        for (int c = 0; !sim.peekBool(io.initDone()); c++) {
            assertTrue(c < 4 * n + 100, "ready never came");
            sim.step();
        }
        // the law's model (its CSRs at reset), fed with the events the law takes; its updates in order
        LawCheck law = lawCheck(cfg);
        Deque<long[]> windows = new ArrayDeque<>();   // {flow, cwnd} the model gives, in event order
        Deque<long[]> windowBytes = new ArrayDeque<>();   // {flow, bytes}: the updates' windows, for the flow state
        int updates = 0;
        // the flow state's model, fed with the ops its port takes; its edge 0 is an edge after its sweep
        FlowGrants model = new FlowGrants(n, cfg.credit(), cfg.flowState().pickerDepth(), cfg.flowState().grantFifo(), MSS, OVERHEAD);
        model.setRto(rto);
        // the flow state's timeout scan runs from its sweep's end: the flow read at the edge sampled last, and one more
        model.setTimeoutScan((int) ((sim.peek(sim.dut().flows().io().timeoutScan()) + 1) % n));
        Deque<Expected> timeoutEvents = new ArrayDeque<>();   // the law's TIMEOUT events, from the timeouts applied
        Deque<Integer> timeoutRequests = new ArrayDeque<>();  // the flows of the timeouts' retransmit requests
        int timeouts = 0, timeoutRetransmits = 0, lost = 0;
        long[] queued = new long[n];
        long[] granted = new long[n];
        long[] resendAsked = new long[n];
        long[] resent = new long[n];
        long[] nextPsn = new long[n];
        long[] received = new long[n];        // each flow's receiver: cumulative wire bytes
        long[] acked = new long[n];           // the last cumulative count the engine has seen in an ACK frame
        boolean[] started = new boolean[n];
        PriorityQueue<Frame> network = new PriorityQueue<>((a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.order, b.order));
        Deque<Expected> expected = new ArrayDeque<>();
        Deque<Object[]> inStages = new ArrayDeque<>();   // {edge of its beat, control}
        int acksBypassed = 0;
        int nacksBypassed = 0;
        int doorbellsTaken = 0;
        int doorbellsOutOfRange = 0;
        long[] junkFrames = new long[3];   // bad, foreign, out of range
        Deque<long[]> nacks = new ArrayDeque<>();       // {flow, psn} in frame order
        Deque<long[]> doorbells = new ArrayDeque<>();   // {flow, bytes, start}
        List<Integer> pending = new ArrayList<>();
        long order = 0;
        int grants = 0, events = 0, inits = 0, retransmits = 0, frames = 0;
        long lastGrant = 0;
        for (int f = 0; f < n; f++) {
            doorbells.add(new long[] {f, 20_000 + r.nextInt(60_000), 1});
        }
        boolean traffic = true;
        for (long c = 0; traffic || c - lastGrant < 3000 || !network.isEmpty() || !inStages.isEmpty() || anyInFlight(model)
                || owed(resendAsked, resent); c++) {
            assertTrue(c < 40L * clocks, "the traffic never drained");
            if (c == clocks) {
                traffic = false;
            }
            long edge = sim.cycle() + 1;   // the edge this iteration makes
            // a frame due: its one beat (64 B at 512 bits)
            Frame due = network.peek() != null && network.peek().due() <= edge ? network.poll() : null;
            // now and then, on a free clock, a frame the engine must count and drop: bad (tuser), foreign (another port), a flow >= N
            int junk = traffic && due == null && r.nextInt(40) == 0 ? 1 + r.nextInt(3) : 0;
            sim.poke(io.s_axis().valid(), due != null || junk > 0);
            if (due != null) {
                Axi4StreamPackets.poke(sim, io.s_axis().payload(), Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(due.bytes(), 0), 64).get(0));
                frames++;
            } else if (junk > 0) {
                ControlFrames.Control ctl = new ControlFrames.Control(ControlFrames.ACK, junk == 3 ? n + r.nextInt(1000) : r.nextInt(n), 0, false, 0,
                        edge, 1L << 20, 255, false);
                byte[] bytes = ControlFrames.build(ctl, false, 4000, 0);
                if (junk == 2) {
                    bytes[PacketFormat.Ipv4UdpOffset() + PacketFormat.UdpDstPort() + 1] ^= 1;   // another UDP port (only IPv4's header checksum is checked)
                }
                Axi4StreamPackets.poke(sim, io.s_axis().payload(), Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(bytes, junk == 1 ? 1 : 0), 64).get(0));
                junkFrames[junk - 1]++;
            }
            // a doorbell: the start of every flow, then more bytes now and then
            if (traffic && doorbells.isEmpty() && r.nextInt(200) == 0) {
                // one in five for a flow id >= N: taken, counted, no effect
                doorbells.add(new long[] {r.nextInt(5) == 0 ? n + r.nextInt(65536 - n) : r.nextInt(n), 1 + r.nextInt(30_000), 0});
            }
            long[] db = doorbells.peek();
            sim.poke(io.doorbell().valid(), db != null);
            if (db != null) {
                sim.poke(io.doorbell().payload().flow(), db[0]);
                sim.poke(io.doorbell().payload().bytes(), db[1]);
                sim.poke(io.doorbell().payload().start(), db[2] == 1);
            }
            boolean ready = r.nextInt(8) > 0;
            sim.poke(io.grant().ready(), ready);
            sim.poke(io.now(), edge & 0xFFFF_FFFFL);
            FlowGrants.Grant offer = model.grant();
            sim.step();
            // what the edge sampled
            assertEquals(offer != null, sim.peekBool(io.grant().valid()), "grant valid at edge " + edge);
            if (offer != null) {
                FlowGrants.Grant got = new FlowGrants.Grant((int) sim.peek(io.grant().payload().flow()), sim.peek(io.grant().payload().psn()),
                        (int) sim.peek(io.grant().payload().bytes()), sim.peekBool(io.grant().payload().resend()),
                        cfg.messages() && sim.peekBool(io.grant().payload().last()));
                assertEquals(offer, got, "grant at edge " + edge);
                if (ready) {
                    grants++;
                    lastGrant = c;
                    int f = got.flow();
                    if (got.resend()) {
                        resent[f] += got.bytes();
                    } else {
                        assertEquals(nextPsn[f]++, got.psn(), "flow " + f + ": PSNs in order");
                        granted[f] += got.bytes();
                    }
                    // the packet: trimmed one in eight (a NACK), else received; the answer after a round trip
                    long wire = got.bytes() + OVERHEAD;
                    long back = edge + 100 + r.nextInt(300);
                    ControlFrames.Control ctl;
                    if (r.nextInt(40) == 0) {
                        lost++;                 // lost: its bytes stay in flight until a timeout
                        ctl = null;
                    } else if (r.nextInt(8) == 0) {
                        ctl = new ControlFrames.Control(ControlFrames.NACK, f, got.psn(), false, 0, edge, wire, 255, r.nextBoolean());
                        resendAsked[f] += got.bytes();
                    } else {
                        received[f] += wire;
                        ctl = new ControlFrames.Control(ControlFrames.ACK, f, got.psn(), r.nextInt(10) == 0, 0, edge, received[f], 255, false);
                    }
                    if (ctl != null) {
                        network.add(new Frame(back, order++, ControlFrames.build(ctl, false, 4000, 0)));
                    }
                }
            }
            if (due != null) {
                ControlFrames.Control ctl = ControlFrames.receive(due.bytes(), false, false, PacketFormat.TransportUdpPort(), n, 128).control();
                inStages.add(new Object[] {edge, ctl});
                if (ctl.kind() == ControlFrames.NACK) {
                    nacks.add(new long[] {ctl.flowId(), ctl.psn()});
                }
            }
            // a frame whose beat was taken at edge L is in stage 2 before edge L + 8: acksBypassed or not, then
            if (!inStages.isEmpty() && (long) inStages.peek()[0] + FRAME_TO_RTT == edge) {
                ControlFrames.Control ctl = (ControlFrames.Control) inStages.poll()[1];
                int f = (int) ctl.flowId();
                long rtt = edge - ctl.timestamp();
                if (ctl.kind() == ControlFrames.ACK) {
                    long newly = Math.max(0, ctl.number() - acked[f]);
                    acked[f] = Math.max(acked[f], ctl.number());
                    if (sim.peekBool(sim.dut().bypassNow())) {
                        acksBypassed++;       // the law does not see it; its bytes retire at once
                    } else {
                        expected.add(new Expected(f, 0, newly, rtt, ctl.ecnEcho(), false));
                    }
                } else if (sim.peekBool(sim.dut().bypassNow())) {
                    nacksBypassed++;    // retired and resent at once, the law does not see it
                } else {
                    expected.add(new Expected(f, 1, ctl.number(), 0, false, ctl.lastHop()));
                }
            }
            if (db != null && sim.peekBool(io.doorbell().ready())) {
                doorbells.poll();
                if (db[0] >= n) {
                    doorbellsOutOfRange++;
                } else {
                    doorbellsTaken++;
                    queued[(int) db[0]] += db[1];
                    if (db[2] == 1) {
                        started[(int) db[0]] = true;
                    }
                }
            }
            // the law's event taken at this edge
            var lawIo = sim.dut().law().io();
            if (sim.peekBool(lawIo.event().valid()) && sim.peekBool(lawIo.event().ready())) {
                Bundle ev = (Bundle) lawIo.event().payload();
                int kind = (int) sim.peek(((uehw.hw.window.WindowEvent) ev).kind());
                int lawFlow = (int) sim.peek(((uehw.hw.window.WindowEvent) ev).flow());
                Expected x = null;
                if (kind == 3) {
                    inits++;
                } else if (kind == 2) {
                    x = timeoutEvents.poll();
                    assertTrue(x != null, "a TIMEOUT law event at edge " + edge + " for no timeout");
                    assertEquals(x.flow(), lawFlow, "TIMEOUT event flow at edge " + edge);
                } else {
                    x = expected.poll();
                    assertTrue(x != null, "a law event at edge " + edge + " for no frame");
                    assertEquals(x.flow(), lawFlow, "event flow at edge " + edge);
                    assertEquals(x.kind(), kind, "event kind at edge " + edge);
                    events++;
                }
                windows.add(new long[] {lawFlow, law.taken(sim, ev, x, edge)});
            }
            if (sim.peekBool(lawIo.update().valid())) {
                long[] w = windows.poll();
                assertTrue(w != null, "a law update at edge " + edge + " for no event");
                Bundle u = (Bundle) lawIo.update().payload();
                assertEquals(w[1], law.window(sim, u), "the window the law's fixed model gives, edge " + edge);
                windowBytes.add(new long[] {w[0], law.bytes(w[1])});
                updates++;
            }
            FlowGrants.TimedOut timedOut = model.timedOut();
            var rtlTimedOut = sim.dut().flows().io().timedOut();
            assertEquals(timedOut != null, sim.peekBool(rtlTimedOut.valid()), "a timeout applied at edge " + edge);
            if (timedOut != null) {
                assertEquals(timedOut.flow(), sim.peek(rtlTimedOut.payload().flow()), "timed-out flow at edge " + edge);
                assertEquals(timedOut.bytes(), sim.peek(rtlTimedOut.payload().bytes()), "timed-out bytes at edge " + edge);
                timeouts++;
                timeoutEvents.add(new Expected(timedOut.flow(), 2, timedOut.bytes(), 0, false, false));
                timeoutRequests.add(timedOut.flow());
                resendAsked[timedOut.flow()] += Math.max(0, timedOut.bytes() - OVERHEAD);
            }
            if (sim.peekBool(io.retransmit().valid()) && sim.peekBool(io.retransmit().payload().timeout())) {
                Integer f = timeoutRequests.poll();
                assertTrue(f != null, "a timeout's retransmit request at edge " + edge + " for no timeout");
                assertEquals((long) f, sim.peek(io.retransmit().payload().flow()), "timeout retransmit flow");
                assertEquals(0, sim.peek(io.retransmit().payload().psn()), "timeout retransmit PSN");
                timeoutRetransmits++;
            } else if (sim.peekBool(io.retransmit().valid())) {
                long[] x = nacks.poll();
                assertTrue(x != null, "a retransmit request at edge " + edge + " for no NACK");
                assertEquals(x[0], sim.peek(io.retransmit().payload().flow()), "retransmit flow");
                assertEquals(x[1], sim.peek(io.retransmit().payload().psn()), "retransmit PSN");
                retransmits++;
            }
            // the flow state's op at this edge, into its model
            NicCcFlowOp op = sim.dut().flows().io().op().payload();
            FlowGrants.Op taken = null;
            if (sim.peekBool(sim.dut().flows().io().op().valid()) && sim.peekBool(sim.dut().flows().io().op().ready())) {
                taken = new FlowGrants.Op((int) sim.peek(op.flow()), sim.peek(op.queued()), sim.peek(op.retired()), sim.peek(op.resend()),
                        cfg.credit() ? sim.peek(op.credit()) : 0, sim.peekBool(op.setWindow()), sim.peek(op.window()),
                        sim.peekBool(op.timeout()), sim.peek(op.expect()), cfg.messages() && sim.peekBool(op.end()));
                if (taken.setWindow()) {
                    long[] w = windowBytes.poll();
                    assertTrue(w != null, "a window op at edge " + edge + " for no update");
                    assertEquals(w[0], taken.flow(), "the window op's flow at edge " + edge);
                    assertEquals(w[1], taken.window(), "the window in bytes at edge " + edge);
                }
            }
            model.edge(taken, ready, edge & 0xFFFF_FFFFL, sim.peekBool(sim.dut().flows().io().timeoutHold()));
        }
        for (int f = 0; f < n; f++) {
            assertTrue(started[f], "flow " + f + " started");
            assertEquals(queued[f], granted[f], "flow " + f + ": every queued byte granted");
            assertEquals(resendAsked[f], resent[f], "flow " + f + ": every NACKed payload resent");
        }
        assertTrue(expected.isEmpty(), expected.size() + " frames never became law events");
        assertTrue(windows.isEmpty(), windows.size() + " law events without an update");
        assertTrue(timeoutEvents.isEmpty() && timeoutRequests.isEmpty(), "timeouts without a law event or a retransmit request");
        assertEquals(timeouts, csr.read(NicCcCsr.TIMEOUTS), "TIMEOUTS");
        assertTrue(windowBytes.isEmpty(), windowBytes.size() + " law updates without a window op");
        assertEquals(events + inits + timeouts, updates, "an update for every event the law took");
        assertTrue(nacks.isEmpty(), nacks.size() + " NACKs without a retransmit request");
        assertEquals(n, inits, "an INIT per started flow");
        // the counters (read after the traffic)
        assertEquals(frames, csr.read(NicCcCsr.FRAMES), "FRAMES: every frame taken");
        assertEquals(junkFrames[0], csr.read(NicCcCsr.FRAMES_BAD), "FRAMES_BAD");
        assertEquals(junkFrames[1], csr.read(NicCcCsr.FRAMES_FOREIGN), "FRAMES_FOREIGN");
        assertEquals(junkFrames[2], csr.read(NicCcCsr.FRAMES_OUT_OF_RANGE), "FRAMES_OUT_OF_RANGE");
        for (int a : new int[] {NicCcCsr.FRAMES_MALFORMED, NicCcCsr.FRAMES_OVERSIZE, NicCcCsr.FRAMES_RUNT, NicCcCsr.FRAMES_CHECKSUM,
                NicCcCsr.FRAMES_NOT_CONTROL, NicCcCsr.FRAMES_BAD_FLAGS}) {
            assertEquals(0, csr.read(a), "a dropped-frame counter at " + a);
        }
        assertEquals(64L * (frames + junkFrames[0] + junkFrames[1] + junkFrames[2]), csr.read(NicCcCsr.BYTES), "BYTES");
        assertEquals(doorbellsOutOfRange, csr.read(NicCcCsr.DOORBELLS_OUT_OF_RANGE), "DOORBELLS_OUT_OF_RANGE");
        assertEquals(retransmits, csr.read(NicCcCsr.NACKS), "NACKS");
        assertEquals(timeouts, timeoutRetransmits, "a retransmit request for every timeout");
        assertEquals(frames - retransmits, csr.read(NicCcCsr.ACKS), "ACKS");
        assertEquals(acksBypassed, csr.read(NicCcCsr.ACKS_BYPASSED), "ACKS_BYPASSED");
        assertEquals(nacksBypassed, csr.read(NicCcCsr.NACKS_BYPASSED), "NACKS_BYPASSED");
        assertEquals(0, csr.read(NicCcCsr.DIRECT_DROPS), "DIRECT_DROPS");
        assertEquals(grants, csr.read(NicCcCsr.GRANTS), "GRANTS");
        assertEquals(doorbellsTaken, csr.read(NicCcCsr.DOORBELLS), "DOORBELLS");
        assertEquals(model.refusals(), csr.read(NicCcCsr.REFUSED), "REFUSED");
        System.out.printf("nic-cc: %d packets lost, %d timeouts; %d frames, %d law events, %d ACKs and %d NACKs past the law, %d retransmit requests, %d grants;"
                + " dropped: %d bad, %d foreign, %d out-of-range frames, %d out-of-range doorbells%n", lost, timeouts, frames, events, acksBypassed,
                nacksBypassed, retransmits, grants, junkFrames[0], junkFrames[1], junkFrames[2], doorbellsOutOfRange);
        assertTrue(lost > 5 && timeouts >= lost, lost + " packets lost, " + timeouts + " timeouts");
        assertTrue(retransmits > 10 && events > 500, "too little traffic");
    }
}
