// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.bench.Simulation;
import uehw.bench.csr.RcccPacerCsr;
import uehw.bench.rccc.RcccPacerBench;
import uehw.hw.rccc.RcccPacer;
import uehw.hw.rccc.RcccPacerConfig;
import uehw.model.rccc.OversubscribedCcClocked.Arrival;
import uehw.model.rccc.OversubscribedCcExact;
import uehw.model.rccc.OversubscribedCcFixed;
import uehw.model.rccc.RcccPacerModel.Event;

/**
 * The rccc-pacer's oversubscription controller (option `oversubscribed-cc`, the sub-module
 * RcccOversubscribedCc): RTL against OversubscribedCcClocked clock by clock under random traffic and
 * arrivals, and against the reference's own decisions (uet-htsim's trace) within the fixed model's
 * bound.
 */
@Tag("rtl")
@org.junit.jupiter.api.extension.ExtendWith(BenchExtension.class)
class RcccOversubscribedCcTest {
    private static final long ONE = OversubscribedCcFixed.ONE;

    static void withBench(RcccPacerConfig cfg, String name, RcccPacerTest.Body body) {
        String key = "n" + cfg.connections() + "_id" + cfg.connIdWidth() + "_occ" + cfg.occPeriodClocks() + "_" + cfg.occMinRate()
                + "_" + cfg.occSeed();
        BenchExtension.bench(Simulation.compile(RcccOversubscribedCcTest.class, key, () -> new RcccPacer(cfg)), name,
                RcccPacerBench::new, body::run);
    }

