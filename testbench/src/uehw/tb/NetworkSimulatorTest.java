// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import uehw.bench.SimWorker;
import uehw.bench.csr.RepsCsr;
import uehw.bench.reps.RepsBench;
import uehw.bench.smartt.SmarttBench;
import uehw.experiments.EngineIncast;
import uehw.experiments.FatTreeIncast;
import uehw.hw.reps.RepsConfig;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.reps.RepsModel;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Port;
import uehw.netsim.RepsEntropies;
import uehw.netsim.SmarttWindows;
import uehw.netsim.WindowControl;
import uehw.netsim.rtl.ClockedEgress;
import uehw.netsim.rtl.NicCcRtlEngines;
import uehw.netsim.rtl.RepsRtlEntropies;
import uehw.netsim.rtl.SmarttRtlWindows;
import uehw.netsim.rtl.TrimQueueEngine;
import uehw.netsim.rtl.TrimQueueModelEngine;
import uehw.netsim.rtl.TrimQueueRtlEngine;

/**
 * The packet-level network simulator (uehw.netsim.Network): its topologies route as the fat tree
 * is drawn, a run is deterministic for a seed, packets are conserved, and the authors' incast
 * completes within what the bottleneck link allows. Expectations are physical (link rates,
 * latencies, hop counts) and counter conservation, not the simulator's own output.
 */
@ExtendWith(BenchExtension.class)
class NetworkSimulatorTest {
    /** Serialisation of {@code bytes} at 800 Gb/s, in ps. */
    private static long ser(long bytes) {
        return Math.round(bytes * 8000.0 / FatTreeIncast.GBPS);
    }

    /**
     * A one-packet flow's completion is its data packet's hops plus its ACK's hops back, each hop
     * a serialisation and 1 us: 2 hops under one ToR, 4 in one pod, 6 across pods (k = 8: hosts
     * 0-3 on ToR 0, 0-15 in pod 0).
     */
    @Tag("netsim")
    @Test
    void oneMessageTakesItsShortestPathEachWay() {
        int[][] pairs = {{0, 1, 2}, {0, 5, 4}, {0, 127, 6}, {77, 63, 6}, {77, 64, 4}};
        for (int[] pair : pairs) {
            Network net = FatTreeIncast.build(1);
            Flow f = net.addFlow(pair[0], pair[1], 1000, 0);
            assertTrue(net.run(1_000_000));
            long hops = pair[2];
            long expectedPs = hops * (ser(1000 + FatTreeIncast.HEADER) + FatTreeIncast.LINK_NS * 1000)
                    + hops * (ser(64) + FatTreeIncast.LINK_NS * 1000);
            assertEquals(expectedPs, f.finishedPs, pair[0] + " -> " + pair[1] + " over " + hops + " hops each way");
        }
    }

    /**
     * The 8:1 incast of the authors' setup: every flow completes and every byte is ACKed once;
     * every data packet sent reached its receiver whole or trimmed (nothing is dropped here), every
     * trimmed header was NACKed; no flow beats the line rate, and the last one ends within 3x of
     * the ideal (all bytes through the receiver's link, plus one base RTT).
     */
    @Tag("netsim")
    @Test
    void authorsIncastCompletesConservesPacketsAndRespectsTheLineRate() throws Exception {
        FatTreeIncast.Result r = FatTreeIncast.run(8, 1, Path.of("build", "experiments", "fat-tree-incast-8.csv"));
        System.out.print(r.table());
        assertTrue(r.finished(), "every flow completed");
        long sent = 0, nacks = 0, lastFct = 0;
        for (Flow f : r.flows()) {
            sent += f.packetsSent;
            nacks += f.nacks;
            lastFct = Math.max(lastFct, f.fctNs());
            long packets = (FatTreeIncast.FLOW_BYTES + FatTreeIncast.MTU - 1) / FatTreeIncast.MTU;
            long alone = (FatTreeIncast.FLOW_BYTES + packets * FatTreeIncast.HEADER) * 8 / (long) FatTreeIncast.GBPS;
            assertTrue(f.fctNs() >= alone, "flow " + f.id + " faster than its link: " + f.fctNs() + " ns");
            assertEquals(0, f.timeouts, "with trimming, no loss waits for a timeout");
        }
        assertTrue(r.trims() > 0 && r.quickAdapts().stream().allMatch(q -> !q.isEmpty()), "the incast trims and QuickAdapt reacts");
        assertEquals(r.trimsEverywhere(), nacks, "every trimmed header NACKed, wherever it was trimmed");
        assertTrue(r.trims() > r.trimsEverywhere() / 2, "most trims at the receiver's port");
        assertTrue(lastFct >= r.idealNs() - FatTreeIncast.BASE_RTT_NS, "the last flow cannot beat the receiver's link");
        assertTrue(lastFct <= 3 * r.idealNs(), "the last flow within 3x the ideal: " + lastFct + " ns");
        assertTrue(sent >= r.flows().size() * (FatTreeIncast.FLOW_BYTES / FatTreeIncast.MTU));
    }

