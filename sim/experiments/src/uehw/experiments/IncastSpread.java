// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import uehw.experiments.IncastExperiment.Outcome;
import uehw.netsim.Percentiles;

/**
 * The spread of {@link IncastExperiment} over many seeds. One incast is a single draw whose
 * fairness has a long tail (a flow that no loss reached keeps its larger window), so claims are
 * made about the median and the 90th percentile of a group of runs.
 *
 * <p>{@code java -cp ... uehw.experiments.IncastSpread [groups] [runs] [seed] [window]} measures the
 * worst group's statistics over many groups: the figures docs/smartt.md quotes and the test's
 * bounds come from {@code IncastSpread 1000 40 777}; {@code window} sets CONTROL.UNACKED_FROM_WINDOW.
 */
public record IncastSpread(double[] lastOverIdeal, double[] ratio) {
    /** Called with each run's seed and outcome, e.g. to check it. */
    @FunctionalInterface
    public interface RunCheck {
        void check(long runSeed, Outcome outcome) throws IOException;
    }

    /** runs incasts with run seeds drawn from seed; the first run writes csv if not null. */
    public static IncastSpread measure(IncastExperiment x, boolean trimming, long seed, int runs, Path firstCsv,
                                       RunCheck check) throws IOException {
        Random seeds = new Random(seed);
        double[] last = new double[runs], ratio = new double[runs];
        for (int run = 0; run < runs; run++) {
            long runSeed = seeds.nextInt(Integer.MAX_VALUE);
            Outcome o = x.run(trimming, runSeed, run == 0 ? firstCsv : null);
            check.check(runSeed, o);
            last[run] = (double) Arrays.stream(o.fctNs()).max().getAsLong() / o.idealNs();
            ratio[run] = o.throughputRatio();
        }
        return new IncastSpread(last, ratio);
    }

    /** Median, 90th percentile and worst of the last flow over ideal, then of the max/min throughput ratio. */
    public double[] figures() {
        return new double[] {Percentiles.of(lastOverIdeal, 50), Percentiles.of(lastOverIdeal, 90), Percentiles.max(lastOverIdeal),
            Percentiles.of(ratio, 50), Percentiles.of(ratio, 90), Percentiles.max(ratio)};
    }

    public String summary() {
        double[] f = figures();
        return String.format("last flow median %.3f p90 %.3f worst %.3f x ideal; max/min throughput median %.3f p90 %.3f worst %.3f",
                f[0], f[1], f[2], f[3], f[4], f[5]);
    }

    public static void main(String[] args) throws IOException {
        int groups = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        Random groupSeeds = new Random(args.length > 2 ? Long.parseLong(args[2]) : 777);
        IncastExperiment x = new IncastExperiment();
        x.unackedFromWindow = args.length > 3 && args[3].equals("window");
        // Per mode (trimming, timeouts): the worst group's median, 90th percentile and single run.
        double[][] worst = new double[2][6];
        int trimmingNotFairer = 0;
        int trimmingNotFaster = 0;
        for (int g = 0; g < groups; g++) {
            long seed = groupSeeds.nextInt(Integer.MAX_VALUE);
            IncastSpread[] s = new IncastSpread[2];
            for (int mode = 0; mode < 2; mode++) {
                s[mode] = measure(x, mode == 0, seed, runs, null, (runSeed, o) -> { });
                double[] f = s[mode].figures();
                for (int i = 0; i < f.length; i++) {
                    worst[mode][i] = Math.max(worst[mode][i], f[i]);
                }
            }
            if (Percentiles.of(s[0].ratio, 50) >= Percentiles.of(s[1].ratio, 50)) {
                trimmingNotFairer++;
            }
            if (Percentiles.of(s[0].lastOverIdeal, 50) >= Percentiles.of(s[1].lastOverIdeal, 50)) {
                trimmingNotFaster++;
            }
        }
        System.out.printf("%d groups of %d incasts, QuickAdapt ignores %s; worst group median / p90 / single worst run:%n",
                groups, runs, x.unackedFromWindow ? "the window before it" : "the senders' unacked bytes");
        for (int mode = 0; mode < 2; mode++) {
            double[] w = worst[mode];
            System.out.printf("  %-11s last flow %.3f / %.3f / %.3f x ideal; max/min throughput %.3f / %.3f / %.3f%n",
                    mode == 0 ? "trimming" : "timeouts", w[0], w[1], w[2], w[3], w[4], w[5]);
        }
        System.out.printf("  groups whose median ratio was not lower with trimming: %d%n", trimmingNotFairer);
        System.out.printf("  groups whose median last flow was not earlier with trimming: %d%n", trimmingNotFaster);
    }
}
