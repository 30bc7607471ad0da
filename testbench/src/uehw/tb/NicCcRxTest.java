// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Axi4StreamPackets;
import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.common.PacketFormat;
import uehw.hw.nic.NicCcRx;
import uehw.hw.nic.NicCcRxConfig;
import uehw.hw.nic.NicCcRxIo;
import uehw.model.nic.ControlFrames;
import uehw.model.nic.ControlFrames.Control;
import uehw.model.packet.Packet;

/**
 * The NIC engine's control-frame receiver alone (docs/nic-engine.md, "Receiving control frames"):
 * every frame of a random mix (control frames of each kind over IPv4 and IPv6, and every reason to
 * drop one) gets ControlFrames.receive's result (the rules written from the docs, not from the RTL)
 * exactly NicCcRx.latency edges after its last beat was taken; at 512 bits, back-to-back 64-byte
 * frames give one result a clock.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class NicCcRxTest {
    static final int FLOWS = 1000; // not a power of two: the range test is a compare
    static final NicCcRxConfig W64 = new NicCcRxConfig(64, FLOWS, 128);
    static final NicCcRxConfig W8 = new NicCcRxConfig(8, FLOWS, 128);

    private record Expected(long edge, byte[] frame, ControlFrames.Result result, long wireBytes) {
    }

    @Test
    void everyFrameGetsTheModelsResultAt512Bits() {
        long seed = BenchExtension.seed();
        Simulation<NicCcRx> build = Simulation.compile(NicCcRxTest.class, "w64", () -> new NicCcRx(W64));
        build.run("mix", seed, sim -> mix(sim, W64, new Random(seed), 3000 * Seeds.scale(), true));
    }

    @Test
    void everyFrameGetsTheModelsResultAt64Bits() {
        long seed = BenchExtension.seed();
        Simulation<NicCcRx> build = Simulation.compile(NicCcRxTest.class, "w8", () -> new NicCcRx(W8));
        build.run("mix", seed, sim -> mix(sim, W8, new Random(seed), 1000 * Seeds.scale(), true));
    }

    /** Line rate: 64-byte IPv4 control frames on every clock give a result on every clock. */
    @Test
    void backToBackControlFramesGiveOneResultAClock() {
        long seed = BenchExtension.seed();
        Simulation<NicCcRx> build = Simulation.compile(NicCcRxTest.class, "w64", () -> new NicCcRx(W64));
        build.run("line-rate", seed, sim -> lineRate(sim, new Random(seed), 2000));
    }

    static Control randomControl(Random r, long flows) {
        long flow = r.nextInt(20) == 0 ? flows + (r.nextBoolean() ? 0 : r.nextInt() & 0xFFFFFFFFL) % (0x1_0000_0000L - flows)
                : r.nextInt((int) flows);
        return new Control(r.nextInt(3), flow, r.nextInt() & 0xFFFFFFFFL, r.nextBoolean(), r.nextInt(65536),
                r.nextInt() & 0xFFFFFFFFL, r.nextInt() & 0xFFFFFFFFL, r.nextInt(256), r.nextBoolean(), r.nextInt(256));
    }

    /** A frame of the mix; returns {frame, bad (tuser)?}. */
    static Object[] randomFrame(Random r, NicCcRxConfig cfg) {
        boolean v6 = r.nextInt(10) < 3;
        Control c = randomControl(r, cfg.flows());
        int pad = r.nextInt(8) == 0 ? r.nextInt(cfg.maxFrameBytes() - PacketFormat.Ipv6ControlFrameBytes() + 1) : 0;
        byte[] f = ControlFrames.build(c, v6, r.nextInt(65536), pad);
        int k = r.nextInt(100);
        if (k < 55) {
            return new Object[] {f, false};
        }
        if (k < 58) {
            return new Object[] {f, true};
        }
        if (k < 62) { // longer than max-frame-bytes
            return new Object[] {ControlFrames.build(c, v6, 1, cfg.maxFrameBytes() - f.length + pad + 1 + r.nextInt(40)), false};
        }
        if (k < 68) { // cut short: below the control frame, or below its headers
            return new Object[] {Arrays.copyOf(f, r.nextBoolean() ? r.nextInt(f.length) : f.length - 1 - r.nextInt(10)), false};
        }
        if (k < 72) {
            return new Object[] {TrimQueueTest.badChecksum(r, ControlFrames.build(c, false, 7, pad)), false};
        }
        if (k < 76) {
            return new Object[] {TrimQueueTest.otherIp(r, f), false};
        }
        if (k < 78) {
            return new Object[] {TrimQueueTest.fragment(r, ControlFrames.build(c, false, 7, pad), r.nextInt(3)), false};
        }
        if (k < 81) { // another transport version
            int tp = new Packet(f).transportOffset() + PacketFormat.TpVersionTokens();
            f[tp] = (byte) ((f[tp] & 0x0F) | (r.nextBoolean() ? 0x20 : 0x00));
            new Packet(f).fixChecksums();
            return new Object[] {f, false};
        }
        if (k < 84) { // not IP
            f[PacketFormat.EthType()] = (byte) 0x88;
            f[PacketFormat.EthType() + 1] = (byte) 0xB5;
            return new Object[] {f, false};
        }
        if (k < 90) { // data, or a trimmed header, or a control with TRIMMED
            int[] flags = {0, PacketFormat.FlagMessageStart() | PacketFormat.FlagMessageEnd(), PacketFormat.FlagTrimmed(),
                c.flags() | PacketFormat.FlagTrimmed(), PacketFormat.FlagEcnEcho()};
            return new Object[] {ControlFrames.build(c, flags[r.nextInt(flags.length)], v6, 3, pad), false};
        }
        if (k < 95) { // two or three kinds
            int[] flags = {PacketFormat.FlagAck() | PacketFormat.FlagNack(), PacketFormat.FlagAck() | PacketFormat.FlagPull(),
                PacketFormat.FlagNack() | PacketFormat.FlagPull() | PacketFormat.FlagEcnEcho(),
                PacketFormat.FlagAck() | PacketFormat.FlagNack() | PacketFormat.FlagPull()};
            return new Object[] {ControlFrames.build(c, flags[r.nextInt(flags.length)], v6, 3, pad), false};
        }
        // the trimming queue's own mix (data, other IP, not IP), mostly too long here
        return TrimQueueTest.randomFrame(r, cfg.maxFrameBytes() + 200);
    }

    private static void mix(Sim<NicCcRx> sim, NicCcRxConfig cfg, Random r, int frames, boolean idle) {
        NicCcRxIo io = sim.dut().io();
        int w = cfg.dataBytes();
        int port = PacketFormat.TransportUdpPort();
        sim.poke(io.udpPort(), port);
        sim.poke(io.input().valid(), false);
        sim.reset(16);
        Deque<Expected> expected = new ArrayDeque<>();
        int seen = 0;
        int[] reasons = new int[ControlFrames.REASONS];
        for (int n = 0; n < frames; n++) {
            Object[] any = randomFrame(r, cfg);
            byte[] frame = (byte[]) any[0];
            boolean bad = (Boolean) any[1];
            List<Axi4StreamPackets.Beat> beats = new ArrayList<>(Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(frame, 0), w));
            boolean malformed = frame.length == 0; // one beat with tkeep 0: not contiguous from lane 0
            if (beats.size() > 1 && r.nextInt(25) == 0) { // a byte lane left off a beat before the last
                int b = r.nextInt(beats.size() - 1);
                var old = beats.get(b);
                beats.set(b, new Axi4StreamPackets.Beat(old.data(), old.keep().clearBit(1 + r.nextInt(w - 1)), false, 0));
                malformed = true;
            }
            long wire = beats.stream().mapToLong(b -> b.keep().bitCount()).sum();
            ControlFrames.Result want = ControlFrames.receive(frame, bad, malformed, port, cfg.flows(), cfg.maxFrameBytes());
            reasons[want.reason()]++;
            int badBeat = r.nextInt(beats.size());
            for (int k = 0; k < beats.size(); k++) {
                for (int i = idle && r.nextInt(6) == 0 ? 1 + r.nextInt(3) : 0; i > 0; i--) {
                    sim.poke(io.input().valid(), false);
                    sim.step();
                    seen += check(sim, io, expected);
                }
                var b = beats.get(k);
                sim.poke(io.input().valid(), true);
                // tuser on one beat of a bad frame
                Axi4StreamPackets.poke(sim, io.input().payload(), new Axi4StreamPackets.Beat(b.data(), b.keep(), b.last(),
                        bad && k == badBeat ? 1 : 0));
                sim.step();
                if (b.last()) {
                    expected.add(new Expected(sim.cycle() + NicCcRx.latency(), frame, want, wire));
                }
                seen += check(sim, io, expected);
            }
        }
        sim.poke(io.input().valid(), false);
        for (int i = 0; i <= NicCcRx.latency(); i++) {
            sim.step();
            seen += check(sim, io, expected);
        }
        assertTrue(expected.isEmpty(), "results never came");
        assertEquals(frames, seen, "results");
        for (int k = 0; k < reasons.length; k++) {
            assertTrue(frames < 500 || reasons[k] > 0, "the mix lacked reason " + k + ": " + Arrays.toString(reasons));
        }
    }

    /** What the receiver shows after the edge just taken. Returns the results checked. */
    private static int check(Sim<NicCcRx> sim, NicCcRxIo io, Deque<Expected> expected) {
        long edge = sim.cycle();
        boolean valid = sim.peekBool(io.result().valid());
        Expected e = expected.peek();
        assertEquals(e != null && e.edge() == edge, valid, "a result at edge " + edge);
        if (!valid) {
            return 0;
        }
        expected.poll();
        var p = io.result().payload();
        String at = " (frame of " + e.frame().length + " B, result at edge " + edge + ")";
        assertEquals(e.result().reason(), sim.peek(p.reason()), "reason" + at);
        assertEquals(e.wireBytes(), sim.peek(p.wireBytes()), "wire bytes" + at);
        Control c = e.result().control();
        if (c != null) {
            var q = p.control();
            assertEquals(c.kind(), sim.peek(q.kind()), "kind" + at);
            assertEquals(c.flowId(), sim.peek(q.flow()), "flow" + at);
            assertEquals(c.psn(), sim.peek(q.psn()), "psn" + at);
            assertEquals(c.ecnEcho(), sim.peekBool(q.ecnEcho()), "ECN echo" + at);
            assertEquals(c.entropy(), sim.peek(q.entropy()), "entropy" + at);
            assertEquals(c.timestamp(), sim.peek(q.timestamp()), "timestamp" + at);
            assertEquals(c.number(), sim.peek(q.number()), "number" + at);
            assertEquals(c.rcvWndPen(), sim.peek(q.rcvWndPen()), "receiver window penalty" + at);
            assertEquals(c.lastHop(), sim.peekBool(q.lastHop()), "last hop" + at);
            assertEquals(c.activeSenders(), sim.peek(q.activeSenders()), "active senders (byte 9)" + at);
        }
        return 1;
    }

    private static void lineRate(Sim<NicCcRx> sim, Random r, int frames) {
        NicCcRxIo io = sim.dut().io();
        sim.poke(io.udpPort(), PacketFormat.TransportUdpPort());
        sim.poke(io.input().valid(), false);
        sim.reset(16);
        Deque<Expected> expected = new ArrayDeque<>();
        int seen = 0;
        long first = -1;
        long lastResult = -1;
        for (int n = 0; n < frames || !expected.isEmpty(); n++) {
            if (n < frames) {
                Control c = randomControl(r, FLOWS);
                c = new Control(c.kind(), c.flowId() % FLOWS, c.psn(), c.ecnEcho(), c.entropy(), c.timestamp(), c.number(),
                        c.rcvWndPen(), c.lastHop(), c.activeSenders());
                byte[] f = ControlFrames.build(c, false, n, 0);
                sim.poke(io.input().valid(), true);
                Axi4StreamPackets.poke(sim, io.input().payload(), Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(f, 0), 64).get(0));
                sim.step();
                first = first < 0 ? sim.cycle() : first;
                expected.add(new Expected(sim.cycle() + NicCcRx.latency(),
                        f, new ControlFrames.Result(ControlFrames.TAKEN, c), 64));
            } else {
                sim.poke(io.input().valid(), false);
                sim.step();
            }
            int got = check(sim, io, expected);
            if (got > 0) {
                lastResult = sim.cycle();
            }
            seen += got;
        }
        assertEquals(frames, seen, "results");
        // frames results over frames clocks: the first result NicCcRx.latency edges after the first frame
        assertEquals(frames - 1 + NicCcRx.latency(), lastResult - first, "clocks from the first frame to the last result");
    }
}