    /** Packets are conserved on every port and over the network, and a run repeats exactly for its seed. */
    @Tag("netsim")
    @Test
    void runsAreDeterministicAndConservePackets() {
        long seed = BenchExtension.seed();
        long[] digests = new long[3];
        for (int run = 0; run < 3; run++) {
            Network net = FatTreeIncast.build(run < 2 ? seed : seed + 1);
            for (int i = 0; i < 8; i++) {
                net.addFlow(16 * i + 3, 127 - i, 300_000, i * 500L);
            }
            assertTrue(net.run(100_000_000), "seed " + seed + ": every flow completed");
            digests[run] = net.traceDigest();
            long sent = net.flows.stream().mapToLong(f -> f.packetsSent).sum();
            long dropped = 0, trims = 0;
            for (Port p : net.ports.values()) {
                dropped += p.dropsDataFull + p.dropsTrimFull + p.lostOnFailedLink;
                trims += p.trims;
            }
            assertEquals(sent, net.deliveredPackets + dropped, "seed " + seed + ": data packets conserved");
            assertEquals(trims, net.deliveredTrimmed, "seed " + seed + ": every trimmed header arrived");
            for (Flow f : net.flows) {
                assertTrue(f.finished(), "seed " + seed + ": flow " + f.id);
            }
        }
        assertEquals(digests[0], digests[1], "seed " + seed + ": the same seed, the same run");
        assertNotEquals(digests[0], digests[2], "seed " + seed + ": another REPS seed takes other entropies");
    }

    /** Every window update with its time and flow, in order. */
    private static final class WindowLog implements Network.Trace {
        final List<String> lines = new java.util.ArrayList<>();

        @Override
        public void window(long timePs, Flow f, long cwnd) {
            lines.add(timePs + " flow " + f.id + " cwnd " + cwnd);
        }

        @Override
        public void entropy(long timePs, Flow f, int entropy) {
            lines.add(timePs + " flow " + f.id + " ev " + entropy);
        }

        @Override
        public void finished(Flow f) {
            lines.add(f.finishedPs + " flow " + f.id + " done");
        }
    }

    /** A 4:1 incast of 1 MB flows from four pods into host 127 and a cross flow, on the authors' fat tree. */
    private static Network smallScenario(Network net) {
        for (int i = 0; i < 4; i++) {
            net.addFlow(20 * i + 1, 127, 1_000_000, 0);
        }
        net.addFlow(100, 40, 500_000, 3_000);
        return net;
    }

