// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.Test;
import uehw.model.rccc.OversubscribedCcExact;

/** RCCC's receiver oversubscription controller (uet-htsim 40ccb05 oversubscribed_cc.cpp): the exact model against the reference's traces. */
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
}
