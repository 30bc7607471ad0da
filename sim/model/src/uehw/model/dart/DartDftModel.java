// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

import java.util.ArrayList;
import java.util.List;

import uehw.model.Counters;
import uehw.model.Xorshift32;

/**
 * Golden model of Dart's deflected flow table (dart.txt Sec. IV-A/B), one packet at a time in
 * input order. It is written from the paper's rules, not from the RTL's structure: the deflection
 * port is the (((draw >> 7) * n) >> 25)-th of the n allowed ports other than the routed one,
 * listed in ascending order, with one xorshift32 draw per packet (its top 25 bits: one DSP48E2).
 */
public final class DartDftModel {
    /** Low draw bits the port map ignores: the top 25 bits times n fit one 27 x 18 DSP multiply. */
    public static final int DRAW_DROPPED_BITS = 7;

    /** One packet from the route lookup. */
    public record Packet(long flowId, boolean start, boolean end, int tokens, int routedPort, long queueBytes,
                         long meta) {
    }

    /** The block's decision for one packet. */
    public record Decision(long flowId, long meta, int port, int tokens, boolean deflected, boolean tableHit,
                           boolean allocated, boolean freed) {
    }

    public final int entries;
    public final int ports;

    // CSRs (reset values of the default generation)
    public boolean enable = true;
    public boolean torMode;
    public boolean everyMisroute = true;
    public long threshold;
    public int minTokens;
    public long candidates;
    public long hostPorts;

    private final Xorshift32 prng;
    private final boolean[] valid;
    private final long[] flow;
    private final int[] port;

    // counters, as the CSRs name them
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("LOOKUPS", "HITS", "ALLOCATIONS", "FREES", "FLUSHED", "REFUSED_FULL", "REFUSED_NO_TOKENS", "REFUSED_NO_CANDIDATE", "HITS_WITHOUT_TOKEN", "BAD_PORT");

    public DartDftModel(int entries, int ports, long threshold, int minTokens, long prngSeed) {
        this.entries = entries;
        this.ports = ports;
        this.threshold = threshold;
        this.minTokens = minTokens;
        this.candidates = ports == 64 ? -1L : (1L << ports) - 1;
        this.prng = new Xorshift32(prngSeed);
        this.valid = new boolean[entries];
        this.flow = new long[entries];
        this.port = new int[entries];
    }

    public void reseed(long seed) {
        prng.reseed(seed);
    }

    /** The ports a packet routed to {@code routed} may be deflected to, ascending. */
    public List<Integer> deflectionPorts(int routed) {
        List<Integer> list = new ArrayList<>();
        for (int p = 0; p < ports; p++) {
            boolean allowed = (candidates >>> p & 1) != 0 && !(torMode && (hostPorts >>> p & 1) != 0);
            if (allowed && p != routed) {
                list.add(p);
            }
        }
        return list;
    }

    public Decision apply(Packet p) {
        counters.inc("LOOKUPS");
        boolean portOk = p.routedPort() < ports;
        if (!portOk) {
            counters.inc("BAD_PORT");
        }
        // One draw per packet, used or not.
        long draw = prng.next();
        int hit = -1;
        for (int i = 0; i < entries; i++) {
            if (valid[i] && flow[i] == p.flowId()) {
                hit = i;
            }
        }
        int outPort = p.routedPort();
        int tokens = p.tokens();
        boolean allocated = false;
        boolean freed = false;
        if (hit >= 0) {
            // Sec. IV-A: a packet whose flow is in the DFT leaves on the entry's port, tokens or not.
            counters.inc("HITS");
            outPort = port[hit];
            if (tokens == 0) {
                counters.inc("HITS_WITHOUT_TOKEN");
            } else if (everyMisroute) {
                tokens--; // Sec. IV-A: "removes a token from each misrouted packet"
            }
            if (p.end()) {
                valid[hit] = false;
                counters.inc("FREES");
                freed = true;
            }
        } else if (enable && p.start() && portOk && Long.compareUnsigned(p.queueBytes(), threshold) > 0) {
            List<Integer> choices = deflectionPorts(p.routedPort());
            int free = -1;
            for (int i = entries - 1; i >= 0; i--) {
                if (!valid[i]) {
                    free = i;
                }
            }
            // Sec. IV-B: a packet without tokens (a long flow) is never deflected, whatever MIN_TOKENS says.
            if (tokens < minTokens || tokens == 0) {
                counters.inc("REFUSED_NO_TOKENS");
            } else if (free < 0) {
                counters.inc("REFUSED_FULL");
            } else if (choices.isEmpty()) {
                counters.inc("REFUSED_NO_CANDIDATE");
            } else {
                outPort = choices.get((int) Xorshift32.scaleTop(draw, choices.size(), 32 - DRAW_DROPPED_BITS));
                allocated = true;
                counters.inc("ALLOCATIONS");
                if (tokens > 0) {
                    tokens--;
                }
                if (p.end()) {
                    counters.inc("FREES"); // a one-packet message: nothing to remember
                    freed = true;
                } else {
                    valid[free] = true;
                    flow[free] = p.flowId();
                    port[free] = outPort;
                }
            }
        }
        return new Decision(p.flowId(), p.meta(), outPort, tokens, hit >= 0 || allocated, hit >= 0, allocated, freed);
    }

    /** COMMAND.FLUSH. */
    public void flush() {
        for (int i = 0; i < entries; i++) {
            if (valid[i]) {
                counters.inc("FLUSHED");
                valid[i] = false;
            }
        }
    }

    public int occupancy() {
        int n = 0;
        for (boolean v : valid) {
            n += v ? 1 : 0;
        }
        return n;
    }
}