    /**
     * The closed-loop proof: the same network run with the windows from the Verilated SMaRTT RTL
     * (uehw.netsim.rtl.SmarttRtlWindows, one unit for all hosts' flows) gives the identical trace as
     * with the fixed-point model: every window update, entropy and completion at the same time; in
     * SMaRTT's paper profile and in its reference-code profile.
     */
    @Tag("rtl")
    @ParameterizedTest(name = "reference profile {0}")
    @ValueSource(booleans = {false, true})
    void hardwareInTheLoopGivesTheModelsTrace(boolean referenceProfile) {
        long seed = BenchExtension.seed();
        WindowLog modelLog = new WindowLog();
        Network model = smallScenario(FatTreeIncast.build(seed, referenceProfile)).trace(modelLog);
        assertTrue(model.run(100_000_000), "seed " + seed + ": the model run completes");
        SmarttTest.compile(SmarttTest.DEFAULT).run(referenceProfile ? "network_hil_reference" : "network_hil", seed, sim -> {
            SmarttBench bench = new SmarttBench(sim);
            bench.writeParams(FatTreeIncast.smartt(referenceProfile));
            SmarttRtlWindows rtl = new SmarttRtlWindows(bench, FatTreeIncast.config().flowsPerHost());
            WindowLog rtlLog = new WindowLog();
            Network hw = smallScenario(FatTreeIncast.build(seed, (host, flows) -> rtl.forHost(host))).trace(rtlLog);
            assertTrue(hw.run(100_000_000), "seed " + seed + ": the RTL run completes");
            System.out.printf("hardware in the loop: %d window events through the RTL in %d clocks; %d trace lines%n",
                    rtl.events, rtl.clocks, rtlLog.lines.size());
            assertSameTrace(modelLog, rtlLog, seed);
            assertEquals(model.traceDigest(), hw.traceDigest());
            assertTrue(model.flows.stream().anyMatch(f -> f.nacks > 0), "the scenario trims (NACKs reach the RTL)");
        });
    }

    /**
     * The closed-loop proof at scale, and its benchmark: the SMaRTT authors' 32:1 incast (2 MB from
     * each of 32 hosts to host 127 of the k=8 fat tree) with every NIC's windows from the Verilated
     * SMaRTT RTL gives the digest of the fixed-point model's run; prints the events, RTL clocks and
     * the wall time of both runs; in both of SMaRTT's profiles.
     */
    @Tag("rtl")
    @ParameterizedTest(name = "reference profile {0}")
    @ValueSource(booleans = {false, true})
    void hardwareInTheLoopOnTheAuthors32To1Incast(boolean referenceProfile) {
        long seed = BenchExtension.seed();
        int senders = 32;
        Network model = FatTreeIncast.build(seed, referenceProfile);
        for (int i = 0; i < senders; i++) {
            model.addFlow(i, FatTreeIncast.RECEIVER, FatTreeIncast.FLOW_BYTES, 0);
        }
        long t0 = System.nanoTime();
        assertTrue(model.run(1_000_000_000), "seed " + seed + ": the model run completes");
        double modelSeconds = (System.nanoTime() - t0) / 1e9;
        SmarttTest.compile(SmarttTest.DEFAULT).run(referenceProfile ? "network_hil_32_reference" : "network_hil_32", seed, sim -> {
            SmarttBench bench = new SmarttBench(sim);
            bench.writeParams(FatTreeIncast.smartt(referenceProfile));
            SmarttRtlWindows rtl = new SmarttRtlWindows(bench, FatTreeIncast.config().flowsPerHost());
            Network hw = FatTreeIncast.build(seed, (host, flows) -> rtl.forHost(host));
            for (int i = 0; i < senders; i++) {
                hw.addFlow(i, FatTreeIncast.RECEIVER, FatTreeIncast.FLOW_BYTES, 0);
            }
            long t1 = System.nanoTime();
            assertTrue(hw.run(1_000_000_000), "seed " + seed + ": the RTL run completes");
            double rtlSeconds = (System.nanoTime() - t1) / 1e9;
            System.out.printf(java.util.Locale.ROOT, "hardware in the loop, 32:1 incast on the k=8 fat tree, %s profile (seed %d): "
                            + "%d window events through the RTL in %d clocks; model run %.2f s, RTL run %.2f s (%.0f events/s)%n",
                    referenceProfile ? "reference" : "paper", seed,
                    rtl.events, rtl.clocks, modelSeconds, rtlSeconds, rtl.events / rtlSeconds);
            assertEquals(model.traceDigest(), hw.traceDigest(), "seed " + seed + ": the RTL run's trace is the model's");
            assertTrue(rtl.events > senders * FatTreeIncast.FLOW_BYTES / 4096, "an event per data packet at least");
        });
    }

