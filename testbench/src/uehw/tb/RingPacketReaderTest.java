// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.common.PacketFormat;
import uehw.hw.trim.RingPacketReader;
import uehw.hw.trim.RingPacketReaderIo;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.trim.TrimHeaders;

/**
 * The ring-RAM packet reader alone (docs/trimming-queue.md, "Sub-blocks"), on a 64-word ring (it
 * wraps every few packets) that the test keeps as the RAM (a synchronous read, its word the clock
 * after the address): packets of random lengths written ahead of it, commanded to be read (CE
 * marked now and then: TrimHeaders.markCe) or skipped (the pointer jumps past them); every packet
 * read must leave whole, patched as commanded, in order, under random backpressure, and no
 * skipped one.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class RingPacketReaderTest {
    static final TrimQueueConfig CFG = TrimQueueTest.small(16);
    static final int DEPTH = 64;

    @Test
    void everyCommandedPacketLeavesWholeAndPatchedAndSkippedOnesNever() {
        long seed = BenchExtension.seed();
        Simulation<RingPacketReader> build = Simulation.compile(RingPacketReaderTest.class, "w16_d64",
                () -> new RingPacketReader(CFG, DEPTH, 2));
        build.run("packets", seed, sim -> run(sim, new Random(seed), 600 * Seeds.scale()));
    }

    private static void run(Sim<RingPacketReader> sim, Random r, int packets) {
        RingPacketReaderIo io = sim.dut().io();
        int w = CFG.dataBytes();
        int countWidth = 32 - Integer.numberOfLeadingZeros(w - 1);
        BigInteger[] ram = new BigInteger[DEPTH];
        java.util.Arrays.fill(ram, BigInteger.ZERO);
        sim.poke(io.commands().valid(), false);
        sim.poke(io.beats().ready(), false);
        sim.poke(io.ram().data(), BigInteger.ZERO);
        sim.reset(16);
        Deque<byte[]> expected = new ArrayDeque<>();
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        int write = 0;            // ring address of the next packet
        Deque<Integer> starts = new ArrayDeque<>(); // where each packet commanded and not yet out starts in the ring
        int sent = 0, out = 0, skipped = 0, marked = 0;
        byte[] pending = null;
        boolean skip = false, mark = false;
        int pendingBeats = 0;
        for (long guard = 0; (sent < packets || !expected.isEmpty()) && guard < 400L * packets; guard++) {
            if (pending == null && sent < packets) {
                boolean v6 = r.nextBoolean();
                pending = TrimQueueTest.dataFrame(r, v6, 1 + r.nextInt(2), r.nextInt(4) == 0 ? r.nextInt(500) : r.nextInt(60));
                if (r.nextInt(6) == 0) {
                    pending[PacketFormat.EthType()] = (byte) 0x88; // not IP: never patched
                }
                pendingBeats = (pending.length + w - 1) / w;
                skip = r.nextInt(5) == 0;
                boolean ip = (pending[PacketFormat.EthType()] & 0xFF) != 0x88;
                mark = !skip && ip && r.nextBoolean();
            }
            // the ring from the oldest packet not yet read to the write address must leave room for this one
            int span = starts.isEmpty() ? 0 : (write - starts.peek() + DEPTH) % DEPTH;
            if (span == 0 && !starts.isEmpty()) {
                span = DEPTH;
            }
            boolean command = pending != null && span + pendingBeats <= DEPTH && r.nextInt(4) != 0;
            int start = write;
            if (command) {
                boolean v4 = (pending[PacketFormat.EthType()] & 0xFF) == 0x08;
                boolean v6 = (pending[PacketFormat.EthType()] & 0xFF) == 0x86;
                // the packet's words in the ring: its bytes, its byte count - 1 and last
                for (int b = 0; b < pendingBeats; b++) {
                    BigInteger data = BigInteger.ZERO;
                    int n = Math.min(w, pending.length - b * w);
                    for (int i = 0; i < n; i++) {
                        data = data.or(BigInteger.valueOf(pending[b * w + i] & 0xFF).shiftLeft(8 * i));
                    }
                    boolean last = b == pendingBeats - 1;
                    ram[(write + b) % DEPTH] = data.shiftLeft(countWidth + 1).or(BigInteger.valueOf((long) (n - 1) << 1 | (last ? 1 : 0)));
                }
                byte[] patched = mark ? TrimHeaders.markCe(pending, v4) : pending;
                var c = io.commands().payload();
                sim.poke(io.commands().valid(), true);
                sim.poke(c.beats(), pendingBeats);
                sim.poke(c.skip(), skip);
                sim.poke(c.next(), (write + pendingBeats) % DEPTH);
                sim.poke(c.patch().mark(), mark);
                sim.poke(c.patch().ipv4(), v4);
                sim.poke(c.patch().ipv6(), v6);
                int o = PacketFormat.Ipv4Checksum();
                sim.poke(c.patch().ceChecksum(), v4 ? (patched[o] & 0xFF) << 8 | patched[o + 1] & 0xFF : r.nextInt(65536));
                write = (write + pendingBeats) % DEPTH;
            } else {
                sim.poke(io.commands().valid(), false);
            }
            boolean ready = r.nextInt(10) < 7;
            sim.poke(io.beats().ready(), ready);
            sim.step();
            assertTrue(!sim.peekBool(io.overrun()), "prefetch FIFO pushed while full at edge " + sim.cycle());
            // the RAM: a read at this edge shows its word from now on
            if (sim.peekBool(io.ram().enable())) {
                sim.poke(io.ram().data(), ram[(int) sim.peek(io.ram().address())]);
            }
            if (command) {
                if (sim.peekBool(io.commands().ready())) {
                    if (skip) {
                        skipped++;
                    } else {
                        expected.add(mark ? TrimHeaders.markCe(pending, (pending[PacketFormat.EthType()] & 0xFF) == 0x08) : pending);
                        starts.add(start);
                        marked += mark ? 1 : 0;
                    }
                    sent++;
                    pending = null;
                } else {
                    write = (write - pendingBeats + DEPTH) % DEPTH; // not taken: written again next time
                }
            }
            if (ready && sim.peekBool(io.beats().valid())) {
                if (TrimHeaderBuilderTest.takeBeat(sim, io.beats(), 2, current)) {
                    assertTrue(!expected.isEmpty(), "a packet out that was not commanded, at edge " + sim.cycle());
                    assertArrayEquals(expected.poll(), current.toByteArray(), "packet " + out + " out at edge " + sim.cycle());
                    starts.poll();
                    current.reset();
                    out++;
                }
            }
        }
        assertTrue(expected.isEmpty(), expected.size() + " packets never came out");
        assertTrue(skipped > 20 && marked > 50 && out > 200, skipped + " skipped, " + marked + " marked, " + out + " out");
    }
}
