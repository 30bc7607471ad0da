// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

import uehw.model.reps.RepsModel;
import uehw.model.smartt.SmarttParams;
import uehw.netsim.EntropyControl;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Port;
import uehw.netsim.RepsEntropies;
import uehw.netsim.SmarttWindows;
import uehw.netsim.WindowControl;
import uehw.netsim.rtl.ClockedEgress;
import uehw.netsim.rtl.SmarttRtlWindows;
import uehw.netsim.rtl.TrimQueueEngine;
import uehw.netsim.rtl.TrimQueueModelEngine;
import uehw.netsim.rtl.TrimQueueRtlEngine;

/**
 * The SMaRTT authors' incast (issue 17; their htsim setup): the 128-host three-tier fat tree
 * (k = 8) with 800 Gb/s, 1 us links on every tier; 4096 B payload plus a 64 B header per data
 * packet, 64 B ACKs and NACKs; switch ports of 864,000 B with RED from 20% to 80% at dequeue and
 * trimming to a 64 B header; senders i -> host 127 for i = 0..N-1, 2,000,000 B each, all at time 0.
 * SMaRTT with base RTT 8,646 ns, target 1.51 x base, BDP 864,600 B, initial and maximum window
 * 1,728,000 B, minimum window one MTU, fi 0.15, mi 1, fd 1, md 1, QuickAdapt scaling 1.5,
 * Wait-to-Decrease off, FastIncrease on with rtt <= base + 200 ns; REPS with 8 cached entropies,
 * freezing on, 256 entropies. Runs on the models; the same network takes the RTL (issue 17).
 */
public final class FatTreeIncast {
    public static final int K = 8;
    public static final int RECEIVER = 127;
    public static final int MTU = 4096;
    public static final int HEADER = 64;
    public static final long FLOW_BYTES = 2_000_000;
    public static final double GBPS = 800;
    public static final long LINK_NS = 1000;
    public static final long PORT_BYTES = 864_000;
    public static final long BASE_RTT_NS = 8_646;

    public static Network.Config config() {
        Port.Spec port = new Port.Spec(PORT_BYTES, PORT_BYTES, 1024, HEADER, PORT_BYTES / 5, PORT_BYTES * 4 / 5, true,
                0x7A1D5EEDL);
        return new Network.Config(GBPS, LINK_NS, port, MTU, HEADER, 64, 20 * BASE_RTT_NS, 4);
    }

    /** The authors' SMaRTT parameters in the paper profile of the window unit. */
    public static SmarttParams smartt() {
        return smartt(false);
    }

    /**
     * The authors' SMaRTT parameters, in the reference-code profile (their simulator's rules, with
     * FastIncrease adding 1.2 MTU) or the paper's.
     */
    public static SmarttParams smartt(boolean referenceProfile) {
        SmarttParams p = new SmarttParams();
        p.referenceProfile = referenceProfile;
        if (referenceProfile) {
            p.fastIncreaseK = SmarttParams.gain(1.2);
        }
        p.mtu = MTU;
        p.baseRtt = BASE_RTT_NS;
        p.targetRttFactor = SmarttParams.gain(1.51);
        p.bdp = 864_600;
        p.initCwnd = 1_728_000;
        p.maxCwnd = 1_728_000;
        p.fi = SmarttParams.gain(0.15);
        p.mi = SmarttParams.gain(1);
        p.fd = SmarttParams.gain(1);
        p.md = SmarttParams.gain(1);
        p.qaScaling = SmarttParams.gain(1.5);
        p.wtdEnable = false;
        p.fastIncreaseCloseness = 200;
        return p;
    }

    public static Network build(long seed) {
        return build(seed, false);
    }

    /** The fat tree with every NIC's SMaRTT on the fixed-point model in the given profile. */
    public static Network build(long seed, boolean referenceProfile) {
        return build(seed, (host, flows) -> new SmarttWindows(flows, smartt(referenceProfile)));
    }

    /** The fat tree with the NICs' windows from {@code windows} (e.g. the RTL, SmarttRtlWindows). */
    public static Network build(long seed, BiFunction<Integer, Integer, WindowControl> windows) {
        return build(windows, (host, flows) -> new RepsEntropies(new RepsModel(RepsModel.Mode.REPS, flows, BUFFER_ENTRIES,
                16, 32, 8, FREEZING_TIMEOUT_NS, NUM_PKTS_BDP, EVS_SIZE, seed * 131 + host + 1)));
    }