    /**
     * `hwgen experiment fat-tree-incast` writes what docs/network-simulator.md lists: per-run
     * samples and per-flow CSVs, and the plots as PNG and SVG.
     */
    @Tag("netsim")
    @Test
    void experimentCommandWritesCsvsAndPlots() throws Exception {
        Path out = Path.of("build", "experiments", "test-fat-tree-incast");
        assertEquals(0, uehw.cli.Hwgen.commandLine().execute("experiment", "fat-tree-incast", "--senders", "2,4",
                "--out", out.toString()));
        for (int n : new int[] {2, 4}) {
            List<String> flows = java.nio.file.Files.readAllLines(out.resolve("fat-tree-incast-" + n + "-flows.csv"));
            assertEquals(n + 1, flows.size(), "a line a flow");
            List<String> samples = java.nio.file.Files.readAllLines(out.resolve("fat-tree-incast-" + n + ".csv"));
            assertEquals(2 + n, samples.get(1).split(",").length, "time, queue and a window a flow");
            for (String plot : new String[] {"windows-" + n, "queue-" + n}) {
                byte[] png = java.nio.file.Files.readAllBytes(out.resolve(plot + ".png"));
                assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', plot + ".png");
                assertTrue(java.nio.file.Files.readString(out.resolve(plot + ".svg")).contains("<svg"), plot + ".svg");
            }
        }
        assertTrue(java.nio.file.Files.size(out.resolve("fct-cdf.png")) > 1000);
        assertEquals(2, uehw.cli.Hwgen.commandLine().execute("experiment", "fat-tree-incast", "--senders", "0"),
                "a bad incast degree is refused");
    }

    /**
     * `hwgen experiment fat-tree-incast --queue clocked` and `--queue rtl` (the receiver's port on
     * the trimming queue's model at the clock, and on its Verilated RTL) write the same results,
     * flow for flow; a bad --queue is refused.
     */
    @Tag("rtl")
    @Test
    void experimentWithTheQueueRtlWritesTheClockedModelsResults() throws Exception {
        Path out = Path.of("build", "experiments", "test-queue");
        for (String q : new String[] {"clocked", "rtl"}) {
            assertEquals(0, uehw.cli.Hwgen.commandLine().execute("experiment", "fat-tree-incast", "--senders", "2", "--profile",
                    "reference", "--queue", q, "--out", out.resolve(q).toString()), q);
        }
        for (String f : new String[] {"summary.csv", "fat-tree-incast-reference-2-flows.csv", "fat-tree-incast-reference-2.csv"}) {
            assertEquals(java.nio.file.Files.readAllLines(out.resolve("clocked").resolve(f)),
                    java.nio.file.Files.readAllLines(out.resolve("rtl").resolve(f)), f);
        }
        assertEquals(2, uehw.cli.Hwgen.commandLine().execute("experiment", "fat-tree-incast", "--queue", "fifo"),
                "a bad --queue is refused");
    }

    private static void assertSameTrace(WindowLog model, WindowLog rtl, long seed) {
        for (int i = 0; i < Math.min(model.lines.size(), rtl.lines.size()); i++) {
            assertEquals(model.lines.get(i), rtl.lines.get(i), "seed " + seed + ": trace line " + (i + 1));
        }
        assertEquals(model.lines.size(), rtl.lines.size(), "seed " + seed + ": trace length");
    }

    /** The trace of a clocked port: every packet leaving it, with its time, CE and trimmed, beside the windows. */
    private static final class QueueLog implements Network.Trace {
        final WindowLog windows = new WindowLog();
        final String portName;

        QueueLog(String portName) {
            this.portName = portName;
        }

        @Override
        public void window(long timePs, Flow f, long cwnd) {
            windows.window(timePs, f, cwnd);
        }

        @Override
        public void entropy(long timePs, Flow f, int entropy) {
            windows.entropy(timePs, f, entropy);
        }

        @Override
        public void finished(Flow f) {
            windows.finished(f);
        }

