// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayDeque;
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
import uehw.hw.trim.TrimIngress;
import uehw.hw.trim.TrimIngressIo;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.packet.InternetChecksum;
import uehw.model.trim.TrimClassifier;
import uehw.model.trim.TrimHeaders;

/**
 * The trimming queue's ingress alone (docs/trimming-queue.md, "Sub-blocks"): every frame of the
 * random mix the queue's own test sends, with random idle clocks, bad (tuser) and malformed (tkeep)
 * frames among them; each frame's verdict must come exactly TrimQueue.admissionClocks after its
 * tlast was taken and agree with TrimClassifier (the rules written from the docs, not from the RTL),
 * and every beat must leave for the RAMs four clocks after it was taken, with its index.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class TrimIngressTest {
    static final TrimQueueConfig CFG = TrimQueueTest.small(16);

    private record Expected(long verdictEdge, byte[] frame, boolean bad, boolean malformed, long wireBytes) {
    }

    private record ExpectedBeat(long edge, BigInteger data, boolean last, int lastCount, int index) {
    }

    @Test
    void everyFrameGetsTheClassifiersVerdictAndEveryBeatLeavesFourClocksLater() {
        long seed = BenchExtension.seed();
        Simulation<TrimIngress> build = Simulation.compile(TrimIngressTest.class, "w16", () -> new TrimIngress(CFG));
        build.run("verdicts", seed, sim -> run(sim, new Random(seed), 1500 * Seeds.scale()));
    }

    private static void run(Sim<TrimIngress> sim, Random r, int frames) {
        TrimIngressIo io = sim.dut().io();
        int w = CFG.dataBytes();
        sim.poke(io.udpPort(), PacketFormat.TransportUdpPort());
        sim.poke(io.input().valid(), false);
        sim.reset(16);
        Deque<Expected> verdicts = new ArrayDeque<>();
        Deque<ExpectedBeat> beats = new ArrayDeque<>();
        int seen = 0;
        int[] kinds = new int[4]; // ok, bad, malformed, oversize
        for (int n = 0; n < frames || !verdicts.isEmpty() || !beats.isEmpty(); n++) {
            List<Axi4StreamPackets.Beat> frameBeats = List.of();
            byte[] frame = null;
            boolean bad = false, malformed = false;
            long wire = 0;
            if (n < frames) {
                Object[] any = TrimQueueTest.randomFrame(r, CFG.maxFrameBytes());
                frame = (byte[]) any[0];
                bad = (Boolean) any[1];
                frameBeats = new java.util.ArrayList<>(Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(frame, bad ? 1 : 0), w));
                if (frameBeats.size() > 1 && r.nextInt(20) == 0) {
                    // a byte lane left off a beat before the last: malformed, and its bytes not on the wire
                    int b = r.nextInt(frameBeats.size() - 1);
                    var old = frameBeats.get(b);
                    frameBeats.set(b, new Axi4StreamPackets.Beat(old.data(), old.keep().clearBit(1 + r.nextInt(w - 1)), false, 0));
                    malformed = true;
                }
                for (var b : frameBeats) {
                    wire += b.keep().bitCount();
                }
                kinds[bad ? 1 : malformed ? 2 : frame.length > CFG.maxFrameBytes() ? 3 : 0]++;
            }
            int index = 0;
            for (int k = 0; k <= frameBeats.size(); k++) {
                // idle clocks between beats, now and then
                int idle = k == frameBeats.size() ? (r.nextInt(4) == 0 ? r.nextInt(6) : 0) : (r.nextInt(6) == 0 ? 1 + r.nextInt(3) : 0);
                for (int i = 0; i < idle || k == frameBeats.size() && n >= frames && i < 1; i++) {
                    sim.poke(io.input().valid(), false);
                    sim.step();
                    seen += check(sim, io, verdicts, beats);
                }
                if (k == frameBeats.size()) {
                    break;
                }
                var b = frameBeats.get(k);
                sim.poke(io.input().valid(), true);
                // tuser marks a bad frame on any beat: here on one of them
                Axi4StreamPackets.poke(sim, io.input().payload(), new Axi4StreamPackets.Beat(b.data(), b.keep(), b.last(),
                        bad && k == frameBeats.size() - 1 ? 1 : 0));
                sim.step();
                long edge = sim.cycle();
                beats.add(new ExpectedBeat(edge + 4, b.data(), b.last(), b.keep().bitCount() - 1, Math.min(index, CFG.maxFrameBeats() + 1)));
                index++;
                if (b.last()) {
                    verdicts.add(new Expected(edge + 4, frame, bad, malformed, wire));
                }
                seen += check(sim, io, verdicts, beats);
            }
        }
        sim.poke(io.input().valid(), false);
        for (int i = 0; i < 6; i++) {
            sim.step();
            seen += check(sim, io, verdicts, beats);
        }
        assertTrue(verdicts.isEmpty() && beats.isEmpty(), "verdicts or beats never came");
        assertEquals(frames, seen, "verdicts");
        assertTrue(Arrays.stream(kinds).allMatch(k -> k > 0), "the mix lacked a kind of frame: " + Arrays.toString(kinds));
    }

    /** What the ingress shows for the edge just taken: a beat for the RAMs, a verdict. Returns the verdicts checked. */
    private static int check(Sim<TrimIngress> sim, TrimIngressIo io, Deque<Expected> verdicts, Deque<ExpectedBeat> beats) {
        long edge = sim.cycle();
        boolean beat = sim.peekBool(io.beat().valid());
        ExpectedBeat eb = beats.peek();
        assertEquals(eb != null && eb.edge() == edge, beat, "a beat for the RAMs at edge " + edge);
        if (beat) {
            beats.poll();
            assertEquals(eb.data(), sim.peekBig(io.beat().payload().data()), "beat data at edge " + edge);
            assertEquals(eb.last(), sim.peekBool(io.beat().payload().last()), "beat last at edge " + edge);
            assertEquals(eb.index(), sim.peek(io.beat().payload().index()), "beat index at edge " + edge);
            if (eb.last()) {
                assertEquals(eb.lastCount(), sim.peek(io.beat().payload().lastCount()), "last beat's byte count - 1 at edge " + edge);
            }
        }
        boolean valid = sim.peekBool(io.verdict().valid());
        Expected e = verdicts.peek();
        assertEquals(e != null && e.verdictEdge() == edge, valid, "a verdict at edge " + edge);
        if (!valid) {
            return 0;
        }
        verdicts.poll();
        var v = io.verdict().payload();
        byte[] f = e.frame();
        String at = " (frame of " + f.length + " B, verdict at edge " + edge + ")";
        long length = e.wireBytes();
        assertEquals(length, sim.peek(v.length()), "length" + at);
        assertEquals(e.wireBytes(), sim.peek(v.wireBytes()), "wire bytes" + at);
        assertEquals(e.bad(), sim.peekBool(v.bad()), "bad" + at);
        assertEquals(e.malformed(), sim.peekBool(v.malformed()), "malformed" + at);
        assertEquals(length > CFG.maxFrameBytes(), sim.peekBool(v.oversize()), "oversize" + at);
        assertEquals(length > CFG.maxControlBytes(), sim.peekBool(v.controlOversize()), "control oversize" + at);
        int w = CFG.dataBytes();
        assertEquals((length + w - 1) / w, sim.peek(v.beats()), "beats" + at);
        assertEquals(CFG.capacityBytes() - length, sim.peek(v.dataBytesRoom()), "data room" + at);
        assertEquals((CFG.controlBytes() - length) & ((1L << 22) - 1), sim.peek(v.controlBytesRoom()), "control room" + at);
        if (e.malformed()) {
            return 1; // a byte left off: the header window saw the bus, the classifier the frame
        }
        TrimClassifier.Verdict c = TrimClassifier.classify(f, PacketFormat.TransportUdpPort());
        assertEquals(c.runt(), sim.peekBool(v.runt()), "runt" + at);
        if (c.runt()) {
            return 1; // a runt's other fields are the RTL's own business: it is dropped
        }
        assertEquals(c.ipv4(), sim.peekBool(v.ipv4()), "ipv4" + at);
        assertEquals(c.ipv6(), sim.peekBool(v.ipv6()), "ipv6" + at);
        assertEquals(c.ip(), sim.peekBool(v.ip()), "ip" + at);
        assertEquals(c.transport(), sim.peekBool(v.transport()), "transport" + at);
        assertEquals(c.control(), sim.peekBool(v.control()), "control" + at);
        assertEquals(c.ecnCapable(), sim.peekBool(v.ecnCapable()), "ECN-capable" + at);
        boolean checked = c.ipv4() && sim.peekBool(v.ihl5());
        assertEquals(c.badIpv4Checksum(), checked && !sim.peekBool(v.ipv4ChecksumOk()), "wrong IPv4 header checksum" + at);
        if (c.ipv4() && !c.badIpv4Checksum()) {
            byte[] marked = TrimHeaders.markCe(f, true);
            int o = PacketFormat.Ipv4Checksum();
            assertEquals((marked[o] & 0xFF) << 8 | marked[o + 1] & 0xFF, sim.peek(v.ceChecksum()), "checksum after a CE mark" + at);
            assertTrue(InternetChecksum.verifies(marked, PacketFormat.EthHeaderBytes(), PacketFormat.Ipv4HeaderBytes()));
        }
        return 1;
    }
}