    /**
     * RTL == model, clock by clock: random events on 16 connections, with arrivals at 0-100 % of the
     * clocks, marked, trimmed at and before the last hop in varying shares, so that the rate doubles
     * up to 1, falls by trims and by the multiplicative decrease, and sits at its floor; the settings
     * (PS_PER_QUANTUM up to where the quotient saturates, OCC_PERIOD_CLOCKS below its 512 floor,
     * OCC_MIN_RATE 0 and above 2^30) written among the traffic. Each phase ends with the counters and
     * the status read against the model.
     */
    @Test
    void randomTrafficAndArrivalsMatchTheModel() {
        RcccPacerConfig cfg = new RcccPacerConfig(1000, 10, 20686, 4000, 64, 1027).withOversubscribedCc(600, 10_737_418, 0x2545F491L);
        withBench(cfg, "random", (b, seed) -> {
            Random r = new Random(seed);
            long[] seen = new long[6];   // rate 1, at its floor, below 1/2, quotient saturated, a decrease, an increase
            long[] last = {ONE};
            int phases = 8;
            for (int phase = 0; phase < phases; phase++) {
                double pArrival = new double[] {0.05, 0.3, 1, 0.6, 0.02, 1, 0.5, 0.1}[phase];
                double pTrim = new double[] {0, 0.1, 0.1, 0.5, 0, 0.02, 0.3, 0}[phase];   // phase 2: trims take the rate to OCC_MIN_RATE = 0, taken as 1
                double pMark = new double[] {0, 0.2, 0.9, 0.5, 1, 0.35, 0, 0.1}[phase];
                Random ar = new Random(seed * 31 + phase);
                b.arrivals(() -> {
                    long rate = b.model.occ.rate();
                    seen[0] += rate == ONE ? 1 : 0;
                    seen[1] += rate <= Math.max(1, Math.min(b.model.occ.minRate, ONE)) ? 1 : 0;
                    seen[2] += rate < ONE / 2 ? 1 : 0;
                    seen[3] += b.model.occ.psPerQuantum() == (1 << 24) - 1 ? 1 : 0;
                    seen[4] += rate < last[0] ? 1 : 0;
                    seen[5] += rate > last[0] ? 1 : 0;
                    last[0] = rate;
                    if (ar.nextDouble() >= pArrival) {
                        return null;
                    }
                    boolean trimmed = ar.nextDouble() < pTrim;
                    return new Arrival(ar.nextDouble() < pMark, trimmed, trimmed && ar.nextBoolean());
                });
                if (phase > 0) {
                    b.write(RcccPacerCsr.PS_PER_QUANTUM, switch (phase % 3) {
                        case 0 -> 50 + r.nextInt(200);
                        case 1 -> 20686;
                        default -> 1_000_000 + r.nextInt(15_000_000);
                    });
                    b.write(RcccPacerCsr.OCC_PERIOD_CLOCKS, phase == 4 ? r.nextInt(512) : 512 + r.nextInt(2500));
                    b.write(RcccPacerCsr.OCC_MIN_RATE, switch (phase) {
                        case 2 -> 0;
                        case 3 -> ONE + 1 + r.nextInt(1000);
                        case 5 -> 1;
                        default -> 1 + r.nextInt((int) ONE / 4);
                    });
                }
                b.pattern(new Random(seed + phase), phase % 2 == 0 ? 0 : 0.3, phase == 3 ? 0.5 : 1);
                for (int c = 0; c < 16; c++) {
                    b.push(Event.open(c, 0));
                }
                int[] target = new int[16];
                for (int i = 0; i < 3000; i++) {
                    int c = r.nextInt(16);
                    if (r.nextInt(4) == 0) {
                        b.push(Event.request(c));
                    } else {
                        target[c] += r.nextInt(200);
                        b.push(Event.target(c, target[c]));
                    }
                    if (r.nextInt(2000) == 0 && !b.settingPending()) {
                        int which = r.nextInt(3);
                        b.post(new int[] {RcccPacerCsr.PS_PER_QUANTUM, RcccPacerCsr.OCC_PERIOD_CLOCKS, RcccPacerCsr.OCC_MIN_RATE}[which],
                                new long[] {50 + r.nextInt(30_000), r.nextInt(3000), r.nextInt((int) ONE)}[which]);
                    }
                    if (i % 32 == 31) {
                        b.flush();
                        for (int gap = r.nextInt(4) == 0 ? r.nextInt(800) : 0; gap > 0; gap--) {
                            b.step();
                        }
                    }
                }
                for (int c = 0; c < 16; c++) {
                    b.push(Event.close(c));
                }
                b.drain();
                for (int i = 0; i < 3000; i++) {
                    b.step();   // decisions on arrivals alone
                }
                b.arrivals(() -> null);   // the counters stand still while they are read
                RcccPacerTest.assertCounters(b);
            }
            var occ = b.model.occ.counters;
            System.out.printf("rccc-pacer oversubscribed-cc (seed %d): %d edges equal, %d decisions, %d arrivals (%d marked,"
                    + " %d + %d trimmed); edges at rate 1 %d, at the floor %d, below 1/2 %d, quotient saturated %d;"
                    + " decreases %d, increases %d%n", seed, b.edges(), occ.get("OCC_DECISIONS"), occ.get("OCC_ARRIVALS"),
                    occ.get("OCC_MARKED"), occ.get("OCC_TRIMMED_LAST_HOP"), occ.get("OCC_TRIMMED_OTHER"), seen[0], seen[1], seen[2],
                    seen[3], seen[4], seen[5]);
            for (int i = 0; i < seen.length; i++) {
                assertTrue(seen[i] > 0, "seed " + seed + ": the traffic reached case " + i);
            }
            assertTrue(occ.get("OCC_DECISIONS") > 100, "seed " + seed + ": decisions");   // 225 to 1069 over 13 seeds
        });
    }