        @Override
        public void departed(long timePs, Port port, uehw.netsim.Packet p) {
            if (port.name.equals(portName)) {
                windows.lines.add(timePs + " " + port.name + " " + p.kind + " flow " + p.flow + " seq " + p.seq + " " + p.bytes
                        + " B" + (p.ce ? " CE" : "") + (p.trimmed ? " trimmed" : ""));
            }
        }
    }

    /** A digest of every packet leaving one port: time, flow, sequence, bytes, CE and trimmed. */
    private static final class DepartureDigest implements Network.Trace {
        final String portName;
        long digest = 0x243F6A8885A308D3L;
        long departures;

        DepartureDigest(String portName) {
            this.portName = portName;
        }

        @Override
        public void departed(long timePs, Port port, uehw.netsim.Packet p) {
            if (port.name.equals(portName)) {
                departures++;
                for (long v : new long[] {timePs, p.flow, p.seq, p.bytes, (p.ce ? 1 : 0) | (p.trimmed ? 2 : 0)}) {
                    digest = (digest ^ v) * 0x100000001B3L + (digest >>> 29);
                }
            }
        }
    }

    /** The receiver's downlink port at the clock, on the engine given (4 clocks a beat: the switch's speedup). */
    static Port clockedDownlink(Network net, TrimQueueEngine engine) {
        Port port = net.downlinkTo(FatTreeIncast.RECEIVER);
        ClockedEgress.attach(port, engine, FatTreeIncast.CLOCKS_PER_BEAT);
        return port;
    }

    /**
     * The trimming queue in the loop: the small scenario with the receiver's ToR downlink (the
     * incast's bottleneck) on the Verilated trimming queue (real frames on AXI4-Stream at 512 bits,
     * m_axis ready paced at the 800 Gb/s link) gives the identical trace as the same run with the
     * queue's model and its clock timing: every packet that leaves that port (time, CE, trimmed),
     * every window update, entropy and completion.
     */
    @Tag("rtl")
    @Test
    void trimQueueInTheLoopGivesTheModelsTrace() {
        long seed = BenchExtension.seed();
        TrimQueueConfig cfg = FatTreeIncast.receiverQueue();
        QueueLog modelLog = new QueueLog("tor31->host127");
        Network model = smallScenario(FatTreeIncast.build(seed, true)).trace(modelLog);
        Port modelPort = clockedDownlink(model, new TrimQueueModelEngine(cfg));
        assertTrue(model.run(100_000_000), "seed " + seed + ": the model run completes");
        TrimQueueRtlEngine.simulation(cfg).run("network_hil", seed, sim -> {
            sim.reset(16);
            TrimQueueRtlEngine rtl = new TrimQueueRtlEngine(sim);
            QueueLog rtlLog = new QueueLog("tor31->host127");
            Network hw = smallScenario(FatTreeIncast.build(seed, true)).trace(rtlLog);
            Port hwPort = clockedDownlink(hw, rtl);
            long t0 = System.nanoTime();
            assertTrue(hw.run(100_000_000), "seed " + seed + ": the RTL run completes");
            System.out.printf(java.util.Locale.ROOT, "trim queue in the loop (seed %d): %d clocks, %d frames out of the RTL checked;"
                            + " %d departures, %d trimmed, %d marked; %.1f s%n", seed, rtl.clocks, rtl.framesChecked,
                    hwPort.departures, hwPort.trims, hwPort.marks, (System.nanoTime() - t0) / 1e9);
            assertSameTrace(modelLog.windows, rtlLog.windows, seed);
            assertEquals(model.traceDigest(), hw.traceDigest());
            assertTrue(hwPort.trims > 0 && hwPort.marks > 0, "the bottleneck trims and marks");
            assertEquals(modelPort.departures, rtl.framesChecked, "every frame the RTL sent was checked");
        });
    }

