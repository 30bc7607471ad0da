// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.model.rccc.OversubscribedCcExact;
import uehw.model.rccc.OversubscribedCcFixed;

/** RCCC's receiver oversubscription controller (uet-htsim 40ccb05 oversubscribed_cc.cpp): the exact model against the reference's traces. */
@Tag("model")
class OversubscribedCcTest {
    /**
     * Every decision of the 16 nodes' controllers in the reference's incast15 and perm16 under RCCC
     * with the controller on (testbench/resources/uet-htsim/rccc-oversubscribed-cc-*.txt.gz, made by
     * sim/tools/uet-htsim/make-rccc-traces.sh, doubles printed at 17 digits): fed the interval's
     * counts, each node's exact model gives the reference's g and rate to the bit. The traces must
     * reach the decrease by trims, the multiplicative decrease above the floor, both increases and
     * the floor, or the replay proves less than it claims (incast15 alone takes every decrease to the
     * floor, where a wrong target congestion would not show; perm16's marks decrease above it).
     */
    @Test
    void theExactModelReplaysTheReferencesDecisionsToTheBit() throws Exception {
        int decisions = 0, trimDecreases = 0, mdAboveFloor = 0, doublings = 0, atMin = 0, marked = 0;
        for (String run : new String[] {"incast15", "perm16"}) {
            Map<String, OversubscribedCcExact> nodes = new HashMap<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                    OversubscribedCcTest.class.getResourceAsStream("/uet-htsim/rccc-oversubscribed-cc-" + run + ".txt.gz"))))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (!line.startsWith("At ")) {
                        continue;
                    }
                    // At T oversubscribed cc G rate R flow ID total packets N trimmed O trimmed last hop L ecn E
                    String[] w = line.split(" ");
                    double g = Double.parseDouble(w[4]), rate = Double.parseDouble(w[6]);
                    int total = Integer.parseInt(w[11]), other = Integer.parseInt(w[13]), last = Integer.parseInt(w[17]);
                    int ecn = Integer.parseInt(w[19]);
                    OversubscribedCcExact m = nodes.computeIfAbsent(w[8],
                            k -> new OversubscribedCcExact(OversubscribedCcExact.MIN_RATE));
                    double before = m.rate();
                    m.control(total, ecn, last, other);
                    assertEquals(g, m.g(), 0.0, "g, at line " + line);
                    assertEquals(rate, m.rate(), 0.0, "rate, at line " + line);
                    decisions++;
                    trimDecreases += other > 0 ? 1 : 0;
                    mdAboveFloor += m.g() > 0.3 && m.rate() > OversubscribedCcExact.MIN_RATE ? 1 : 0;
                    doublings += other == 0 && ecn == 0 && m.rate() > before && m.rate() < 1 && m.rate() > 1.5 * before ? 1 : 0;
                    atMin += m.rate() == OversubscribedCcExact.MIN_RATE ? 1 : 0;
                    marked += ecn > 0 ? 1 : 0;
                }
            }
            assertEquals(16, nodes.size(), run + ": a controller per node");
        }
        System.out.printf("oversubscribed cc replay: %d decisions; %d decreases by trims, %d multiplicative above the floor,"
                + " %d doublings, %d at the floor, %d with marks%n", decisions, trimDecreases, mdAboveFloor, doublings, atMin, marked);
        assertTrue(decisions > 2500 && trimDecreases > 0 && mdAboveFloor > 10 && doublings > 0 && atMin > 0 && marked > 50,
                "the traces reach every rule");
    }

    /** One decision's inputs. */
    private record Interval(int total, int ecn, int last, int other) {
    }

    /** The exact and the fixed model side by side: the largest rate difference, time-per-quantum difference and threshold flips. */
    /**
     * The fixed model's bounds: the rate within 2^-22 of the exact one (measured up to 5.3e-8 on
     * 1M random intervals: 0.24 units of 2^-30 lost per 0.01 increase, up to 99 in a row), the
     * time per quantum within 10^-4 of it (measured 4.8e-5: a ps of truncation at 20,686 ps).
     */
    static final double BOUND = Math.pow(2, -22), BOUND_PS = 1e-4;

    private static final class Pair {
        OversubscribedCcExact exact = new OversubscribedCcExact(OversubscribedCcExact.MIN_RATE);
        OversubscribedCcFixed fixed = new OversubscribedCcFixed(OversubscribedCcFixed.minRate(1));
        double maxRateError, maxPsError;
        int decisions, nearThreshold;

        void apply(Interval i) {
            boolean near = Math.abs(exact.g() * 0.5 + 0.5 * (i.total() - i.last() - i.other() == 0 ? 0
                    : (double) i.ecn() / (i.total() - i.last() - i.other())) - 0.3) < 1e-6;
            exact.control(i.total(), i.ecn(), i.last(), i.other());
            fixed.control(i.total(), i.ecn(), i.last(), i.other());
            decisions++;
            if (near) {
                nearThreshold++;
                // the models may part here: both start again from reset
                exact = new OversubscribedCcExact(OversubscribedCcExact.MIN_RATE);
                fixed = new OversubscribedCcFixed(OversubscribedCcFixed.minRate(1));
                return;
            }
            maxRateError = Math.max(maxRateError, Math.abs(fixed.rate() / (double) OversubscribedCcFixed.ONE - exact.rate()));
            long ps = exact.psPerQuantum(20_686);
            maxPsError = Math.max(maxPsError, Math.abs(fixed.psPerQuantum(20_686) - ps) / (double) ps);
        }
    }

    /**
     * The fixed-point controller (the block's specification) against the exact model: on the
     * reference's own intervals and on 1,000,000 random ones (seeded; light, heavy and bad
     * load, trims before and at the last hop, marks), the rate and the pacer's time per quantum at
     * 20,686 ps stay within BOUND and BOUND_PS of the exact ones; a decision whose average lies
     * within 10^-6 of the 0.3 threshold may go either way, so there both models start again from
     * reset (about 30 in a million).
     */
    @Test
    void theFixedModelStaysWithinItsBoundOfTheExactOne() throws Exception {
        long seed = Seeds.next();
        java.util.Random r = new java.util.Random(seed);
        Pair onTraces = new Pair();
        for (String run : new String[] {"incast15", "perm16"}) {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                    OversubscribedCcTest.class.getResourceAsStream("/uet-htsim/rccc-oversubscribed-cc-" + run + ".txt.gz"))))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.startsWith("At ") && line.contains(" flow 280 ") == run.equals("incast15")) {
                        String[] w = line.split(" ");
                        onTraces.apply(new Interval(Integer.parseInt(w[11]), Integer.parseInt(w[19]), Integer.parseInt(w[17]),
                                Integer.parseInt(w[13])));
                    }
                }
            }
        }
        Pair random = new Pair();
        for (int i = 0; i < 1_000_000; i++) {
            int total = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> r.nextInt(8);
                case 2 -> r.nextInt(600);
                default -> r.nextInt(100_000);
            };
            int other = r.nextInt(5) == 0 ? r.nextInt(total + 1) / (1 + r.nextInt(20)) : 0;
            int last = r.nextInt(3) == 0 ? r.nextInt(total - other + 1) : 0;
            int ecn = r.nextInt(3) == 0 ? r.nextInt(total - other - last + 1) : 0;
            random.apply(new Interval(total, ecn, last, other));
        }
        System.out.printf(java.util.Locale.ROOT, "oversubscribed cc, fixed against exact: on the reference's intervals (%d) rate within"
                + " %.3g, time per quantum within %.3g of it; on %d random ones within %.3g and %.3g, %d near the threshold"
                + " (seed %d)%n",
                onTraces.decisions, onTraces.maxRateError, onTraces.maxPsError, random.decisions, random.maxRateError,
                random.maxPsError, random.nearThreshold, seed);
        for (Pair p : new Pair[] {onTraces, random}) {
            assertTrue(p.maxRateError < BOUND && p.maxPsError < BOUND_PS, "seed " + seed + ": rate within "
                    + p.maxRateError + ", time per quantum within " + p.maxPsError + " of the exact one");
        }
    }
}