    /** The fat tree with both units given (e.g. the RTL for one of them). */
    public static Network build(BiFunction<Integer, Integer, WindowControl> windows,
                                BiFunction<Integer, Integer, EntropyControl> entropies) {
        return Network.fatTree(K, config(), windows, entropies);
    }

    /** REPS: 8 cached entropies, 256 entropies, the first BDP of packets explores, freezing after 10 ms. */
    public static final int BUFFER_ENTRIES = 8;
    public static final int EVS_SIZE = 256;
    public static final int NUM_PKTS_BDP = (int) Math.min(255, 864_600 / (MTU + HEADER));
    public static final long FREEZING_TIMEOUT_NS = 10_000_000L;

    /** One run's results. */
    public record Result(int senders, boolean referenceProfile, List<Flow> flows, List<List<SmarttWindows.QuickAdapt>> quickAdapts, long idealNs,
                         long fairShareBytes, long peakQueueBytes, long trims, long trimsEverywhere, long marks, long events,
                         double seconds, long digest, boolean finished, List<double[]> samples) {
        public String table() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                    "%d:1 incast on the k=%d fat tree, SMaRTT %s profile: ideal completion %.1f us, fair share %d B; receiver "
                            + "port peak %d B, %d trims (%d in the whole network), %d marks; %d events in %.2f s (%.0f events/s)%n",
                    senders, K, profile(),
                    idealNs / 1000.0, fairShareBytes, peakQueueBytes, trims, trimsEverywhere, marks, events, seconds,
                    events / seconds));
            sb.append("flow  fct_us   qa_count  first_qa_us  first_qa_cwnd  min_cwnd  final_cwnd  nacks  timeouts\n");
            for (int i = 0; i < flows.size(); i++) {
                Flow f = flows.get(i);
                List<SmarttWindows.QuickAdapt> qa = quickAdapts.get(i);
                sb.append(String.format(Locale.ROOT, "%4d %8.1f %9d %12s %14s %9d %11d %6d %9d%n", i, f.fctNs() / 1000.0,
                        qa.size(), qa.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f", qa.get(0).nowNs() / 1000.0),
                        qa.isEmpty() ? "-" : Long.toString(qa.get(0).cwnd()), f.minCwnd, f.cwnd, f.nacks, f.timeouts));
            }
            return sb.toString();
        }

        public String profile() {
            return referenceProfile ? "reference" : "paper";
        }

        /** One line of the summary table: completions against the ideal, QuickAdapt and final windows against the fair share. */
        public String summaryRow() {
            long[] fct = flows.stream().mapToLong(Flow::fctNs).sorted().toArray();
            long[] firstQa = quickAdapts.stream().filter(q -> !q.isEmpty()).mapToLong(q -> q.get(0).cwnd()).sorted().toArray();
            int[] qaCounts = quickAdapts.stream().mapToInt(List::size).sorted().toArray();
            long[] last = flows.stream().mapToLong(f -> f.cwnd).sorted().toArray();
            long nacks = flows.stream().mapToLong(f -> f.nacks).sum();
            return String.format(Locale.ROOT, "%s,%d,%.1f,%.1f,%.1f,%.3f,%.3f,%s,%d,%d,%d,%d,%d,%d,%d",
                    profile(), senders, idealNs / 1000.0, fct[fct.length / 2] / 1000.0, fct[fct.length - 1] / 1000.0,
                    (double) fct[fct.length - 1] / idealNs, (double) fct[fct.length - 1] / fct[0],
                    firstQa.length == 0 ? "," : firstQa[0] + "," + firstQa[firstQa.length - 1], qaCounts[0],
                    qaCounts[qaCounts.length - 1], last[0], last[last.length - 1], fairShareBytes, nacks,
                    flows.stream().mapToLong(f -> f.timeouts).sum());
        }

        public static final String SUMMARY_HEADER = "profile,senders,ideal_us,median_fct_us,last_fct_us,last_over_ideal,"
                + "max_over_min_fct,first_qa_cwnd_min,first_qa_cwnd_max,qa_per_flow_min,qa_per_flow_max,final_cwnd_min,"
                + "final_cwnd_max,fair_share,nacks,timeouts";
    }

    /**
     * Runs the N:1 incast, sampling every 1 us the receiver port's queue and every window ({time_us,
     * queue_bytes, cwnd_0, ...}); writes the samples to csv if given.
     */
    public static Result run(int senders, long seed, Path csv) throws IOException {
        return run(senders, seed, csv, false);
    }

    /** The N:1 incast with SMaRTT in the reference-code profile or the paper's. */
    public static Result run(int senders, long seed, Path csv, boolean referenceProfile) throws IOException {
        return run(senders, seed, csv, referenceProfile, Queue.PACKET);
    }

    /** What runs the receiver's port (the incast's bottleneck): the packet-level queue, the trimming queue's model at the clock, or its RTL. */
    public enum Queue { PACKET, CLOCKED, RTL }

    /** The receiver's downlink at the clock: 512-bit beats, m_axis ready one clock in 4 (the ToR's 4 uplinks feed it). */
    public static final int CLOCKS_PER_BEAT = 4;

    /** The trimming queue a clocked receiver port runs (the switch ports' spec, 512-bit beats). */
    public static uehw.hw.trim.TrimQueueConfig receiverQueue() {
        return TrimQueueEngine.configFor(config().switchPort(), 64);
    }

    /** The N:1 incast with the receiver's port on {@code queue} (with RTL: the Verilated trimming queue, reset for this run). */
    public static Result run(int senders, long seed, Path csv, boolean referenceProfile, Queue queue) throws IOException {
        if (queue != Queue.RTL) {
            return run(senders, seed, csv, referenceProfile,
                    queue == Queue.CLOCKED ? port -> ClockedEgress.attach(port, new TrimQueueModelEngine(receiverQueue()), CLOCKS_PER_BEAT) : port -> { });
        }
        Result[] result = new Result[1];
        TrimQueueRtlEngine.simulation(receiverQueue()).run("fat_tree_incast_" + senders, seed, sim -> {
            sim.reset(16);
            TrimQueueRtlEngine engine = new TrimQueueRtlEngine(sim);
            result[0] = run(senders, seed, csv, referenceProfile, port -> ClockedEgress.attach(port, engine, CLOCKS_PER_BEAT));
        });
        return result[0];
    }

    private static Result run(int senders, long seed, Path csv, boolean referenceProfile,
                              java.util.function.Consumer<Port> receiverPort) throws IOException {
        if (senders < 1 || senders > RECEIVER) {
            throw new IllegalArgumentException("senders must be 1.." + RECEIVER);
        }
        Network net = build(seed, referenceProfile);
        receiverPort.accept(net.downlinkTo(RECEIVER));
        List<Flow> flows = new ArrayList<>();
        for (int i = 0; i < senders; i++) {
            flows.add(net.addFlow(i, RECEIVER, FLOW_BYTES, 0));
        }
        Port bottleneck = net.downlinkTo(RECEIVER);
        List<double[]> samples = new ArrayList<>();
        net.every(1000, () -> {
            double[] row = new double[2 + senders];
            row[0] = net.loop.now() / 1e6;
            row[1] = bottleneck.dataBytes();
            for (int i = 0; i < senders; i++) {
                row[2 + i] = flows.get(i).cwnd;
            }
            samples.add(row);
        });
        long t0 = System.nanoTime();
        boolean finished = net.run(1_000_000_000L);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (csv != null) {
            Files.createDirectories(csv.toAbsolutePath().getParent());
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
                StringBuilder h = new StringBuilder("time_us,queue_bytes");
                for (int i = 0; i < senders; i++) {
                    h.append(",cwnd_").append(i);
                }
                out.println(h);
                for (double[] row : samples) {
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%.1f,%d", row[0], (long) row[1]));
                    for (int i = 2; i < row.length; i++) {
                        line.append(',').append((long) row[i]);
                    }
                    out.println(line);
                }
            }
        }
        List<List<SmarttWindows.QuickAdapt>> qa = new ArrayList<>();
        for (Flow f : flows) {
            qa.add(((SmarttWindows) net.hosts.get(f.src).windows()).quickAdapts.get(f.local));
        }
        // Ideal: the receiver's link shared fairly: every payload byte (with its header) across it, plus one base RTT.
        long packets = (FLOW_BYTES + MTU - 1) / MTU;
        long wire = senders * (FLOW_BYTES + packets * HEADER);
        long ideal = Math.round(wire * 8 / GBPS) + BASE_RTT_NS;
        long trimsEverywhere = net.ports.values().stream().mapToLong(p -> p.trims).sum();
        return new Result(senders, referenceProfile, flows, qa, ideal, Math.round(864_600.0 / senders), bottleneck.peakDataBytes,
                bottleneck.trims, trimsEverywhere, bottleneck.marks, net.loop.executed(), seconds, net.traceDigest(), finished,
                samples);
    }

    /**
     * Runs each incast in each profile and writes, into {@code dir}: fat-tree-incast-N.csv (the
     * samples), fat-tree-incast-N-flows.csv (per flow), windows-N and queue-N (PNG and SVG), for the
     * paper profile under these names and for the reference-code profile with "-reference" after
     * "incast" / before N (fat-tree-incast-reference-N.csv, windows-reference-N, ...); fct-cdf (every
     * run's completion times over its ideal) and summary.csv (a row a run). Returns the results.
     */
    public static List<Result> experiment(int[] senders, long seed, Path dir, boolean... profiles) throws IOException {
        return experiment(senders, seed, dir, Queue.PACKET, profiles);
    }

    /** The same with the receiver's port on {@code queue}. */
    public static List<Result> experiment(int[] senders, long seed, Path dir, Queue queue, boolean... profiles) throws IOException {
        Files.createDirectories(dir);
        List<Result> results = new ArrayList<>();
        List<Plots.Series> cdfs = new ArrayList<>();
        boolean[] runProfiles = profiles.length == 0 ? new boolean[] {false, true} : profiles;
        for (boolean reference : runProfiles) {
            String tag = reference ? "reference-" : "";
            String title = reference ? " (reference-code profile)" : " (paper profile)";
            for (int n : senders) {
                Result r = run(n, seed, dir.resolve("fat-tree-incast-" + tag + n + ".csv"), reference, queue);
                results.add(r);
                try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(dir.resolve("fat-tree-incast-" + tag + n + "-flows.csv")))) {
                    out.println("flow,fct_ns,ideal_ns,quick_adapts,first_qa_ns,first_qa_cwnd,min_cwnd,final_cwnd,nacks,timeouts");
                    for (int i = 0; i < r.flows().size(); i++) {
                        Flow f = r.flows().get(i);
                        List<SmarttWindows.QuickAdapt> qa = r.quickAdapts().get(i);
                        out.printf(Locale.ROOT, "%d,%d,%d,%d,%s,%s,%d,%d,%d,%d%n", i, f.fctNs(), r.idealNs(), qa.size(),
                                qa.isEmpty() ? "" : Long.toString(qa.get(0).nowNs()), qa.isEmpty() ? "" : Long.toString(qa.get(0).cwnd()),
                                f.minCwnd, f.cwnd, f.nacks, f.timeouts);
                    }
                }
                double[] t = r.samples().stream().mapToDouble(row -> row[0]).toArray();
                List<Plots.Series> windows = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int column = 2 + i;
                    windows.add(new Plots.Series("flow " + i, t, r.samples().stream().mapToDouble(row -> row[column] / 1000).toArray()));
                }
                Plots.lines(dir.resolve("windows-" + tag + n), n + ":1 incast, k=8 fat tree, 800 Gb/s: SMaRTT windows" + title,
                        "time (us)", "cwnd (KB)", windows);
                Plots.lines(dir.resolve("queue-" + tag + n), n + ":1 incast: the receiver's port" + title, "time (us)",
                        "data queue (KB)",
                        List.of(new Plots.Series("queue", t, r.samples().stream().mapToDouble(row -> row[1] / 1000).toArray())));
                cdfs.add(Plots.cdf(n + ":1 " + r.profile(),
                        r.flows().stream().mapToDouble(f -> (double) f.fctNs() / r.idealNs()).toArray()));
            }
        }
        Plots.lines(dir.resolve("fct-cdf"), "Flow completion times, k=8 fat tree incasts", "completion time / ideal",
                "fraction of flows", cdfs);
        List<String> summary = new ArrayList<>(List.of(Result.SUMMARY_HEADER));
        results.forEach(r -> summary.add(r.summaryRow()));
        Files.write(dir.resolve("summary.csv"), summary);
        return results;
    }

    public static void main(String[] args) throws IOException {
        int[] n = args.length == 0 ? new int[] {2, 8, 32} : java.util.Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        for (Result r : experiment(n, 1, Path.of("build", "experiments"))) {
            System.out.print(r.table());
        }
    }
}