    /**
     * The closed loop at scale with two designs in it, and its benchmark: the SMaRTT authors' 8:1
     * incast (reference profile) with every NIC's windows from the Verilated SMaRTT RTL and the
     * bottleneck (the receiver's ToR downlink) on the Verilated trimming queue gives the digest of
     * the same run on the models; prints the clocks, events and wall time of both runs.
     */
    @Tag("rtl")
    @Test
    void smarttAndTrimQueueInTheLoopOnTheAuthors8To1Incast() {
        long seed = BenchExtension.seed();
        int senders = 8;
        TrimQueueConfig cfg = FatTreeIncast.receiverQueue();
        DepartureDigest modelDepartures = new DepartureDigest("tor31->host127");
        Network model = FatTreeIncast.build(seed, true).trace(modelDepartures);
        Port modelPort = clockedDownlink(model, new TrimQueueModelEngine(cfg));
        for (int i = 0; i < senders; i++) {
            model.addFlow(i, FatTreeIncast.RECEIVER, FatTreeIncast.FLOW_BYTES, 0);
        }
        long t0 = System.nanoTime();
        assertTrue(model.run(1_000_000_000), "seed " + seed + ": the model run completes");
        double modelSeconds = (System.nanoTime() - t0) / 1e9;
        TrimQueueRtlEngine.simulation(cfg).run("network_hil_8", seed, sim -> {
            sim.reset(16);
            try (SimWorker<uehw.hw.smartt.Smartt> smartt = new SimWorker<>(SmarttTest.compile(SmarttTest.DEFAULT),
                    "network_hil_8", seed)) {
                SmarttRtlWindows windows = smartt.call(s -> {
                    SmarttBench bench = new SmarttBench(s);
                    bench.writeParams(FatTreeIncast.smartt(true));
                    return new SmarttRtlWindows(bench, FatTreeIncast.config().flowsPerHost());
                });
                TrimQueueRtlEngine queue = new TrimQueueRtlEngine(sim);
                DepartureDigest hwDepartures = new DepartureDigest("tor31->host127");
                Network hw = FatTreeIncast.build(seed, (host, flows) -> smartt.proxy(WindowControl.class, windows.forHost(host)))
                        .trace(hwDepartures);
                Port hwPort = clockedDownlink(hw, queue);
                for (int i = 0; i < senders; i++) {
                    hw.addFlow(i, FatTreeIncast.RECEIVER, FatTreeIncast.FLOW_BYTES, 0);
                }
                long t1 = System.nanoTime();
                assertTrue(hw.run(1_000_000_000), "seed " + seed + ": the RTL run completes");
                double rtlSeconds = (System.nanoTime() - t1) / 1e9;
                long events = hw.loop.executed();
                System.out.printf(java.util.Locale.ROOT, "SMaRTT and the trimming queue in the loop, 8:1 incast on the k=8 fat tree,"
                                + " reference profile (seed %d): %d window events through the SMaRTT RTL, %d clocks of the queue RTL"
                                + " (%d frames, %d trimmed, %d marked; s_axis backlog at most %d B); model run %.2f s, RTL run %.1f s"
                                + " (%.0f network events/s, %.0f queue clocks/s)%n", seed, windows.events, queue.clocks,
                        queue.framesChecked, hwPort.trims, hwPort.marks, hwPort.inputPeakBytes(), modelSeconds, rtlSeconds,
                        events / rtlSeconds, queue.clocks / rtlSeconds);
                assertEquals(model.traceDigest(), hw.traceDigest(), "seed " + seed + ": the RTL run's trace is the model's");
                assertEquals(modelPort.departures, queue.framesChecked, "the same frames left the bottleneck");
                assertEquals(modelDepartures.departures, hwDepartures.departures);
                assertEquals(modelDepartures.digest, hwDepartures.digest, "seed " + seed
                        + ": every packet left the bottleneck at the same time, CE and trimmed alike");
                assertEquals(modelPort.marks, hwPort.marks);
                assertEquals(modelPort.trims, hwPort.trims);
            }
        });
    }

