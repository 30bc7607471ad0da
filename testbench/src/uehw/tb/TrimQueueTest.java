// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import uehw.bench.Simulation;
import uehw.bench.csr.TrimQueueCsr;
import uehw.bench.trim.TrimQueueBench;
import uehw.hw.common.PacketFormat;
import uehw.hw.trim.TrimQueue;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.packet.Packet;
import uehw.model.trim.TrimQueueModel;
import uehw.model.trim.TrimQueueModel.Outcome;

/** Trimming egress queue: every frame accounted for against the model, the paper's scenarios, line rate. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class TrimQueueTest {
    static TrimQueueConfig small(int dataBytes) {
        return new TrimQueueConfig(dataBytes, 32768, 4096, 8, 64, 9216, 256, PacketFormat.TransportUdpPort(), 46, 0x7A1D5EEDL);
    }

    static Simulation<TrimQueue> compile(TrimQueueConfig cfg) {
        // Every parameter a test varies: configurations of one name share one compiled simulation.
        String name = "w" + cfg.dataBytes() + "_c" + cfg.capacityBytes() + "_k" + cfg.controlBytes() + "_t" + cfg.trimEntries()
                + "x" + cfg.trimBytes() + "_f" + cfg.maxFrameBytes() + "_m" + cfg.maxControlBytes();
        return Simulation.compile(TrimQueueTest.class, name, () -> new TrimQueue(cfg));
    }

    @FunctionalInterface
    interface BenchBody {
        void run(TrimQueueBench bench, long seed) throws Exception;
    }

    static void withBench(TrimQueueConfig cfg, String testName, BenchBody body) {
        BenchExtension.bench(compile(cfg), testName, sim -> new TrimQueueBench(sim), body::run);
    }

    // ------------------------------------------------------------ traffic

    static byte[] dataFrame(Random r, boolean v6, int ecn, int payload) {
        var f = new Packet.Fields(v6, r.nextInt(64), ecn, r.nextInt(65536), r.nextInt(), r.nextInt(),
                r.nextBoolean() ? PacketFormat.FlagMessageStart() : 0, r.nextInt(5), 0);
        return Packet.transport(f, payload, r.nextInt()).bytes;
    }

    static byte[] controlFrame(Random r, boolean v6, int payload) {
        int[] flags = {PacketFormat.FlagAck(), PacketFormat.FlagNack(), PacketFormat.FlagTrimmed(),
            PacketFormat.FlagAck() | PacketFormat.FlagEcnEcho()};
        var f = new Packet.Fields(v6, r.nextInt(64), r.nextInt(4), r.nextInt(65536), r.nextInt(), r.nextInt(),
                flags[r.nextInt(flags.length)], 0, r.nextInt(65536));
        return Packet.transport(f, payload, r.nextInt()).bytes;
    }

    /**
     * An IPv4 transport frame made a fragment (RFC 791): kind 0 the first (MF, offset 0), 1 the last
     * (offset only), 2 a middle one (both); DF is set at random. Its header checksum is right.
     */
    static byte[] fragment(Random r, byte[] ipv4Frame, int kind) {
        int offset = 1 + r.nextInt(PacketFormat.Ipv4FragmentOffsetMask());
        int v = switch (kind) {
            case 0 -> PacketFormat.Ipv4MoreFragments();
            case 1 -> offset;
            default -> PacketFormat.Ipv4MoreFragments() | offset;
        };
        Packet.put16(ipv4Frame, PacketFormat.Ipv4FlagsFragment(), v | (kind == 1 && r.nextBoolean() ? 0x4000 : 0));
        new Packet(ipv4Frame).fixIpv4HeaderChecksum();
        return ipv4Frame;
    }

    /** The IPv4 header checksum made wrong (one bit of the checksum field flipped). */
    static byte[] badChecksum(Random r, byte[] ipv4Frame) {
        ipv4Frame[PacketFormat.Ipv4Checksum() + r.nextInt(2)] ^= (byte) (1 << r.nextInt(8));
        return ipv4Frame;
    }

    /** Another UDP port (or TCP over IPv4): IP but not the transport. */
    static byte[] otherIp(Random r, byte[] frame) {
        Packet p = new Packet(frame);
        if (p.isIpv6() || r.nextBoolean()) {
            p.bytes[p.udpOffset() + PacketFormat.UdpDstPort()] ^= 0x40;
        } else {
            p.bytes[PacketFormat.Ipv4Protocol()] = 6;
        }
        p.fixChecksums();
        return p.bytes;
    }

    /** A random frame of every kind the queue must handle; returns {frame, bad?}. */
    static Object[] randomFrame(Random r, int maxFrame) {
        int k = r.nextInt(1000);
        boolean v6 = r.nextInt(10) < 3;
        int headers = v6 ? PacketFormat.Ipv6AllHeaderBytes() : PacketFormat.Ipv4AllHeaderBytes();
        if (k < 15) {
            // An IPv4 fragment: other IP, never trimmed (some carry what looks like control flags).
            byte[] f = r.nextBoolean() ? dataFrame(r, false, r.nextInt(4), r.nextInt(1500)) : controlFrame(r, false, r.nextInt(40));
            return new Object[] {fragment(r, f, r.nextInt(3)), false};
        }
        if (k < 30) {
            // A wrong IPv4 header checksum: counted, never repaired.
            byte[] f = switch (r.nextInt(3)) {
                case 0 -> dataFrame(r, false, r.nextInt(4), r.nextInt(1500));
                case 1 -> controlFrame(r, false, r.nextInt(40));
                default -> otherIp(r, dataFrame(r, false, r.nextInt(4), r.nextInt(600)));
            };
            return new Object[] {badChecksum(r, f), false};
        }
        if (k < 560) {
            int payload = switch (r.nextInt(20)) {
                case 0 -> maxFrame - headers - r.nextInt(100);
                case 1, 2, 3, 4 -> 400 + r.nextInt(1100);
                default -> r.nextInt(400);
            };
            return new Object[] {dataFrame(r, v6, r.nextInt(4), payload), false};
        }
        if (k < 720) {
            return new Object[] {controlFrame(r, v6, r.nextInt(10) == 0 ? 300 : r.nextInt(40)), false};
        }
        if (k < 820) {
            // IP but not the transport: another UDP port, or TCP.
            return new Object[] {otherIp(r, dataFrame(r, v6, r.nextInt(4), r.nextInt(600))), false};
        }
        if (k < 890) {
            byte[] f = new byte[60 + r.nextInt(600)];
            r.nextBytes(f);
            f[PacketFormat.EthType()] = (byte) 0x88;
            f[PacketFormat.EthType() + 1] = (byte) 0xB5; // local experimental EtherType: not IP
            return new Object[] {f, false};
        }
        if (k < 920) {
            Object[] any = randomFrame(r, maxFrame);
            return new Object[] {any[0], true}; // bad frame (e.g. FCS error) flagged on tuser
        }
        if (k < 960) {
            byte[] f = r.nextBoolean() ? new byte[1 + r.nextInt(13)] : new byte[14 + r.nextInt(20)];
            r.nextBytes(f);
            if (f.length >= 14) {
                f[PacketFormat.EthType()] = 0x08;
                f[PacketFormat.EthType() + 1] = 0x00; // IPv4 EtherType, shorter than an IPv4 header
            }
            return new Object[] {f, false};
        }
        if (k < 970) {
            return new Object[] {dataFrame(r, v6, 2, maxFrame - headers + 1 + r.nextInt(100)), false}; // oversize
        }
        // A transport frame cut short of its headers, or even of its UDP header.
        byte[] f = dataFrame(r, v6, 1, 0);
        int udpEnd = (v6 ? PacketFormat.Ipv6UdpOffset() : PacketFormat.Ipv4UdpOffset()) + PacketFormat.UdpHeaderBytes();
        int cut = r.nextBoolean() ? headers - 1 - r.nextInt(10) : udpEnd - 1 - r.nextInt(8);
        return new Object[] {java.util.Arrays.copyOf(f, cut), false};
    }

    /** Every RTL counter against the model's, and the output tallies. */
    static void assertCounters(TrimQueueBench b) {
        TrimQueueModel m = b.model;
        Map<String, Long> expected = new LinkedHashMap<>(m.counters.snapshot());
        // what left, counted by the bench's output monitor
        expected.put("OUT_DATA_PACKETS", b.outData);
        expected.put("OUT_DATA_BYTES", b.outDataBytes);
        expected.put("OUT_CONTROL_PACKETS", b.outControl);
        expected.put("OUT_CONTROL_BYTES", b.outControlBytes);
        expected.put("OUT_TRIMMED_PACKETS", b.outTrimmed);
        expected.put("OUT_TRIMMED_BYTES", b.outTrimmedBytes);
        // the model's gauges
        expected.put("DATA_HIGH_WATER", m.dataHighWater);
        expected.put("CONTROL_HIGH_WATER", m.controlHighWater);
        expected.put("DATA_OCCUPANCY", m.dataBytes);
        expected.put("TRIM_WAITING", m.trimWaiting);
        expected.put("INTERNAL_OVERRUN", 0L); // a FIFO overran: the admission rules failed
        CounterCheck.assertRegisters("trim-queue", TrimQueueCsr.ADDRESSES, TrimQueueCsr.COUNTERS, b::counter, expected, Set.of());
        // Conservation, from the RTL's own counters: every frame in is counted exactly once.
        long accounted = b.counter(TrimQueueCsr.OUT_DATA_PACKETS) + b.counter(TrimQueueCsr.DROP_NON_ECT)
                + b.counter(TrimQueueCsr.OUT_CONTROL_PACKETS) + b.counter(TrimQueueCsr.TRIMMED);
        for (int a = TrimQueueCsr.DROP_BAD_FRAME; a <= TrimQueueCsr.DROP_TRIM_FULL; a += 4) {
            accounted += b.counter(a);
        }
        assertEquals(b.counter(TrimQueueCsr.IN_PACKETS), accounted, "IN_PACKETS = forwarded + control + trimmed + drops");
        assertEquals(b.counter(TrimQueueCsr.TRIMMED), b.counter(TrimQueueCsr.OUT_TRIMMED_PACKETS), "every trimmed header sent");
    }

    // ------------------------------------------------------------ randomized

    /*
     * Where a CSR write taken at edge h reaches the model (docs/trimming-queue.md, "CSR writes"): the
     * bench edge whose step applies it first, as an offset from h. A step applies the dequeue and the
     * admission of the edge before it.
     */
    /** Data dequeues at edge h + 2 or later use the new DROP_NON_ECT. */
    static final int CONTROL_FROM = 3;
    /** Data dequeues at edge h + 2 or later use the new RED thresholds (none happens from h + 2 to h + 6). */
    static final int RED_FROM = 3;
    /** Frames admitted at edge h + 4 or later (last beat taken at h or later) are classified with the new port. */
    static final int UDP_PORT_FROM = 5;
    /** Frames admitted at edge h + 2 or later (last beat taken at h - 2 or later) are trimmed with the new DSCP. */
    static final int TRIM_DSCP_FROM = 3;

    /** One CSR write (CONTROL, KMIN, KMAX, SEED, UDP_PORT, TRIM_DSCP) at an edge among the frames, the model following at its edge. */
    static void csrWriteAmongFrames(TrimQueueBench b, Random r, TrimQueueConfig cfg) {
        long h = b.sim.cycle() + 2 + r.nextInt(60);
        TrimQueueModel m = b.model;
        switch (r.nextInt(6)) {
            case 0 -> {
                boolean drop = r.nextBoolean();
                b.actions.writeAt(h, TrimQueueCsr.CONTROL, drop ? 1 : 0, h + CONTROL_FROM, () -> m.dropNonEct = drop);
            }
            case 1 -> {
                long kMin = cfg.capacityBytes() / 10 * r.nextInt(6);
                b.actions.writeAt(h, TrimQueueCsr.KMIN, kMin, h + RED_FROM, () -> m.kMin = kMin);
            }
            case 2 -> {
                long kMax = cfg.capacityBytes() / 10 * (1 + r.nextInt(9));
                b.actions.writeAt(h, TrimQueueCsr.KMAX, kMax, h + RED_FROM, () -> m.kMax = kMax);
            }
            case 3 -> {
                long seed = r.nextInt(5) == 0 ? 0 : r.nextInt() & 0xFFFFFFFFL;
                b.actions.writeAt(h, TrimQueueCsr.SEED, seed, h + RED_FROM, () -> m.reseed(seed));
            }
            case 4 -> {
                // the transport's port, or another one (the transport's frames are then other UDP: not trimmed or controlled)
                int port = r.nextInt(3) == 0 ? 0x1234 : cfg.udpPort();
                b.actions.writeAt(h, TrimQueueCsr.UDP_PORT, port, h + UDP_PORT_FROM, () -> m.udpPort = port);
            }
            default -> {
                int dscp = r.nextInt(64);
                b.actions.writeAt(h, TrimQueueCsr.TRIM_DSCP, dscp, h + TRIM_DSCP_FROM, () -> m.trimDscp = dscp);
            }
        }
    }

    static Stream<Arguments> randomConfigs() {
        int scale = Seeds.scale();
        return Stream.of(Arguments.of(64, 100_000 * scale), Arguments.of(32, 10_000 * scale),
                Arguments.of(16, 6_000 * scale), Arguments.of(8, 4_000 * scale));
    }

    /**
     * Random frames of every kind with random input idle and output backpressure in phases (the
     * backpressure makes the 32 KB data queue fill, trim and mark), DROP_NON_ECT and RED
     * thresholds changed between phases, and CONTROL, KMIN, KMAX, SEED, UDP_PORT and TRIM_DSCP
     * written at random edges among the frames (the model following at the documented edges). Every frame that leaves is the next one of the queue the
     * model says, byte for byte, with valid checksums; every counter equals the model's; the RED
     * marks follow the configured line.
     */
    @ParameterizedTest(name = "{0} bytes per beat, {1} frames")
    @Tag("soak")
    @MethodSource("randomConfigs")
    void everyFrameIsAccountedForExactlyOnce(int dataBytes, int frames) {
        TrimQueueConfig cfg = small(dataBytes);
        withBench(cfg, "random_w" + dataBytes, (b, seed) -> {
            Random r = new Random(seed);
            int phases = 8;
            int writes = 0;
            for (int phase = 0; phase < phases; phase++) {
                b.patterns(r, new double[] {0, 0.1, 0.5}[phase % 3], new double[] {0.6, 0.3, 0, 0.8}[phase % 4]);
                for (int i = 0; i < frames / phases; i++) {
                    Object[] f = randomFrame(r, cfg.maxFrameBytes());
                    b.send((byte[]) f[0], (Boolean) f[1]);
                    if (r.nextInt(100) == 0 && b.actions.csrIdle()) {
                        b.counter(TrimQueueCsr.CONTROL);   // a CSR access while a frame's beats are presented
                    }
                    if (r.nextInt(40) == 0 && b.actions.csrIdle()) {
                        csrWriteAmongFrames(b, r, cfg);
                        writes++;
                    }
                    while (!b.inputIdle()) {
                        b.step();
                    }
                    if (r.nextInt(200) == 0) {
                        // A partial beat before tlast: dropped as malformed.
                        b.sendMalformed(dataFrame(r, false, 1, 2 * dataBytes + r.nextInt(200)));
                    }
                }
                b.drain();
                boolean dropNonEct = phase % 2 == 1;
                b.csr.write(TrimQueueCsr.CONTROL, dropNonEct ? 1 : 0);
                b.model.dropNonEct = dropNonEct;
                long kMin = cfg.capacityBytes() / 10 * (1 + r.nextInt(3));
                long kMax = kMin + cfg.capacityBytes() / 10 * (1 + r.nextInt(5));
                b.csr.write(TrimQueueCsr.KMIN, kMin);
                b.csr.write(TrimQueueCsr.KMAX, kMax);
                b.model.kMin = kMin;
                b.model.kMax = kMax;
                long seedValue = phase == 2 ? 0 : r.nextInt() & 0xFFFFFFFFL;   // 0 loads 1 (xorshift32 has no 0 state)
                b.csr.write(TrimQueueCsr.SEED, seedValue);
                b.model.reseed(seedValue);
                b.csr.write(TrimQueueCsr.UDP_PORT, cfg.udpPort()); // the writes among the frames may have moved it
                b.model.udpPort = cfg.udpPort();
            }
            b.drain();
            assertCounters(b);
            TrimQueueModel m = b.model;
            System.out.printf("trim queue W=%d: %d frames (seed %d), %d CSR writes among them: %d data, %d control, %d trimmed, %d marked, drops: bad %d,"
                            + " oversize %d, malformed %d, runt %d, control full %d, control oversize %d, data full %d, trim full %d, non-ECT %d;"
                            + " data high water %d B%n", dataBytes, frames, seed, writes, b.outData, b.outControl, b.outTrimmed, m.counters.get("MARKED"),
                    m.outcome(Outcome.DROP_BAD_FRAME), m.outcome(Outcome.DROP_OVERSIZE), m.outcome(Outcome.DROP_MALFORMED),
                    m.outcome(Outcome.DROP_RUNT),
                    m.outcome(Outcome.DROP_CONTROL_FULL), m.outcome(Outcome.DROP_CONTROL_OVERSIZE),
                    m.outcome(Outcome.DROP_DATA_FULL), m.outcome(Outcome.DROP_TRIM_FULL), m.counters.get("DROP_NON_ECT"), m.dataHighWater);
            assertTrue(b.outTrimmed > 0 && m.counters.get("MARKED") > 0, "the traffic must trim and mark");
            assertTrue(m.outcome(Outcome.DROP_MALFORMED) > 0, "no malformed frame was sent");
            if (dataBytes == 64) {
                assertRedFollowsTheLine(m, cfg);
            }
        });
    }

    /**
     * The queue's clocks without the RTL: TrimQueueTiming with the model (what the network's ports
     * run in place of the Verilated queue) predicts, clock for clock, every io_dequeue event (control
     * and data dequeues, drops at dequeue, trimmed headers leaving) and every m_axis valid and last,
     * under random frames (transport data and control of every size, runts, bad frames, other IP),
     * random input idle and output backpressure that fill, trim, mark and drop at dequeue.
     */
    @ParameterizedTest(name = "{0} bytes per beat, {1} frames")
    @Tag("soak")
    @MethodSource("timingConfigs")
    void timingModelPredictsEveryDequeueAndOutputClock(int dataBytes, int frames) {
        TrimQueueConfig cfg = small(dataBytes);
        withBench(cfg, "timing_w" + dataBytes, (b, seed) -> {
            Random r = new Random(seed);
            b.csr.write(TrimQueueCsr.CONTROL, 1); // DROP_NON_ECT: drops at dequeue skip their beats
            b.model.dropNonEct = true;
            b.drain();
            b.predictTiming();
            int phases = 6;
            for (int phase = 0; phase < phases; phase++) {
                b.patterns(r, new double[] {0, 0.3, 0.05}[phase % 3], new double[] {0.5, 0, 0.9, 0.75}[phase % 4]);
                for (int i = 0; i < frames / phases; i++) {
                    Object[] f = r.nextInt(4) == 0 ? randomFrame(r, cfg.maxFrameBytes())
                            : new Object[] {r.nextInt(3) == 0 ? controlFrame(r, r.nextInt(4) == 0, r.nextInt(40))
                                : dataFrame(r, r.nextInt(4) == 0, r.nextInt(4), r.nextInt(10) == 0 ? r.nextInt(8000) : r.nextInt(1500)),
                                false};
                    b.send((byte[]) f[0], (Boolean) f[1]);
                    while (!b.inputIdle()) {
                        b.step();
                    }
                }
                b.drain();
            }
            TrimQueueModel m = b.model;
            System.out.printf("trim queue timing W=%d (seed %d): %d clocks, %d dequeues and trim pops, %d output beats predicted;"
                            + " %d trimmed, %d marked, %d dropped at dequeue%n", dataBytes, seed, b.timingClocksChecked,
                    b.timingDequeuesChecked, b.timingBeatsChecked, m.outcome(Outcome.TRIM), m.counters.get("MARKED"), m.counters.get("DROP_NON_ECT"));
            assertTrue(m.outcome(Outcome.TRIM) > 0 && m.counters.get("MARKED") > 0 && m.counters.get("DROP_NON_ECT") > 0, "the traffic must trim, mark and drop");
            assertEquals(b.outData + b.outControl + m.counters.get("DROP_NON_ECT") + b.outTrimmed, b.timingDequeuesChecked,
                    "every dequeue and trim pop was predicted");
        });
    }

    static Stream<Arguments> timingConfigs() {
        int scale = Seeds.scale();
        return Stream.of(Arguments.of(64, 6_000 * scale), Arguments.of(8, 1_500 * scale));
    }

    /**
     * RED (Sec. 3.5): binned by (occupancy - KMIN) / (KMAX - KMIN), the fraction of ECN-capable
     * frames marked matches the line within 5 standard deviations (plus the bin's width); none is
     * marked at or below KMIN and every one at or above KMAX.
     */
    static void assertRedFollowsTheLine(TrimQueueModel m, TrimQueueConfig cfg) {
        int bins = 6;
        long[] n = new long[bins], marks = new long[bins];
        int checked = 0;
        for (long[] s : m.redSamples) {
            long occ = s[0], kMin = s[2], kMax = s[3];
            if (occ <= kMin || occ >= kMax) {
                assertEquals(occ >= kMax ? 1 : 0, s[1], "outside (KMIN, KMAX) the decision is certain");
                continue;
            }
            int bin = (int) ((occ - kMin) * bins / (kMax - kMin));
            n[bin]++;
            marks[bin] += s[1];
        }
        for (int i = 0; i < bins; i++) {
            if (n[i] < 100) {
                continue;
            }
            double mid = (i + 0.5) / bins;
            double got = (double) marks[i] / n[i];
            double sigma = Math.sqrt(mid * (1 - mid) / n[i]);
            System.out.printf("  RED bin %.2f..%.2f of [KMIN, KMAX]: %d frames, %.3f marked (line %.3f)%n",
                    (double) i / bins, (double) (i + 1) / bins, n[i], got, mid);
            assertTrue(Math.abs(got - mid) < 5 * sigma + 0.5 / bins, "bin " + i + ": " + got + " vs " + mid);
            checked++;
        }
        assertTrue(checked >= 2, "too few frames between KMIN and KMAX to check the line");
    }

    // ------------------------------------------------------------ directed

    /**
     * Line rate at 512 bits: one frame of every size from 64 to 9000 bytes, back to back. The input
     * takes a beat every clock throughout. The output is held until about 20 KB (more than the
     * largest frame) are queued, so that store and forward never leaves it waiting for a frame's
     * tlast; released and always ready, it then sends a beat every clock from its first beat to
     * its last across every frame boundary: no per-frame overhead.
     */
    @Test
    void lineRateEverySizeFrom64To9000() {
        TrimQueueConfig cfg = new TrimQueueConfig(64, 150000, 8192, 32, 64, 9216, 256, PacketFormat.TransportUdpPort(), 46, 0x7A1D5EEDL);
        withBench(cfg, "line_rate", (b, seed) -> {
            Random r = new Random(seed);
            List<Integer> sizes = new ArrayList<>();
            for (int s = 64; s <= 9000; s++) {
                sizes.add(s);
            }
            Collections.shuffle(sizes, r);
            long beats = 0;
            b.patterns(r, 0, 1.0); // output held
            for (int s : sizes) {
                b.send(dataFrame(r, false, 0, s - PacketFormat.Ipv4AllHeaderBytes()), false);
                beats += (s + 63) / 64;
            }
            b.recordBeats = true;
            long start = b.clocks();
            while (b.model.dataBytes < 20_000) {
                b.step();
            }
            b.outputBackpressure(r, 0);
            while (!b.inputIdle()) {
                b.step();
            }
            long inputClocks = b.clocks() - start;
            b.drain();
            long first = b.outputBeatClocks.get(0), last = b.outputBeatClocks.get(b.outputBeatClocks.size() - 1);
            System.out.printf("trim queue line rate: %d frames, %d beats in over %d clocks, %d beats out over %d clocks%n",
                    sizes.size(), beats, inputClocks, b.outputBeatClocks.size(), last - first + 1);
            assertEquals(beats, inputClocks, "the input took a beat every clock");
            assertEquals(beats, b.outputBeatClocks.size());
            assertEquals(beats, last - first + 1, "the output sent a beat every clock, no idle between frames");
            assertEquals(sizes.size(), b.outData);
            assertCounters(b);
        });
    }

    /**
     * Sec. 2.1: an incast burst of four times the queue's capacity into a port sending one clock in
     * eight produces trimmed headers, not lost data: every frame leaves whole or trimmed.
     */
    @Test
    void incastBurstIsTrimmedNotLost() {
        // The default 32 trim entries: trimmed headers wait while a whole data frame leaves at one beat in eight.
        TrimQueueConfig cfg = new TrimQueueConfig(64, 32768, 4096, 32, 64, 9216, 256, PacketFormat.TransportUdpPort(), 46, 0x7A1D5EEDL);
        withBench(cfg, "incast", (b, seed) -> {
            Random r = new Random(seed);
            b.patterns(r, 0, 7.0 / 8);
            long bytes = 0;
            int frames = 0;
            while (bytes < 4L * 32768) {
                byte[] f = dataFrame(r, r.nextBoolean(), 2, 1000 + r.nextInt(500));
                b.send(f, false);
                bytes += f.length;
                frames++;
            }
            b.drain();
            System.out.printf("trim queue incast: %d frames (%d B) into 32 KB: %d forwarded whole, %d trimmed%n",
                    frames, bytes, b.outData, b.outTrimmed);
            assertTrue(b.outTrimmed > 0, "no trims");
            assertEquals(frames, b.outData + b.outTrimmed, "every frame forwarded whole or trimmed");
            assertEquals(0, b.counter(TrimQueueCsr.DROP_DATA_FULL) + b.counter(TrimQueueCsr.DROP_TRIM_FULL));
            assertCounters(b);
        });
    }

    /**
     * Every frame-length threshold at its value and one byte either side, IPv4 and IPv6: the
     * largest frame (max-frame-bytes), the largest control frame (max-control-bytes), and the runt
     * limits (the Ethernet header, for IP and non-IP frames, the IP header, the UDP header, all the
     * transport headers; shorter frames are the same frame cut short), and trimmed frames as long as what a trim keeps. Each
     * frame's outcome, output bytes and counters against the model; the thresholds' outcomes are
     * also counted directly.
     */
    @Test
    void frameLengthsAtEveryThresholdAndOneEitherSide() {
        TrimQueueConfig cfg = small(64);
        withBench(cfg, "length_thresholds", (b, seed) -> {
            Random r = new Random(seed);
            int frames = 0;
            for (boolean v6 : new boolean[] {false, true}) {
                int headers = v6 ? PacketFormat.Ipv6AllHeaderBytes() : PacketFormat.Ipv4AllHeaderBytes();
                for (int d = -1; d <= 1; d++) {
                    b.send(dataFrame(r, v6, 1, cfg.maxFrameBytes() + d - headers), false);
                    b.send(controlFrame(r, v6, cfg.maxControlBytes() + d - headers), false);
                    frames += 2;
                    for (int limit : new int[] {PacketFormat.EthHeaderBytes(),
                            v6 ? PacketFormat.Ipv6UdpOffset() : PacketFormat.Ipv4UdpOffset(),
                            v6 ? PacketFormat.Ipv6TransportOffset() : PacketFormat.Ipv4TransportOffset(), headers}) {
                        b.send(java.util.Arrays.copyOf(dataFrame(r, v6, 1, 100), limit + d), false);
                        frames++;
                    }
                    // A non-IP frame is a runt only below the Ethernet header (no IP length applies).
                    byte[] nonIp = java.util.Arrays.copyOf(dataFrame(r, v6, 1, 100), PacketFormat.EthHeaderBytes() + d);
                    nonIp[PacketFormat.EthType()] = (byte) 0x88;
                    if (nonIp.length > PacketFormat.EthType() + 1) {
                        nonIp[PacketFormat.EthType() + 1] = (byte) 0xB5;   // IEEE 802 local experimental
                    }
                    b.send(nonIp, false);
                    frames++;
                    while (!b.inputIdle()) {
                        b.step();
                    }
                }
            }
            b.drain();
            // Trimmed frames as long as what a trim keeps, and one byte either side: with the output
            // stalled, the smallest data frames fill the data queue until one is trimmed (no room is
            // left for a frame of that size), then the frames to trim (5: the trim queue holds 8).
            b.patterns(r, 0, 1.0);
            long trims = b.model.outcome(Outcome.TRIM);
            while (b.model.outcome(Outcome.TRIM) == trims) {
                b.send(dataFrame(r, false, 1, 1), false);
                frames++;
                for (int i = 0; i < 24; i++) {
                    b.step();
                }
            }
            for (boolean v6 : new boolean[] {false, true}) {
                int keep = v6 ? Math.max(cfg.trimBytes(), PacketFormat.Ipv6AllHeaderBytes()) : cfg.trimBytes();
                int headers = v6 ? PacketFormat.Ipv6AllHeaderBytes() : PacketFormat.Ipv4AllHeaderBytes();
                for (int d = -1; d <= 1; d++) {
                    if (keep + d >= headers) {
                        b.send(dataFrame(r, v6, 1, keep + d - headers), false);
                        frames++;
                    }
                }
            }
            while (!b.inputIdle()) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            assertEquals(frames, b.counter(TrimQueueCsr.IN_PACKETS));
            assertEquals(2, b.counter(TrimQueueCsr.DROP_OVERSIZE), "max-frame-bytes + 1, IPv4 and IPv6");
            assertEquals(2, b.counter(TrimQueueCsr.DROP_CONTROL_OVERSIZE), "max-control-bytes + 1, IPv4 and IPv6");
            assertTrue(b.model.outcome(Outcome.TRIM) >= 5, "the frames around the kept length were trimmed");
            assertCounters(b);
        });
    }

    /**
     * An oversize frame never overwrites what is queued: the ingress beat index saturates past the
     * largest frame, so a frame of 100 KB (about 11 times max-frame-bytes, 6 times 2^8 beats of 64
     * bytes) writes at most max-frame-beats into the packet RAM before it is dropped; an index that
     * wrapped would write more than the RAM has free. With the output stalled, 30 KB of frames wait
     * before it; then every frame must leave intact.
     */
    @Test
    void anOversizeFrameNeverOverwritesQueuedFrames() {
        TrimQueueConfig cfg = small(64);
        withBench(cfg, "oversize_behind_queued", (b, seed) -> {
            Random r = new Random(seed);
            b.patterns(r, 0, 1.0);
            for (int bytes = 0; bytes < 30_000; ) {
                byte[] f = dataFrame(r, r.nextBoolean(), 1, 200 + r.nextInt(1200));
                b.send(f, false);
                bytes += f.length;
            }
            b.send(dataFrame(r, false, 1, 100_000), false);
            for (int i = 0; i < 4; i++) {
                b.send(dataFrame(r, false, 1, 500), false);
            }
            while (!b.inputIdle()) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            assertEquals(1, b.counter(TrimQueueCsr.DROP_OVERSIZE));
            assertCounters(b);
        });
    }

    /**
     * RFC 768: a UDP checksum that computes to 0 is sent as 0xFFFF (0 means "no checksum"). About one
     * IPv6 header in 65,536 trims to one; the test searches its seeded frames for such a header (the
     * model's trimmed header then carries 0xFFFF: the complement of a ones' complement sum is 0xFFFF
     * only when it computed to 0), fills the data queue with the output stalled so that the frame is
     * trimmed, and compares every output byte with the model.
     */
    @Test
    void aTrimmedUdpChecksumThatComputesToZeroIsSentAsAllOnes() {
        TrimQueueConfig cfg = small(64);
        withBench(cfg, "udp_checksum_zero", (b, seed) -> {
            Random r = new Random(seed);
            int at = PacketFormat.Ipv6UdpOffset() + PacketFormat.UdpChecksum();
            byte[] target;
            int tried = 0;
            do {
                target = dataFrame(r, true, 2, 600);
                tried++;
                byte[] t = b.model.trimmed(target, true);
                if (((t[at] & 0xFF) << 8 | t[at + 1] & 0xFF) == 0xFFFF) {
                    break;
                }
            } while (true);
            b.patterns(r, 0, 1.0);   // the output stalled: the data queue fills
            for (int bytes = 0; bytes < cfg.capacityBytes() + 2000; ) {   // the data queue full, the trim queue (8) not
                byte[] f = dataFrame(r, true, 2, 600);
                b.send(f, false);
                bytes += f.length;
            }
            while (!b.inputIdle()) {
                b.step();
            }
            for (int i = 0; i < 32; i++) {
                b.step();   // the last filler admitted
            }
            long trimsBefore = b.model.outcome(Outcome.TRIM);
            b.send(target, false);
            while (!b.inputIdle()) {
                b.step();
            }
            for (int i = 0; i < 32; i++) {
                b.step();
            }
            assertEquals(trimsBefore + 1, b.model.outcome(Outcome.TRIM), "the searched frame was trimmed");
            b.patterns(r, 0, 0);
            b.drain();
            System.out.printf("trim queue: a trimmed header with a computed UDP checksum of 0 after %d frames searched; "
                    + "data %d, trimmed %d, data full %d, trim full %d%n", tried, b.model.outcome(Outcome.DATA),
                    b.model.outcome(Outcome.TRIM), b.model.outcome(Outcome.DROP_DATA_FULL), b.model.outcome(Outcome.DROP_TRIM_FULL));
            assertTrue(b.outTrimmed > 0);
            assertCounters(b);
        });
    }

    /**
     * Sec. 3: control frames overtake queued data (strict priority at frame boundaries); with the
     * output held, control frames beyond the control queue's 4 KB are dropped and counted, never
     * trimmed.
     */
    @Test
    void controlOvertakesQueuedDataAndIsDroppedWhenFull() {
        withBench(small(16), "priority", (b, seed) -> {
            Random r = new Random(seed);
            b.patterns(r, 0, 1.0); // the output holds everything
            for (int i = 0; i < 10; i++) {
                b.send(dataFrame(r, false, 0, 1000), false);
            }
            for (int i = 0; i < 3; i++) {
                b.send(controlFrame(r, false, 0), false);
            }
            while (!b.inputIdle()) {
                b.step();
            }
            for (int i = 0; i < 20; i++) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            List<Integer> order = b.outputOrder;
            System.out.println("trim queue priority: output order " + order);
            // At most the data frame already leaving when the control frames arrived goes first.
            int lastControl = order.lastIndexOf(0);
            assertTrue(lastControl <= 3, "control frames waited behind queued data: " + order);
            assertCounters(b);

            b.patterns(r, 0, 1.0);
            int sentControl = 0;
            for (long bytes = 0; bytes < 2 * 4096; ) {
                byte[] c = controlFrame(r, r.nextBoolean(), 0);
                b.send(c, false);
                bytes += c.length;
                sentControl++;
            }
            while (!b.inputIdle()) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            long dropped = b.counter(TrimQueueCsr.DROP_CONTROL_FULL);
            System.out.printf("trim queue control full: %d control frames into a held 4 KB queue: %d sent, %d dropped%n",
                    sentControl, b.outControl - 3, dropped);
            assertTrue(dropped > 0, "no control frame dropped");
            assertEquals(sentControl, b.outControl - 3 + dropped);
            assertEquals(0, b.counter(TrimQueueCsr.TRIMMED));
            assertCounters(b);
        });
    }

    // ------------------------------------------------------------ hardening

    /**
     * Sec. 3, strict priority at every packet boundary the output takes, with random output stalls:
     * for every control packet, count the data packets whose first beat entered the output
     * register after its admission: none from CONTROL_VISIBLE_AFTER clocks after it (when its
     * first beat is in its prefetch FIFO) on, only those chosen before. The old arbiter locked the
     * next data packet while the output was held on the previous one's last beat.
     */
    @Test
    void controlGoesFirstAtEveryBoundaryUnderOutputStalls() {
        withBench(small(16), "priority_stalls", (b, seed) -> {
            Random r = new Random(seed);
            b.recordStarts = true;
            double[] stalls = {0.5, 0.8, 0.95, 0.3};
            for (double stall : stalls) {
                b.patterns(r, 0.3, stall);
                for (int i = 0; i < 400; i++) {
                    byte[] f = r.nextInt(3) == 0 ? controlFrame(r, r.nextBoolean(), r.nextInt(40))
                            : dataFrame(r, r.nextBoolean(), r.nextInt(4), r.nextInt(r.nextInt(8) == 0 ? 1500 : 200));
                    b.send(f, false);
                }
                b.drain();
            }
            List<Integer> order = b.outputOrder;
            List<Long> starts = b.packetStarts;
            assertEquals(order.size(), starts.size(), "a first beat for every packet that left");
            int control = 0, worst = 0, checked = 0;
            for (int k = 0; k < order.size(); k++) {
                if (order.get(k) != 0) {
                    continue;
                }
                long arrived = b.controlAdmissions.get(control++);
                int after = 0, late = 0;
                for (int j = k - 1; j >= 0 && starts.get(j) > arrived; j--) {
                    if (order.get(j) == 2) {
                        after++;
                        if (starts.get(j) >= arrived + TrimQueueModel.CONTROL_VISIBLE_AFTER) {
                            late++;
                        }
                    }
                }
                worst = Math.max(worst, after);
                assertEquals(0, late, "control packet " + control + " (tlast at clock " + arrived + ", first beat at "
                        + starts.get(k) + ") waited behind " + late + " data packet(s) chosen after it could be read");
                // Each data packet holds the output register at least a clock: at most CONTROL_VISIBLE_AFTER of them.
                assertTrue(after <= TrimQueueModel.CONTROL_VISIBLE_AFTER, "control packet " + control + ": " + after
                        + " data packets started after it arrived");
                checked++;
            }
            System.out.printf("trim queue priority under stalls: %d control packets, at most %d data packets started after one was admitted%n",
                    checked, worst);
            assertEquals(b.controlAdmissions.size(), control);
            assertTrue(checked > 300);
            assertCounters(b);
        });
    }

    /**
     * CONTROL.DROP_NON_ECT above KMAX: the dropped packets' beats are skipped (the read pointer
     * jumps), not streamed into nowhere. Line rate in, ECN-capable frames of up to 9000 bytes
     * mixed with dropped non-ECT ones of up to 1500; after a hold the output always ready: from
     * its first beat to its last it idles at most one clock per packet dropped (the old design
     * idled for every beat of them).
     */
    @Test
    void dropsAtDequeueCostAtMostOneClockEach() {
        TrimQueueConfig cfg = new TrimQueueConfig(64, 150000, 8192, 32, 64, 9216, 256, PacketFormat.TransportUdpPort(), 46, 0x7A1D5EEDL);
        withBench(cfg, "drop_line_rate", (b, seed) -> {
            Random r = new Random(seed);
            b.csr.write(TrimQueueCsr.CONTROL, 1);
            b.csr.write(TrimQueueCsr.KMIN, 0);
            b.csr.write(TrimQueueCsr.KMAX, 1); // every packet starts at or above KMAX (it counts itself)
            b.model.dropNonEct = true;
            b.model.kMin = 0;
            b.model.kMax = 1;
            b.patterns(r, 0, 1.0);
            long beatsIn = 0;
            int frames = 0, nonEct = 0;
            long dropBeats = 0;
            // At least 30 drops whatever the seed (a third of ~97 frames fell to 19 on seed 772254378).
            for (long bytes = 0; bytes < 400_000 || nonEct < 30; frames++) {
                // Dropped frames 64..1500 bytes (they drain the queue), forwarded ones up to 9000.
                boolean v6 = r.nextBoolean();
                boolean drop = r.nextInt(3) == 0;
                int size = (v6 ? PacketFormat.Ipv6AllHeaderBytes() : 64) + r.nextInt((drop ? 1500 : 9000) - 74 + 1);
                int headers = v6 ? PacketFormat.Ipv6AllHeaderBytes() : PacketFormat.Ipv4AllHeaderBytes();
                b.send(dataFrame(r, v6, drop ? 0 : 1 + r.nextInt(2), size - headers), false);
                bytes += size;
                beatsIn += (size + 63) / 64;
                if (drop) {
                    nonEct++;
                    dropBeats += (size + 63) / 64;
                }
            }
            b.recordBeats = true;
            long start = b.clocks();
            while (b.model.dataBytes < 100_000) {
                b.step();
            }
            b.outputBackpressure(r, 0);
            while (!b.inputIdle()) {
                b.step();
            }
            long inputClocks = b.clocks() - start;
            b.drain();
            long first = b.outputBeatClocks.get(0), last = b.outputBeatClocks.get(b.outputBeatClocks.size() - 1);
            long idle = last - first + 1 - b.outputBeatClocks.size();
            long dropped = b.counter(TrimQueueCsr.DROP_NON_ECT);
            System.out.printf("trim queue drops at dequeue: %d frames, %d non-ECT (%d beats) dropped of %d; output %d beats,"
                    + " %d idle clocks between its first and last beat%n", frames, dropped, dropBeats, nonEct,
                    b.outputBeatClocks.size(), idle);
            assertEquals(beatsIn, inputClocks, "the input took a beat every clock");
            assertEquals(nonEct, dropped, "every non-ECT frame dropped above KMAX");
            assertEquals(0, b.counter(TrimQueueCsr.TRIMMED) + b.counter(TrimQueueCsr.DROP_DATA_FULL), "nothing trimmed");
            assertTrue(dropped >= 30);
            assertTrue(idle <= dropped, idle + " idle clocks for " + dropped + " drops: more than one clock per drop");
            assertEquals(frames - nonEct, b.outData);
            assertCounters(b);
        });
    }

    /**
     * IN_BYTES counts every byte taken on the bus exactly, for frames the size field used to wrap
     * on (32 KiB added 9280, 64 KiB 18560) and longer; they are dropped as oversize.
     */
    @ParameterizedTest(name = "{0} bytes per beat")
    @MethodSource("bigFrameWidths")
    void inBytesIsExactForFramesOf32KiBAndLonger(int dataBytes) {
        withBench(small(dataBytes), "in_bytes_w" + dataBytes, (b, seed) -> {
            Random r = new Random(seed);
            int[] sizes = dataBytes == 64 ? new int[] {32768, 65536, 9216, 32767, 100_003, 9217, 131_072 + 5, 200, 65535}
                    : new int[] {32768, 9216, 65536 + 3, 200};
            long bytes = 0;
            int oversize = 0;
            for (int size : sizes) {
                byte[] f = r.nextBoolean() ? dataFrame(r, false, 1, size - PacketFormat.Ipv4AllHeaderBytes()) : new byte[size];
                if (f[PacketFormat.EthType()] == 0) {
                    r.nextBytes(f);
                }
                b.send(f, false);
                bytes += size;
                oversize += size > 9216 ? 1 : 0;
            }
            b.drain();
            System.out.printf("trim queue IN_BYTES W=%d: %d frames, %d bytes, IN_BYTES %d%n", dataBytes, sizes.length, bytes,
                    b.counter(TrimQueueCsr.IN_BYTES));
            assertEquals(bytes & 0xFFFFFFFFL, b.counter(TrimQueueCsr.IN_BYTES));
            assertEquals(sizes.length, b.counter(TrimQueueCsr.IN_PACKETS));
            assertEquals(oversize, b.counter(TrimQueueCsr.DROP_OVERSIZE));
            assertCounters(b);
        });
    }

    /** Steps until every frame was taken, the model has applied the last one and a trimmed header of it left the trim FIFO. */
    static void settle(TrimQueueBench b) {
        while (!b.inputIdle()) {
            b.step();
        }
        for (int i = 0; i < TrimQueue.admissionClocks() + TrimQueue.trimBuildClocks() + 4; i++) {
            b.step();
        }
    }

    static Stream<Arguments> bigFrameWidths() {
        return Stream.of(Arguments.of(64), Arguments.of(8));
    }

    /**
     * RFC 791: a fragment (MF or a non-zero offset) carries no transport header to trust. With
     * room it leaves unchanged as other IP (CE-marked if ECN-capable, never control); with the
     * data queue full it is dropped whole (DROP_DATA_FULL), never trimmed: trimming wrote a
     * "transport header" over a later fragment's payload.
     */
    @Test
    void ipv4FragmentsAreOtherIpNeverTrimmed() {
        withBench(small(64), "fragments", (b, seed) -> {
            Random r = new Random(seed);
            b.csr.write(TrimQueueCsr.KMIN, 0);
            b.csr.write(TrimQueueCsr.KMAX, 1); // ECN-capable data is marked
            b.model.kMin = 0;
            b.model.kMax = 1;
            int fragments = 0, dfOnly = 0;
            b.patterns(r, 0, 0);
            for (int i = 0; i < 200; i++) {
                if (r.nextInt(4) == 0) {
                    byte[] f = dataFrame(r, false, r.nextInt(4), r.nextInt(300));
                    Packet.put16(f, PacketFormat.Ipv4FlagsFragment(), 0x4000); // DF only: not a fragment
                    new Packet(f).fixIpv4HeaderChecksum();
                    b.send(f, false);
                    dfOnly++;
                } else {
                    byte[] f = r.nextBoolean() ? dataFrame(r, false, r.nextInt(4), r.nextInt(300)) : controlFrame(r, false, r.nextInt(40));
                    b.send(fragment(r, f, r.nextInt(3)), false);
                    fragments++;
                }
            }
            b.drain();
            assertEquals(fragments + dfOnly, b.outData, "every fragment left as data, none as control");
            assertEquals(0, b.outControl);
            assertCounters(b);

            // The output held: fill the data queue until a transport frame is trimmed, then fragments of the same size.
            b.patterns(r, 0, 1.0);
            int size = 1500;
            while (b.model.outcome(Outcome.TRIM) == 0) {
                b.send(dataFrame(r, false, 2, size - PacketFormat.Ipv4AllHeaderBytes()), false);
                settle(b);
            }
            long trimmed = b.model.outcome(Outcome.TRIM);
            int whileFull = 30;
            for (int i = 0; i < whileFull; i++) {
                b.send(fragment(r, dataFrame(r, false, r.nextInt(4), size - PacketFormat.Ipv4AllHeaderBytes()), r.nextInt(3)), false);
            }
            while (!b.inputIdle()) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            System.out.printf("trim queue fragments: %d forwarded with room, %d dropped whole when full, %d trims%n",
                    fragments, b.counter(TrimQueueCsr.DROP_DATA_FULL), b.counter(TrimQueueCsr.TRIMMED));
            assertEquals(whileFull, b.counter(TrimQueueCsr.DROP_DATA_FULL), "every fragment that did not fit dropped whole");
            assertEquals(trimmed, b.counter(TrimQueueCsr.TRIMMED), "no fragment trimmed");
            assertCounters(b);
        });
    }

    /**
     * RFC 791 / RFC 1812 5.2.2: a wrong IPv4 header checksum is counted (BAD_IPV4_CHECKSUM) and
     * never repaired. With room the frame leaves unchanged: not CE-marked, not dropped as
     * non-ECT, control included. Without room it is not trimmed (the trimmed header would carry a
     * fresh checksum) but dropped whole, DROP_DATA_FULL. Back-to-back one-beat frames alternate
     * bad and good while the trim queue fills: a bad frame's trim entry is freed in time for the next.
     */
    @Test
    void badIpv4HeaderChecksumIsCountedAndNeverRepaired() {
        withBench(small(64), "bad_checksum", (b, seed) -> {
            Random r = new Random(seed);
            b.csr.write(TrimQueueCsr.CONTROL, 1);
            b.csr.write(TrimQueueCsr.KMIN, 0);
            b.csr.write(TrimQueueCsr.KMAX, 1); // every good ECN-capable packet marked, every good non-ECT one dropped
            b.model.dropNonEct = true;
            b.model.kMin = 0;
            b.model.kMax = 1;
            b.patterns(r, 0.2, 0); // the output keeps up: nothing trimmed
            int bad = 0, goodEct = 0, goodNonEct = 0;
            for (int i = 0; i < 300; i++) {
                int ecn = r.nextInt(4);
                byte[] f = switch (r.nextInt(4)) {
                    case 0 -> controlFrame(r, false, r.nextInt(40));
                    case 1 -> otherIp(r, dataFrame(r, false, ecn, r.nextInt(500)));
                    default -> dataFrame(r, false, ecn, r.nextInt(500));
                };
                boolean control = (new Packet(f).flags() & PacketFormat.ControlFlags()) != 0 && f[PacketFormat.Ipv4Protocol()] == 17
                        && new Packet(f).get16(PacketFormat.Ipv4UdpOffset() + PacketFormat.UdpDstPort()) == PacketFormat.TransportUdpPort();
                if (r.nextBoolean()) {
                    badChecksum(r, f);
                    bad++;
                } else if (!control) {
                    if (ecn != 0) {
                        goodEct++;
                    } else {
                        goodNonEct++;
                    }
                }
                b.send(f, false);
            }
            b.drain();
            assertEquals(bad, b.counter(TrimQueueCsr.BAD_IPV4_CHECKSUM));
            assertEquals(goodEct, b.counter(TrimQueueCsr.MARKED), "only good headers are marked");
            assertEquals(goodNonEct, b.counter(TrimQueueCsr.DROP_NON_ECT), "only good headers are dropped as non-ECT");
            assertCounters(b);

            // Full: hold the output, fill the data queue until a trim, then one-beat frames back to back.
            b.csr.write(TrimQueueCsr.CONTROL, 0);
            b.model.dropNonEct = false;
            long dataFullBefore = b.counter(TrimQueueCsr.DROP_DATA_FULL); // CSRs only while idle: the master steps the clock alone
            b.patterns(r, 0, 1.0);
            for (int frameSize : new int[] {1554, 64}) { // until a frame of this size is trimmed: less room than it
                long trims = b.model.outcome(Outcome.TRIM);
                while (b.model.outcome(Outcome.TRIM) == trims) {
                    b.send(dataFrame(r, false, 2, frameSize - PacketFormat.Ipv4AllHeaderBytes()), false);
                    settle(b);
                }
            }
            int badFull = 0;
            for (int i = 0; i < 2 * (8 + 4); i++) {
                byte[] f = dataFrame(r, false, 2, 64 - PacketFormat.Ipv4AllHeaderBytes());
                if (i % 2 == 0) {
                    badChecksum(r, f);
                    badFull++;
                }
                b.send(f, false);
            }
            while (!b.inputIdle()) {
                b.step();
            }
            b.patterns(r, 0, 0);
            b.drain();
            System.out.printf("trim queue bad checksums: %d forwarded unchanged, %d dropped instead of trimmed; %d trimmed, %d trim full%n",
                    bad, badFull, b.counter(TrimQueueCsr.TRIMMED), b.counter(TrimQueueCsr.DROP_TRIM_FULL));
            assertEquals(badFull, b.counter(TrimQueueCsr.DROP_DATA_FULL) - dataFullBefore, "bad headers dropped, not trimmed");
            assertEquals(bad + badFull, b.counter(TrimQueueCsr.BAD_IPV4_CHECKSUM));
            assertTrue(b.counter(TrimQueueCsr.DROP_TRIM_FULL) > 0, "the trim queue did not fill");
            assertCounters(b);
        });
    }

    /** RED with KMIN above KMAX (docs): a step at KMAX, every ECN-capable packet marked at or above it, none below. */
    @Test
    void kminAboveKmaxIsAStepAtKmax() {
        withBench(small(64), "kmin_above_kmax", (b, seed) -> {
            Random r = new Random(seed);
            long kMin = 20000, kMax = 8000;
            b.csr.write(TrimQueueCsr.KMIN, kMin);
            b.csr.write(TrimQueueCsr.KMAX, kMax);
            b.model.kMin = kMin;
            b.model.kMax = kMax;
            for (double backpressure : new double[] {0.6, 0.1, 0.7, 0}) {
                b.patterns(r, 0, backpressure);
                for (int i = 0; i < 400; i++) {
                    b.send(dataFrame(r, r.nextBoolean(), 1 + r.nextInt(2), r.nextInt(1400)), false);
                }
                b.drain();
            }
            int above = 0, below = 0;
            for (long[] sample : b.model.redSamples) {
                assertEquals(sample[0] >= kMax ? 1 : 0, sample[1], "occupancy " + sample[0]);
                above += sample[0] >= kMax ? 1 : 0;
                below += sample[0] < kMax ? 1 : 0;
            }
            System.out.printf("trim queue KMIN > KMAX: %d packets at or above KMAX all marked, %d below none%n", above, below);
            assertTrue(above > 50 && below > 50);
            assertEquals(above, b.counter(TrimQueueCsr.MARKED));
            assertCounters(b);
        });
    }

    /**
     * docs, Timing diagram: with an empty queue and the output ready, a data or a control packet's
     * first beat is taken on m_axis 14 clocks after its tlast was taken (admitted 4 clocks after
     * it); a trimmed header leaves the trim queue (io_dequeue trimPop) 10 clocks after its tlast.
     */
    @Test
    void latencyFromTlastToTheOutput() {
        withBench(small(64), "latency", (b, seed) -> {
            Random r = new Random(seed);
            b.recordBeats = true;
            b.recordStarts = true;
            for (boolean control : new boolean[] {false, true, false, true}) {
                b.outputBeatClocks.clear();
                b.send(control ? controlFrame(r, r.nextBoolean(), r.nextInt(40)) : dataFrame(r, r.nextBoolean(), 1, r.nextInt(2000)), false);
                b.drain();
                assertEquals(14, b.outputBeatClocks.get(0) - b.lastTlastClock, control ? "control" : "data");
            }
            // The output held on a long data packet, the data queue filled: the next transport frame is trimmed.
            b.patterns(r, 0, 1.0);
            while (b.model.outcome(Outcome.TRIM) == 0) {
                b.send(dataFrame(r, false, 2, 1500), false);
                settle(b);
            }
            assertEquals(1, b.trimPops.size());
            assertEquals(10, b.trimPops.get(0) - b.lastTlastClock, "tlast to trimPop");
            b.patterns(r, 0, 0);
            b.drain();
            assertCounters(b);
        });
    }

    /** docs: unmapped addresses read 0, writes to them and to read-only CSRs are ignored; every response is OKAY. */
    @Test
    void unmappedAndReadOnlyCsrAccessesAreIgnoredWithOkay() {
        withBench(small(64), "csr_okay", (b, seed) -> {
            Random r = new Random(seed);
            b.send(dataFrame(r, false, 1, 100), false);
            b.drain();
            long capacity = b.counter(TrimQueueCsr.CAPACITY);
            assertEquals(32768, capacity);
            for (int address : new int[] {0x34, 0x3C, 0x9C, 0xF8}) {
                b.csr.write(address, 0xFFFFFFFFL);
                assertEquals(0, b.csr.lastResponse(), "write 0x" + Integer.toHexString(address));
                assertEquals(0, b.counter(address), "read 0x" + Integer.toHexString(address));
                assertEquals(0, b.csr.lastResponse());
            }
            long version = b.counter(TrimQueueCsr.VERSION);
            b.csr.write(TrimQueueCsr.VERSION, 0);
            assertEquals(version, b.counter(TrimQueueCsr.VERSION), "VERSION is read-only");
            b.csr.write(TrimQueueCsr.CAPACITY, 1);
            assertEquals(0, b.csr.lastResponse());
            b.csr.write(TrimQueueCsr.IN_PACKETS, 0);
            assertEquals(capacity, b.counter(TrimQueueCsr.CAPACITY));
            assertEquals(1, b.counter(TrimQueueCsr.IN_PACKETS), "a write to a counter is ignored");
            assertCounters(b);
        });
    }
}
