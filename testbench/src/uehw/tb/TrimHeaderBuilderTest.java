// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.trim.TrimHeaderBuilder;
import uehw.hw.trim.TrimHeaderBuilderIo;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.trim.TrimHeaders;

/**
 * The trimmed-header builder alone (docs/trimming-queue.md, "Sub-blocks"): transport frames of
 * random lengths through its header tap as the ingress presents them (the window and the length
 * while the frame's last beat is in s1, IPv6 a clock later, the push with the verdict in s3), the
 * window's bytes past a frame's end left with garbage (and now and then an IPv6 frame whose trimmed
 * UDP checksum computes to 0, sent as all ones), a frame trimmed now and then while the trim
 * queue has room (the admission's rule); every header out, under random backpressure, must be
 * TrimHeaders.trimmed of its frame, in order, back to back.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class TrimHeaderBuilderTest {
    static final TrimQueueConfig CFG = TrimQueueTest.small(16);

    @Test
    void everyTrimmedFrameLeavesAsTheModelsTrimmedHeaderInOrder() {
        long seed = BenchExtension.seed();
        Simulation<TrimHeaderBuilder> build = Simulation.compile(TrimHeaderBuilderTest.class, "w16", () -> new TrimHeaderBuilder(CFG));
        build.run("headers", seed, sim -> run(sim, new Random(seed), 3000 * Seeds.scale()));
    }

    private static void run(Sim<TrimHeaderBuilder> sim, Random r, int clocks) {
        TrimHeaderBuilderIo io = sim.dut().io();
        int dscp = 46;
        sim.poke(io.dscp(), dscp);
        sim.poke(io.push(), false);
        sim.poke(io.beats().ready(), false);
        sim.reset(16);
        // an IPv6 frame whose trimmed UDP checksum computes to 0, sent as all ones (RFC 768): now and then
        int at = uehw.hw.common.PacketFormat.Ipv6UdpOffset() + uehw.hw.common.PacketFormat.UdpChecksum();
        byte[] zeroSum;
        do {
            zeroSum = TrimQueueTest.dataFrame(r, true, 2, 600);
            byte[] t = TrimHeaders.trimmed(zeroSum, true, CFG.trimBytes(), dscp);
            if (((t[at] & 0xFF) << 8 | t[at + 1] & 0xFF) == 0xFFFF) {
                break;
            }
        } while (true);
        Map<Long, byte[]> atS1 = new HashMap<>();
        Deque<byte[]> expected = new ArrayDeque<>();
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        long waiting = 0;
        int pushed = 0, out = 0;
        long t = sim.cycle() + 1; // the clock the next edge ends
        long next = t;
        for (; t < clocks || !expected.isEmpty() && t < clocks + 2000; t++) {
            if (t >= next && t < clocks) {
                boolean v6 = r.nextInt(3) == 0;
                atS1.put(t, r.nextInt(40) == 0 ? zeroSum
                        : TrimQueueTest.dataFrame(r, v6, r.nextInt(4), r.nextInt(8) == 0 ? r.nextInt(10) : r.nextInt(1500)));
                next = t + 1 + (r.nextInt(3) == 0 ? r.nextInt(12) : 0);
            }
            // the window while a frame's last beat is in s1: its first bytes, garbage past its end
            byte[] f1 = atS1.get(t);
            byte[] window = new byte[CFG.headerBytes()];
            r.nextBytes(window);
            if (f1 != null) {
                System.arraycopy(f1, 0, window, 0, Math.min(f1.length, window.length));
            }
            for (int k = 0; k < window.length; k++) {
                sim.poke(io.tap().header().apply(k), window[k] & 0xFF);
            }
            sim.poke(io.tap().ipv6Now(), f1 != null ? isV6(f1) : r.nextBoolean());
            sim.poke(io.tap().frameLength(), f1 != null ? f1.length : r.nextInt(2000));
            byte[] f2 = atS1.get(t - 1);
            sim.poke(io.tap().ipv6(), f2 != null ? isV6(f2) : r.nextBoolean());
            byte[] f3 = atS1.remove(t - 2);
            boolean push = f3 != null && waiting < CFG.trimEntries() && r.nextInt(3) != 0;
            sim.poke(io.push(), push);
            if (push) {
                expected.add(TrimHeaders.trimmed(f3, isV6(f3), CFG.trimBytes(), dscp));
                waiting++;
                pushed++;
            }
            boolean ready = r.nextInt(10) < 7;
            sim.poke(io.beats().ready(), ready);
            sim.step();
            if (sim.peekBool(io.popped())) {
                waiting--;
            }
            if (ready && sim.peekBool(io.beats().valid())) {
                if (takeBeat(sim, io.beats(), 1, current)) {
                    assertTrue(!expected.isEmpty(), "a header out that no frame was trimmed for, at edge " + sim.cycle());
                    assertArrayEquals(expected.poll(), current.toByteArray(), "trimmed header " + out + ", out at edge " + sim.cycle());
                    current.reset();
                    out++;
                }
            }
        }
        assertTrue(expected.isEmpty(), expected.size() + " trimmed headers never came");
        assertTrue(pushed > 100, "only " + pushed + " frames trimmed");
        assertEquals(0, waiting, "the trim queue's pops against its pushes");
    }

    /**
     * A beat the output took (valid and ready at the last edge): its kept bytes appended to
     * `packet`, its queue checked; whether it was its packet's last.
     */
    static boolean takeBeat(Sim<?> sim, spinal.lib.Stream<spinal.lib.Fragment<uehw.hw.trim.TrimOutBeat>> beats, int queue,
                            ByteArrayOutputStream packet) {
        var b = beats.payload();
        BigInteger data = sim.peekBig(b.fragment().data());
        long keep = sim.peek(b.fragment().keep());
        assertEquals(queue, sim.peek(b.fragment().queue()), "a beat of queue " + queue);
        for (int k = 0; k < b.fragment().keep().getBitsWidth(); k++) {
            if ((keep >>> k & 1) != 0) {
                packet.write(data.shiftRight(8 * k).intValue() & 0xFF);
            }
        }
        return sim.peekBool(b.last());
    }

    private static boolean isV6(byte[] f) {
        return (f[uehw.hw.common.PacketFormat.EthType()] & 0xFF) == 0x86;
    }
}