    /**
     * REPS in the loop: the same scenario with the entropies from the Verilated REPS RTL (one unit
     * for all hosts, uehw.netsim.rtl.RepsRtlEntropies) gives the identical trace as with one REPS model
     * shared the same way: every entropy, window and completion at the same picosecond.
     */
    /**
     * The NIC engine in the loop (docs/nic-engine.md, "In the network simulator"): with every
     * sender's NIC the engine's RTL (one Verilated nic-cc a sender on one 250 MHz clock), the
     * authors' 8:1 fat-tree incast (NSCC, 2 MB a sender) and a 4:1 of 500 KB (SMaRTT with the
     * engine's REPS, Swift, SMaRTT with DASR's pacing and a DASR unit at the receiver) give the
     * engines' model run grant for grant (time, flow, PSN, bytes, resend, entropy), the same
     * completions and the same digest.
     */
    @Tag("rtl")
    @ParameterizedTest
    @ValueSource(strings = {"nscc", "smartt reps", "swift", "smartt dasr"})
    void engineInTheLoopGivesTheModelsTrace(String variant) {
        long seed = BenchExtension.seed();
        String law = variant.split(" ")[0];
        String lb = variant.contains(" reps") ? "reps" : "none";
        String pacing = variant.contains(" dasr") ? "dasr" : "none";
        EngineIncast.Scenario s = variant.equals("nscc") ? EngineIncast.fatTree(law, lb, 8, FatTreeIncast.FLOW_BYTES, seed)
                : EngineIncast.fatTree(law, lb, pacing, 4, 500_000, seed);
        List<String> modelGrants = new ArrayList<>();
        EngineIncast.Result model = EngineIncast.run(s, NicCcRtlEngines.models(s.cfg(), s.senders().length, s.rtoNs()), grantLog(modelGrants));
        List<String> rtlGrants = new ArrayList<>();
        EngineIncast.Result rtl = EngineIncast.runRtl(s, seed, grantLog(rtlGrants));
        System.out.printf("engine in the loop (%s): %s%n  %d grants, %d engine edges, %.2f s (RTL) against %.2f s (model)%n", law,
                rtl.row(), rtlGrants.size(), rtl.engineEdges(), rtl.wallSeconds(), model.wallSeconds());
        if (!lb.equals("none")) {
            // the engine's REPS gave the packets' entropies: many of them
            assertTrue(rtlGrants.stream().map(g -> g.substring(g.indexOf(" entropy "))).distinct().count() > 16, "the engine's entropies");
        }
        assertTrue(model.finished() && rtl.finished(), "seed " + seed + ": both runs complete");
        for (int i = 0; i < Math.min(modelGrants.size(), rtlGrants.size()); i++) {
            assertEquals(modelGrants.get(i), rtlGrants.get(i), "seed " + seed + ": grant " + i);
        }
        assertEquals(modelGrants.size(), rtlGrants.size(), "grants");
        assertEquals(model.digest(), rtl.digest(), "trace digest");
        assertEquals(model.tailFctUs(), rtl.tailFctUs(), "tail completion");
        // the incast reached the engines' law through trims (NACKs) and the windows (more packets than one window)
        assertTrue(!law.equals("nscc") || rtl.nacks() > 100, "NACKs " + rtl.nacks());
        assertTrue(rtlGrants.size() > 400, "grants " + rtlGrants.size());
    }

    private static Network.Trace grantLog(List<String> log) {
        return new Network.Trace() {
            @Override
            public void grant(long timePs, Flow f, long psn, int bytes, boolean resend, int entropy) {
                log.add(timePs + " flow " + f.id + " psn " + psn + " bytes " + bytes + (resend ? " resend" : "") + " entropy " + entropy);
            }
        };
    }