    /**
     * OCC_PS_PER_QUANTUM is min(floor(PS_PER_QUANTUM x 2^30 / OCC_RATE), 2^24 - 1), read from the RTL
     * alone at every decision: the base at its largest and the rate trimmed to its floor (1: the
     * quotient saturates), a PS_PER_QUANTUM write taken up without a decision, then unmarked intervals
     * doubling the rate back to 1 (the quotient the base again).
     */
    @Test
    void theTimePerQuantumIsTheBaseOverTheRate() {
        RcccPacerConfig cfg = new RcccPacerConfig(1000, 10, 20686, 4000, 64, 1027).withOversubscribedCc(600, 10_737_418, 0x2545F491L);
        withBench(cfg, "quotient", (b, seed) -> {
            long[] base = {(1 << 24) - 1};
            b.write(RcccPacerCsr.PS_PER_QUANTUM, base[0]);
            b.write(RcccPacerCsr.OCC_MIN_RATE, 1);
            boolean[] trims = {true};
            b.arrivals(() -> new Arrival(false, trims[0], false));   // one a clock: trims before the last hop, or plain packets
            java.util.function.LongSupplier check = () -> {
                long before = b.model.occ.counters.get("OCC_DECISIONS");
                while (b.model.occ.counters.get("OCC_DECISIONS") == before) {
                    b.step();
                }
                for (int i = 0; i < 40; i++) {
                    b.step();   // the quotient is written 34 edges after the rate
                }
                long rate = b.read(RcccPacerCsr.OCC_RATE), ps = b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM);
                assertEquals(Math.min((base[0] << 30) / rate, (1 << 24) - 1), ps, "OCC_PS_PER_QUANTUM at OCC_RATE " + rate);
                return rate;
            };
            for (int i = 0; i < 3; i++) {
                check.getAsLong();
            }
            assertEquals(1, b.read(RcccPacerCsr.OCC_RATE), "all trims: the rate at its floor");
            assertEquals((1 << 24) - 1, b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM), "saturated");
            base[0] = 5;
            b.write(RcccPacerCsr.PS_PER_QUANTUM, base[0]);
            for (int i = 0; i < 40; i++) {
                b.step();   // taken up by the unit (a recompute), or by a decision
            }
            assertEquals((1 << 24) - 1, b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM), "5 x 2^30 / 1 saturates too");
            base[0] = (1 << 24) - 1;   // every rate below 1 then saturates the quotient, through the division's full width
            b.write(RcccPacerCsr.PS_PER_QUANTUM, base[0]);
            trims[0] = false;
            long rate = 0;
            for (int i = 0; i < 12 && rate != ONE; i++) {
                rate = check.getAsLong();
            }
            assertEquals(ONE, rate, "unmarked intervals double the rate back to 1");
            assertEquals(base[0], b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM));
            b.write(RcccPacerCsr.PS_PER_QUANTUM, 5);
            for (int i = 0; i < 40; i++) {
                b.step();
            }
            assertEquals(5, b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM), "a write taken up at rate 1");
            b.arrivals(() -> null);
            RcccPacerTest.assertCounters(b);
        });
    }

    /**
     * A period above 2^19 clocks (its 3/4 needs 22 bits before the shift): the first decision comes
     * where the model has it, 3/4 of the period plus the draw after the first boundary, not earlier.
     */
    @Test
    void aLongPeriodsFirstDecisionIsTheModels() {
        RcccPacerConfig cfg = new RcccPacerConfig(1000, 10, 20686, 4000, 64, 1027)
                .withOversubscribedCc((1 << 19) + 1000, 10_737_418, 0x2545F491L);
        withBench(cfg, "long_period", (b, seed) -> {
            b.arrivals(() -> null);
            long edges = 0;
            b.step();   // the first boundary
            while (!b.model.occ.boundaryAtNextEdge()) {
                b.step();
                edges++;
            }
            assertTrue(edges > 3L * ((1 << 19) + 1000) / 4 - 10, "the model's interval: " + edges + " edges");
            assertEquals(0, b.read(RcccPacerCsr.OCC_DECISIONS), "no decision before the interval's end");
            while (b.model.occ.counters.get("OCC_DECISIONS") == 0) {
                b.step();
            }
            for (int i = 0; i < 40; i++) {
                b.step();
            }
            assertEquals(1, b.read(RcccPacerCsr.OCC_DECISIONS), "the decision at the interval's end");
        });
    }

    /**
     * The reference's receiver in incast15 (uet-htsim's trace, the decisions of the controller at the
     * node that receives): each of its 140 intervals' packets, marks and trims presented in one of
     * the block's intervals, one arrival a clock in a seeded order; after each decision OCC_RATE is
     * the reference's rate within the fixed model's bound (2^-22), OCC_G its g within 2^-28, and
     * OCC_PS_PER_QUANTUM the reference's time per quantum at 20,686 ps within 10^-4.
     */
    @Test
    void theReferencesIntervalsGiveItsRates() throws Exception {
        List<String[]> decisions = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                RcccOversubscribedCcTest.class.getResourceAsStream("/uet-htsim/rccc-oversubscribed-cc-incast15.txt.gz"))))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("At ") && line.contains(" flow 280 ")) {
                    decisions.add(line.split(" "));   // At T oversubscribed cc G rate R flow ID total packets N trimmed O trimmed last hop L ecn E
                }
            }
        }
        assertEquals(140, decisions.size());
        RcccPacerConfig cfg = new RcccPacerConfig(1000, 10, 20686, 4000, 64, 1027).withOversubscribedCc(1024, 10_737_418, 0x2545F491L);
        withBench(cfg, "reference", (b, seed) -> {
            Random order = new Random(seed);
            ArrayDeque<Arrival> interval = new ArrayDeque<>();
            int[] next = {0};
            b.arrivals(() -> {
                if (b.model.occ.boundaryAtNextEdge()) {
                    assertTrue(interval.isEmpty(), "an interval's arrivals fit it");
                    if (next[0] < decisions.size()) {
                        String[] w = decisions.get(next[0]++);
                        int total = Integer.parseInt(w[11]), other = Integer.parseInt(w[13]), last = Integer.parseInt(w[17]);
                        int ecn = Integer.parseInt(w[19]);
                        List<Arrival> a = new ArrayList<>();
                        for (int i = 0; i < total; i++) {
                            a.add(i < other ? new Arrival(false, true, false) : i < other + last ? new Arrival(false, true, true)
                                    : new Arrival(i < other + last + ecn, false, false));
                        }
                        Collections.shuffle(a, order);
                        interval.addAll(a);
                    }
                }
                return interval.poll();
            });
            double worstRate = 0, worstPs = 0;
            int decreases = 0;
            for (int d = 0; d < decisions.size(); d++) {
                long before = b.model.occ.counters.get("OCC_DECISIONS");
                while (b.model.occ.counters.get("OCC_DECISIONS") == before) {
                    b.step();
                }
                for (int i = 0; i < 40; i++) {
                    b.step();   // the time per quantum is written 34 edges after the rate
                }
                String[] w = decisions.get(d);
                double g = Double.parseDouble(w[4]), rate = Double.parseDouble(w[6]);
                long rtlRate = b.read(RcccPacerCsr.OCC_RATE), rtlG = b.read(RcccPacerCsr.OCC_G);
                long rtlPs = b.read(RcccPacerCsr.OCC_PS_PER_QUANTUM);
                long referencePs = (long) (20_686 / rate);   // uec.cpp:3132-3139, OversubscribedCcExact.psPerQuantum
                String at = "decision " + d + " (" + String.join(" ", w) + ")";
                assertEquals(rate, rtlRate / (double) ONE, OversubscribedCcTest.BOUND, "OCC_RATE at " + at);
                assertEquals(g, rtlG / (double) ONE, Math.pow(2, -28), "OCC_G at " + at);
                assertEquals(referencePs, rtlPs, OversubscribedCcTest.BOUND_PS * referencePs, "OCC_PS_PER_QUANTUM at " + at);
                worstRate = Math.max(worstRate, Math.abs(rate - rtlRate / (double) ONE));
                worstPs = Math.max(worstPs, Math.abs(referencePs - rtlPs) / (double) referencePs);
                decreases += rate < 1 ? 1 : 0;
            }
            assertTrue(decreases > 10, "the trace decreases the rate");
            assertEquals(OversubscribedCcExact.MIN_RATE, 0.01);
            System.out.printf("rccc-pacer oversubscribed-cc on the reference's 140 intervals (seed %d): rate within %.2e,"
                    + " time per quantum within %.2e; %d decisions below 1%n", seed, worstRate, worstPs, decreases);
        });
    }
}
