// SPDX-License-Identifier: Apache-2.0
package uehw.cli;

import java.io.File;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import uehw.experiments.FatTreeIncast;

/** hwgen experiment: the network experiments on the packet-level simulator (uehw.netsim.Network). */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = "Run a network experiment on the packet-level simulator; CSVs and PNG/SVG plots into --out.",
        subcommands = {ExperimentCommand.FatTreeIncastCommand.class, ExperimentCommand.LinkFailureCommand.class,
            ExperimentCommand.DasrIncastCommand.class, ExperimentCommand.SwiftVsSmarttCommand.class,
            ExperimentCommand.DeflectionCommand.class, ExperimentCommand.UetReferenceCommand.class,
            ExperimentCommand.EngineIncastCommand.class})
final class ExperimentCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 2;
    }

    @Command(name = "fat-tree-incast", mixinStandardHelpOptions = true,
            description = "The SMaRTT authors' N:1 incasts into host 127 of the k=8 fat tree at 800 Gb/s (docs/network-simulator.md).")
    static final class FatTreeIncastCommand implements Callable<Integer> {
        @Option(names = "--senders", split = ",", defaultValue = "2,8,32",
                description = "incast degrees, 1..127 [default: ${DEFAULT-VALUE}]")
        int[] senders;

        @Option(names = "--seed", defaultValue = "1", description = "seed of the REPS draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/fat-tree-incast",
                description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Option(names = "--profile", defaultValue = "both",
                description = "SMaRTT profile: paper, reference (the authors' simulator) or both [default: ${DEFAULT-VALUE}]")
        String profile;

        @Option(names = "--queue", defaultValue = "packet",
                description = "the receiver's port: packet (the queue's rules at packet level), clocked (the trimming queue's model"
                        + " at the clock) or rtl (the Verilated trim-queue, real frames; needs Verilator) [default: ${DEFAULT-VALUE}]")
        String queue;

        @Override
        public Integer call() throws Exception {
            boolean[] profiles = switch (profile) {
                case "paper" -> new boolean[] {false};
                case "reference" -> new boolean[] {true};
                case "both" -> new boolean[] {false, true};
                default -> null;
            };
            if (profiles == null) {
                System.err.println("hwgen: parameter 'profile' = " + profile + " is not allowed: must be paper, reference or both");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            FatTreeIncast.Queue q = switch (queue) {
                case "packet" -> FatTreeIncast.Queue.PACKET;
                case "clocked" -> FatTreeIncast.Queue.CLOCKED;
                case "rtl" -> FatTreeIncast.Queue.RTL;
                default -> null;
            };
            if (q == null) {
                System.err.println("hwgen: parameter 'queue' = " + queue + " is not allowed: must be packet, clocked or rtl");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            for (int n : senders) {
                if (n < 1 || n > FatTreeIncast.RECEIVER) {
                    System.err.println("hwgen: parameter 'senders' = " + n + " is not allowed: must be in 1.." + FatTreeIncast.RECEIVER);
                    return Hwgen.EXIT_BAD_PARAMETER;
                }
            }
            List<FatTreeIncast.Result> results = FatTreeIncast.experiment(senders, seed, out.toPath(), q, profiles);
            for (FatTreeIncast.Result r : results) {
                System.out.print(r.table());
            }
            System.out.println(FatTreeIncast.Result.SUMMARY_HEADER);
            results.forEach(r -> System.out.println(r.summaryRow()));
            System.out.println("hwgen: CSVs and plots written to " + out);
            return 0;
        }
    }

    /** Writes lines to a CSV under dir, creating it. */
    static void csv(File dir, String name, java.util.List<String> lines) throws java.io.IOException {
        java.nio.file.Files.createDirectories(dir.toPath());
        java.nio.file.Files.write(dir.toPath().resolve(name), lines);
        System.out.println("hwgen: " + dir.toPath().resolve(name));
    }

    @Command(name = "link-failure", mixinStandardHelpOptions = true,
            description = "reps.txt Sec. 3.2 on the k=8 fat tree: agg0->core0 fails at 100 us under two cross-pod flows; reps, reps-lite and ops.")
    static final class LinkFailureCommand implements Callable<Integer> {
        @Option(names = "--seed", defaultValue = "1", description = "seed of the REPS draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/link-failure", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            java.util.List<String> rows = new java.util.ArrayList<>(java.util.List.of(
                    "mode,sent,lost,lost_sent_after_first_freeze,first_freeze_ns,timeouts,last_fct_ns"));
            for (uehw.model.reps.RepsModel.Mode m : uehw.model.reps.RepsModel.Mode.values()) {
                uehw.experiments.FatTreeLinkFailure.Outcome o = uehw.experiments.FatTreeLinkFailure.run(m, seed);
                System.out.println(o.line());
                rows.add(String.join(",", m.id, Long.toString(o.sent()), Long.toString(o.lost()),
                        Long.toString(o.lostSentAfterFirstFreeze()), Long.toString(o.firstFreezeNs()), Long.toString(o.timeouts()),
                        Long.toString(o.lastFctNs())));
            }
            csv(out, "link-failure.csv", rows);
            return 0;
        }
    }

    @Command(name = "deflection", mixinStandardHelpOptions = true,
            description = "dart.txt Sec. IV on the k=4 fat tree at 10 Gb/s: short messages behind two colliding long flows, IOFD off and on.")
    static final class DeflectionCommand implements Callable<Integer> {
        @Option(names = "--seed", defaultValue = "1", description = "seed of the messages and the DFT draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/deflection", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            java.util.List<String> rows = new java.util.ArrayList<>(java.util.List.of("iofd,message,fct_us,ideal_us"));
            java.util.List<uehw.experiments.Plots.Series> series = new java.util.ArrayList<>();
            System.out.println("iofd  messages  deflected  mean us  p50 us  p99 us  slowdown  long MB  peak queue KB  refused full");
            for (boolean iofd : new boolean[] {false, true}) {
                uehw.experiments.DeflectionExperiment.Outcome o = uehw.experiments.DeflectionExperiment.run(iofd, seed);
                System.out.println(uehw.experiments.DeflectionExperiment.line(o));
                for (int i = 0; i < o.fctUs().length; i++) {
                    rows.add((iofd ? "on" : "off") + "," + i + "," + o.fctUs()[i] + "," + o.idealUs()[i]);
                }
                series.add(uehw.experiments.Plots.cdf(iofd ? "IOFD on" : "IOFD off", o.fctUs()));
            }
            csv(out, "deflection.csv", rows);
            uehw.experiments.Plots.lines(out.toPath().resolve("deflection-fct-cdf"),
                    "2-8 KB messages behind two colliding long flows", "completion (us)", "fraction of messages", series);
            return 0;
        }
    }

    @Command(name = "engine-incast", mixinStandardHelpOptions = true,
            description = "The incasts with every sender's NIC the engine (nic-cc): the authors' 8:1 fat-tree incast and the reference's incast15, each law (docs/nic-engine.md).")
    static final class EngineIncastCommand implements Callable<Integer> {
        @Option(names = "--laws", split = ",", defaultValue = "nscc,smartt,swift", description = "the engine's laws [default: ${DEFAULT-VALUE}]")
        List<String> laws;

        @Option(names = "--lb", defaultValue = "none",
                description = "the engines' load balancing: none (the hosts' entropy units), reps, reps-lite or ops [default: ${DEFAULT-VALUE}]")
        String lb;

        @Option(names = "--pacing", defaultValue = "none",
                description = "the engines' pacing: none, or dasr (DASR units at the receivers put n on their ACKs) [default: ${DEFAULT-VALUE}]")
        String pacing;

        @Option(names = "--rtl", description = "the engines' RTL in the loop instead of their model (the same trace; Verilator)")
        boolean rtl;

        @Option(names = "--seed", defaultValue = "1", description = "seed of the fat tree's RED draws and entropies [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/engine-incast", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            for (String law : laws) {
                if (!List.of("nscc", "smartt", "swift").contains(law)) {
                    System.err.println("hwgen: parameter 'laws' = " + law + " is not allowed: must be nscc, smartt or swift");
                    return Hwgen.EXIT_BAD_PARAMETER;
                }
            }
            if (!List.of("none", "reps", "reps-lite", "ops").contains(lb)) {
                System.err.println("hwgen: parameter 'lb' = " + lb + " is not allowed: must be none, reps, reps-lite or ops");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            if (!List.of("none", "dasr").contains(pacing)) {
                System.err.println("hwgen: parameter 'pacing' = " + pacing + " is not allowed: must be none or dasr");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            java.util.List<String> rows = new java.util.ArrayList<>(java.util.List.of(uehw.experiments.EngineIncast.Result.HEADER + ",digest"));
            for (String law : laws) {
                for (uehw.experiments.EngineIncast.Scenario s : List.of(uehw.experiments.EngineIncast.fatTree(law, lb, pacing, 8, FatTreeIncast.FLOW_BYTES, seed),
                        uehw.experiments.EngineIncast.incast15(law, lb, pacing))) {
                    uehw.experiments.EngineIncast.Result r = rtl ? uehw.experiments.EngineIncast.runRtl(s, seed)
                            : uehw.experiments.EngineIncast.runModel(s);
                    String row = r.row() + "," + Long.toHexString(r.digest());
                    System.out.println(row);
                    rows.add(row);
                }
            }
            csv(out, "engine-incast.csv", rows);
            return 0;
        }
    }

    @Command(name = "dasr-incast", mixinStandardHelpOptions = true,
            description = "dart.txt Sec. V-B scaled: a long flow and periodic 16-way 256 KB incasts; SMaRTT alone, with DASR, with its look-ahead.")
    static final class DasrIncastCommand implements Callable<Integer> {
        @Option(names = "--rounds", defaultValue = "10", description = "incast rounds, 1..1000 [default: ${DEFAULT-VALUE}]")
        int rounds;

        @Option(names = "--seed", defaultValue = "1", description = "seed of the jitter and the RED draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/dasr-incast", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            if (rounds < 1 || rounds > 1000) {
                System.err.println("hwgen: parameter 'rounds' = " + rounds + " is not allowed: must be in 1..1000");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            java.util.List<String> rows = new java.util.ArrayList<>(java.util.List.of("mode,round,incast_completion_ns,convergence_ns"));
            java.util.List<uehw.experiments.Plots.Series> series = new java.util.ArrayList<>();
            for (uehw.experiments.DasrIncast.Mode m : uehw.experiments.DasrIncast.Mode.values()) {
                uehw.experiments.DasrIncast.Result r = uehw.experiments.DasrIncast.run(m, rounds, seed);
                System.out.println(r.line());
                double[] x = new double[rounds];
                double[] y = new double[rounds];
                for (int i = 0; i < rounds; i++) {
                    rows.add(m + "," + i + "," + r.incastNs()[i] + "," + r.convergenceNs()[i]);
                    x[i] = i;
                    y[i] = r.incastNs()[i] / 1000.0;
                }
                series.add(new uehw.experiments.Plots.Series(m.toString(), x, y));
            }
            csv(out, "dasr-incast.csv", rows);
            uehw.experiments.Plots.lines(out.toPath().resolve("incast-completion"), "16-way incasts with a long flow: completion per round",
                    "round", "incast completion (us)", series);
            return 0;
        }
    }

    @Command(name = "swift-vs-smartt", mixinStandardHelpOptions = true,
            description = "SMaRTT's 8:1 incast (100 Gb/s star) with Swift's and NSCC's windows next to SMaRTT's: the exact models and their fixed-point laws, the specifications of the swift and nscc blocks' RTL.")
    static final class SwiftVsSmarttCommand implements Callable<Integer> {
        @Option(names = "--seed", defaultValue = "1", description = "seed of the RED draws [default: ${DEFAULT-VALUE}]")
        long seed;

        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/swift-vs-smartt", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Override
        public Integer call() throws Exception {
            uehw.experiments.IncastExperiment x = new uehw.experiments.IncastExperiment();
            java.util.List<String> rows = new java.util.ArrayList<>(java.util.List.of(
                    "law,last_over_ideal,max_min_ratio,peak_queue_bytes,mean_queue_bytes,trims,timeouts"));
            // swift-fixed: the law in the hardware's formats (SwiftFixedModel)
            uehw.model.nscc.NsccParams nscc = uehw.model.nscc.NsccParams.reference((long) (x.gbps * 1e9), x.mtu + x.header,
                    x.baseRttNs * 1000);
            for (String law : new String[] {"smartt", "swift", "swift-fixed", "nscc", "nscc-fixed"}) {
                uehw.model.swift.SwiftParams params = new uehw.model.swift.SwiftParams();
                uehw.experiments.IncastExperiment.Outcome o = switch (law) {
                    case "smartt" -> x.run(true, seed, out.toPath().resolve("smartt.csv"));
                    case "swift" -> x.run(true, seed, out.toPath().resolve("swift.csv"),
                            (host, flows) -> new uehw.netsim.SwiftWindows(flows, params, x.mtu));
                    case "swift-fixed" -> x.run(true, seed, out.toPath().resolve("swift-fixed.csv"),
                            (host, flows) -> uehw.netsim.SwiftWindows.fixed(flows, params, x.mtu));
                    case "nscc" -> x.run(true, seed, out.toPath().resolve("nscc.csv"),
                            (host, flows) -> uehw.netsim.NsccWindows.exact(flows, nscc, x.header));
                    default -> x.run(true, seed, out.toPath().resolve("nscc-fixed.csv"),
                            (host, flows) -> uehw.netsim.NsccWindows.fixed(flows, nscc, x.header));
                };
                long last = java.util.Arrays.stream(o.fctNs()).max().orElse(-1);
                String row = String.format(java.util.Locale.ROOT, "%s,%.4f,%.4f,%d,%.0f,%d,%d", law, (double) last / o.idealNs(),
                        o.throughputRatio(), o.peakQueueBytes(), o.meanQueueBytes(), o.trims(), o.timeouts());
                System.out.println(row);
                rows.add(row);
            }
            csv(out, "swift-vs-smartt.csv", rows);
            return 0;
        }
    }

    @Command(name = "uet-reference", mixinStandardHelpOptions = true,
            description = "The UEC reference simulator's (uet-htsim 40ccb05) validation runs in its setting: NSCC's one, incast3,"
                    + " incast15, perm16 (and perm1024 with --perm1024), RCCC's incast15-rccc, incast15-nscc-rccc and"
                    + " incast15-rccc-oversub, into"
                    + " --out/summary.csv beside the reference's figures;"
                    + " incast15's windows and queue as CSV and plots (docs/network-simulator.md).")
    static final class UetReferenceCommand implements Callable<Integer> {
        @Option(names = {"--out", "-o"}, defaultValue = "build/experiments/uet-reference", description = "output folder [default: ${DEFAULT-VALUE}]")
        File out;

        @Option(names = "--law", defaultValue = "exact",
                description = "the NICs' NSCC: exact (the reference's arithmetic), fixed (the nscc block's fixed-point law) or rtl"
                        + " (the Verilated nscc block in the loop; needs Verilator) [default: ${DEFAULT-VALUE}]")
        String law;

        @Option(names = "--pacer", defaultValue = "exact",
                description = "RCCC's receiver pull pacer: exact (the reference's, in ps), model (the rccc-pacer block's model at"
                        + " 250 MHz) or rtl (the Verilated rccc-pacer block in the loop; needs Verilator) [default: ${DEFAULT-VALUE}]")
        String pacer;

        @Option(names = "--perm1024", description = "also run perm1024 from this matrix file (the reference's"
                + " htsim/sim/datacenter/connection_matrices/perm_1024n_1024c_0u_2000000b.cm)")
        File perm1024;

        @Option(names = "--reference-trace", defaultValue = "testbench/resources/uet-htsim/nscc-incast15-100g.csv.gz",
                description = "the reference's incast15 trace, plotted beside ours when it exists [default: ${DEFAULT-VALUE}]")
        File referenceTrace;

        @Option(names = "--runs", defaultValue = "1",
                description = "runs of each scenario; wall_s is the fastest (the first pays the JIT's warm-up) [default: ${DEFAULT-VALUE}]")
        int runs;

        @Override
        public Integer call() throws Exception {
            java.util.List<uehw.experiments.UetReference.Scenario> scenarios = new java.util.ArrayList<>(
                    uehw.experiments.UetReference.all());
            if (perm1024 != null) {
                scenarios.add(uehw.experiments.UetReference.perm1024(perm1024.toPath()));
            }
            java.nio.file.Path trace = referenceTrace.toPath();
            if (runs < 1) {
                System.err.println("hwgen: parameter 'runs' = " + runs + " is not allowed: must be at least 1");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            if (!java.util.Set.of("exact", "fixed", "rtl").contains(law)) {
                System.err.println("hwgen: parameter 'law' = " + law + " is not allowed: must be exact, fixed or rtl");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            if (!java.util.Set.of("exact", "model", "rtl").contains(pacer)) {
                System.err.println("hwgen: parameter 'pacer' = " + pacer + " is not allowed: must be exact, model or rtl");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            if (pacer.equals("rtl") && law.equals("rtl")) {
                System.err.println("hwgen: parameter 'pacer' = rtl is not allowed with 'law' = rtl: one Verilated block a run");
                return Hwgen.EXIT_BAD_PARAMETER;
            }
            if (pacer.equals("rtl")) {
                int[] rc = new int[1];
                // with its oversubscription controller (the oversubscribed row feeds it; the others leave its rate at 1)
                uehw.hw.rccc.RcccPacerConfig cfg = new uehw.hw.rccc.RcccPacerConfig(1024, 16, 20686, CLOCK_PS, 64, 1027)
                        .withOversubscribedCc(5259, 10_737_418, uehw.netsim.ClockedPullPacer.OCC_SEED);
                uehw.netsim.rtl.RcccRtlPacer.simulation(cfg).run("uet_reference", 1, sim -> {
                    uehw.netsim.PullPacer.Factory pacers = uehw.netsim.rtl.RcccRtlPacer.factory(
                            () -> new uehw.bench.rccc.RcccPacerBench(sim), CLOCK_PS);
                    rc[0] = withLaw(scenarios, pacers, trace);
                });
                return rc[0];
            }
            return withLaw(scenarios, pacer.equals("model") ? uehw.netsim.ClockedPullPacer.models(1024, CLOCK_PS)
                    : uehw.netsim.UecPullPacer.factory(false), trace);
        }

        /** The rccc-pacer block's clock in the loop: 250 MHz. */
        static final long CLOCK_PS = 4000;

        private int withLaw(java.util.List<uehw.experiments.UetReference.Scenario> scenarios, uehw.netsim.PullPacer.Factory pacers,
                            java.nio.file.Path trace) throws java.io.IOException {
            return switch (law) {
                case "exact" -> report(scenarios, uehw.experiments.UetReference.exact(), pacers, trace);
                case "fixed" -> report(scenarios, uehw.experiments.UetReference.fixed(), pacers, trace);
                default -> {
                    int[] rc = new int[1];
                    uehw.hw.nscc.NsccConfig cfg = new uehw.hw.nscc.NsccConfig(1024, 16, 100, 4150, 14_022_720L);
                    uehw.netsim.rtl.NsccRtlLaw.simulation(cfg).run("uet_reference", 1, sim -> {
                        uehw.netsim.rtl.NsccRtlLaw rtl = new uehw.netsim.rtl.NsccRtlLaw(new uehw.bench.nscc.NsccBench(sim));
                        rc[0] = report(scenarios, uehw.experiments.UetReference.rtl(rtl, 1), pacers, trace);
                        System.out.println("rtl: " + rtl.events + " events in " + rtl.clocks + " clocks");
                    });
                    yield rc[0];
                }
            };
        }

        private int report(java.util.List<uehw.experiments.UetReference.Scenario> scenarios, uehw.experiments.UetReference.Laws laws,
                           uehw.netsim.PullPacer.Factory pacers, java.nio.file.Path trace) throws java.io.IOException {
            java.util.List<uehw.experiments.UetReference.Result> results = uehw.experiments.UetReference.write(out.toPath(),
                    scenarios, laws, pacers, trace, runs);
            System.out.println(uehw.experiments.UetReference.HEADER_ROW);
            for (uehw.experiments.UetReference.Result r : results) {
                System.out.println(uehw.experiments.UetReference.row(r) + (uehw.experiments.UetReference.withinBounds(r) ? "" : "  OUT OF BOUNDS"));
            }
            System.out.println("wrote " + out.toPath().resolve("summary.csv"));
            return 0;
        }
    }
}