    @Tag("rtl")
    @Test
    void repsInTheLoopGivesTheModelsTrace() {
        long seed = BenchExtension.seed();
        long prngSeed = (seed & 0xFFFFFFFFL) | 1;
        RepsConfig cfg = RepsTest.config("reps", 1024, (int) FatTreeIncast.FREEZING_TIMEOUT_NS, 37);
        RepsModel shared = RepsTest.model(cfg);
        shared.setNumPktsBdp(FatTreeIncast.NUM_PKTS_BDP);
        shared.setEvsSize(FatTreeIncast.EVS_SIZE);
        shared.reseed(prngSeed);
        WindowLog modelLog = new WindowLog();
        Network model = smallScenario(FatTreeIncast.build((h, f) -> new SmarttWindows(f, FatTreeIncast.smartt()),
                RepsEntropies.shared(shared))).trace(modelLog);
        assertTrue(model.run(100_000_000), "seed " + seed + ": the model run completes");
        RepsTest.compile(cfg).run("network_hil", seed, sim -> {
            RepsBench bench = new RepsBench(sim, RepsTest.model(cfg));
            bench.csr.write(RepsCsr.NUM_PKTS_BDP, FatTreeIncast.NUM_PKTS_BDP);
            bench.model.setNumPktsBdp(FatTreeIncast.NUM_PKTS_BDP);
            bench.csr.write(RepsCsr.EVS_SIZE, FatTreeIncast.EVS_SIZE);
            bench.model.setEvsSize(FatTreeIncast.EVS_SIZE);
            bench.csr.write(RepsCsr.SEED, prngSeed);
            bench.model.reseed(prngSeed);
            RepsRtlEntropies rtl = new RepsRtlEntropies(bench);
            WindowLog rtlLog = new WindowLog();
            Network hw = smallScenario(FatTreeIncast.build((h, f) -> new SmarttWindows(f, FatTreeIncast.smartt()),
                    rtl.forHosts())).trace(rtlLog);
            assertTrue(hw.run(100_000_000), "seed " + seed + ": the RTL run completes");
            System.out.printf("REPS in the loop: %d RTL clocks; %d trace lines%n", rtl.clocks, rtlLog.lines.size());
            assertSameTrace(modelLog, rtlLog, seed);
            assertTrue(modelLog.lines.stream().filter(l -> l.contains(" ev ")).map(l -> l.substring(l.indexOf(" ev ")))
                    .distinct().count() > 8, "the flows used many entropies");
        });
    }

    /** The other experiment commands run and write their CSVs (a line a mode or law, a header first). */
    @Tag("netsim")
    @Test
    void otherExperimentCommandsWriteTheirCsvs() throws Exception {
        Path out = Path.of("build", "experiments", "test-commands");
        String[][] runs = {{"link-failure", "link-failure.csv", "4"}, {"dasr-incast", "dasr-incast.csv", "7"},
            {"swift-vs-smartt", "swift-vs-smartt.csv", "6"}}; // swift-vs-smartt: smartt, swift, swift-fixed, nscc, nscc-fixed
        for (String[] r : runs) {
            Path dir = out.resolve(r[0]);
            String[] args = r[0].equals("dasr-incast") ? new String[] {"experiment", r[0], "--rounds", "2", "--out", dir.toString()}
                    : new String[] {"experiment", r[0], "--out", dir.toString()};
            assertEquals(0, uehw.cli.Hwgen.commandLine().execute(args), r[0]);
            assertEquals(Integer.parseInt(r[2]), java.nio.file.Files.readAllLines(dir.resolve(r[1])).size(), r[0] + " lines");
        }
        assertEquals(List.of("smartt", "swift", "swift-fixed", "nscc", "nscc-fixed"), java.nio.file.Files.readAllLines(
                out.resolve("swift-vs-smartt").resolve("swift-vs-smartt.csv")).stream().skip(1).map(l -> l.split(",")[0]).toList());
        assertTrue(java.nio.file.Files.size(out.resolve("dasr-incast").resolve("incast-completion.png")) > 1000);
        assertEquals(2, uehw.cli.Hwgen.commandLine().execute("experiment", "dasr-incast", "--rounds", "0"), "a bad round count is refused");
        Path deflection = out.resolve("deflection");
        assertEquals(0, uehw.cli.Hwgen.commandLine().execute("experiment", "deflection", "--out", deflection.toString()));
        List<String> messages = java.nio.file.Files.readAllLines(deflection.resolve("deflection.csv"));
        assertEquals(messages.stream().filter(l -> l.startsWith("off,")).count(), messages.stream().filter(l -> l.startsWith("on,")).count(),
                "the same messages with IOFD off and on");
        assertTrue(messages.size() > 2001, "a line a message and run");
        assertTrue(java.nio.file.Files.size(deflection.resolve("deflection-fct-cdf.png")) > 1000);
    }
}
