// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import uehw.model.dart.DasrModel;
import uehw.model.smartt.SmarttParams;
import uehw.netsim.DasrUnit;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Percentiles;
import uehw.netsim.Port;
import uehw.netsim.RepsEntropies;
import uehw.netsim.SmarttWindows;
import uehw.netsim.rtl.DasrRtlUnit;

/**
 * dart.txt Sec. V-B at model level: a receiver (an aggregator) takes a long flow from one host while
 * every {@link #PERIOD_NS} a group of {@link #DEGREE} other hosts sends it a 256 KB message each,
 * with a random jitter of 0-10 us (the testbed's 0-100 us, scaled with the period). 100 Gb/s star,
 * 12 us base RTT, a 150 KB port with RED and trimming, SMaRTT windows at every sender. Modes: SMaRTT
 * alone; with DASR at the receiver (ACKs carry n, senders send at line rate / n beside their
 * window); and with the look-ahead (each incast message's first packet announces its group).
 */
public final class DasrIncast {
    public enum Mode { SMARTT, DASR, DASR_LOOK_AHEAD }

    public static final int DEGREE = 16;
    public static final int RECEIVER = DEGREE + 1;
    public static final long MESSAGE_BYTES = 256 * 1024;
    public static final long PERIOD_NS = 1_000_000;
    public static final long FIRST_ROUND_NS = 200_000;
    public static final long BASE_RTT_NS = 12_000;

    /** Per round: the incast's completion (start to its last message done) and, with DASR, when the long flow's sender held n = DEGREE + 1. */
    public record Result(Mode mode, long[] incastNs, long[] convergenceNs, double longFlowGbps, long trims, long traceDigest) {
        public double percentile(long[] v, double p) {
            double[] d = Arrays.stream(v).filter(x -> x >= 0).asDoubleStream().toArray();
            return d.length == 0 ? Double.NaN : Percentiles.of(d, p);
        }

        public String line() {
            return String.format(Locale.ROOT, "%-16s incast completion median %.1f us, p99 %.1f us; convergence median %s; "
                            + "long flow %.1f Gb/s; %d trims", mode, percentile(incastNs, 50) / 1000, percentile(incastNs, 99) / 1000,
                    mode == Mode.SMARTT ? "-" : String.format(Locale.ROOT, "%.2f RTTs", percentile(convergenceNs, 50) / BASE_RTT_NS),
                    longFlowGbps, trims);
        }
    }

    /** The receiver's DASR unit of the runs: the model, made as the `dart-dasr` block's defaults are. */
    public static DasrModel model() {
        // line rate x window: at least 95% of it in a 10 us window counts as "at line rate" (Fig. 5).
        long window = 10_000;
        return new DasrModel(256, 255, 2_000_000_000L, window, Math.round(100.0 / 8 * window * 0.95));
    }

    public static Result run(Mode mode, int rounds, long seed) {
        return run(mode, rounds, seed, DasrUnit.of(model()));
    }

    /** A run with the given DASR unit at the receiver (the model, or the RTL: {@link DasrRtlUnit}). */
    public static Result run(Mode mode, int rounds, long seed, DasrUnit dasr) {
        IncastExperiment star = new IncastExperiment(); // its 100 Gb/s star's link latency and port
        Port.Spec port = new Port.Spec(star.queueBytes, 65_536, 1024, star.header, star.queueBytes / 5, star.queueBytes * 4 / 5,
                true, (seed * 2 + 1) & 0xFFFFFFFFL);
        Network.Config config = new Network.Config(star.gbps, star.linkLatencyNs(), port, star.mtu, star.header, 64,
                3 * BASE_RTT_NS, rounds + 2);
        Network net = Network.star(RECEIVER + 1, config, (host, flows) -> new SmarttWindows(flows, new SmarttParams()),
                (host, flows) -> new RepsEntropies(new uehw.model.reps.RepsModel(uehw.model.reps.RepsModel.Mode.OPS, flows, 8, 16, 32,
                        8, 0, 0, 0, 1 + host)));
        if (mode != Mode.SMARTT) {
            net.enableDasr(RECEIVER, dasr);
        }
        long end = FIRST_ROUND_NS + rounds * PERIOD_NS;
        Flow longFlow = net.addFlow(0, RECEIVER, Math.round(star.gbps / 8 * end * 2), 0);
        Random jitter = new Random(seed);
        List<List<Flow>> incasts = new ArrayList<>();
        int[] group = new int[DEGREE];
        for (int i = 0; i < DEGREE; i++) {
            group[i] = i + 1;
        }
        for (int r = 0; r < rounds; r++) {
            List<Flow> round = new ArrayList<>();
            for (int s = 1; s <= DEGREE; s++) {
                Flow f = net.addFlow(s, RECEIVER, MESSAGE_BYTES, FIRST_ROUND_NS + r * PERIOD_NS + jitter.nextInt(10_000));
                if (mode == Mode.DASR_LOOK_AHEAD) {
                    f.lookAhead = group;
                    f.lookAheadGroup = r;
                }
                round.add(f);
            }
            incasts.add(round);
        }
        long[] convergence = new long[rounds];
        Arrays.fill(convergence, -1);
        net.every(100, () -> {
            long now = net.loop.now() / 1000;
            int r = (int) ((now - FIRST_ROUND_NS) / PERIOD_NS);
            if (now >= FIRST_ROUND_NS && r < rounds && convergence[r] < 0 && longFlow.dasrN >= DEGREE + 1) {
                convergence[r] = now - (FIRST_ROUND_NS + r * PERIOD_NS);
            }
        });
        net.run(end + PERIOD_NS);
        long[] incast = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            long start = FIRST_ROUND_NS + r * PERIOD_NS;
            incast[r] = incasts.get(r).stream().mapToLong(f -> f.finishedPs < 0 ? Long.MAX_VALUE / 2 : f.finishedPs / 1000 - start)
                    .max().orElse(-1);
        }
        double longGbps = longFlow.acked * 8.0 / (net.loop.now() / 1000.0);
        long trims = net.ports.values().stream().mapToLong(p -> p.trims).sum();
        return new Result(mode, incast, convergence, longGbps, trims, net.traceDigest());
    }

    public static void main(String[] args) {
        for (Mode m : Mode.values()) {
            System.out.println(run(m, args.length > 0 ? Integer.parseInt(args[0]) : 10, 1).line());
        }
    }
}
