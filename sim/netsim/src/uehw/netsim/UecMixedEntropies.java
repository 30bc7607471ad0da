// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

/**
 * The UEC reference simulator's default load balancing, {@code mixed} (uet-htsim 40ccb05
 * uec_mp.cpp:264-287; main_uec.cpp:88-89): an entropy from the FIFO of entropies that came back
 * good (reps_legacy, uec_mp.cpp:199-248) when there is one, else the next of the bitmap's cycle
 * over the path space, skipping penalised entropies (uec_mp.cpp:47-135). Feedback goes to both.
 * The reference's rand() becomes a seeded SplittableRandom: the same behaviour, other draws.
 */
public final class UecMixedEntropies implements EntropyControl {
    private static final int MAX_PENALTY = 15; // uec_mp.cpp:53

    private final int paths;
    private final SplittableRandom random;
    private final Flow[] flows;

    private static final class Flow {
        final ArrayDeque<Integer> good = new ArrayDeque<>();
        final int[] penalty;
        int index;
        int xor;
        int upper;

        Flow(int paths) {
            penalty = new int[paths];
        }
    }

    /** {@code paths}: the entropy space (the reference's -paths, a power of two). */
    public UecMixedEntropies(int flows, int paths, long seed) {
        if (paths < 1 || Integer.bitCount(paths) != 1 || paths > 1 << 16) {
            throw new IllegalArgumentException("paths must be a power of two up to 65536, not " + paths);
        }
        this.paths = paths;
        this.random = new SplittableRandom(seed);
        this.flows = new Flow[flows];
    }

    @Override
    public void init(int flow, long nowNs) {
        Flow f = new Flow(paths);
        f.upper = random.nextInt(0xFFFF); // uec_mp.cpp:54-55: random upper bits and index xor
        f.xor = random.nextInt(paths);
        flows[flow] = f;
    }

    @Override
    public int next(int flow, long nowNs) {
        Flow f = flows[flow];
        Integer recycled = f.good.poll(); // uec_mp.cpp:280-286, 232-241
        if (recycled != null) {
            return recycled;
        }
        int mask = paths - 1; // uec_mp.cpp:92-135
        int entropy = (f.index ^ f.xor) & mask;
        boolean decremented = false;
        int steps = 0;
        while (f.penalty[entropy] > 0) {
            if (!decremented) {
                f.penalty[entropy]--;
            }
            decremented = true;
            if (++steps > paths) {
                break;
            }
            advance(f, mask);
            entropy = (f.index ^ f.xor) & mask;
        }
        advance(f, mask);
        return entropy | f.upper & ~mask;
    }

    private void advance(Flow f, int mask) {
        if (++f.index == paths) {
            f.index = 0;
            f.xor = random.nextInt() & mask;
        }
    }

    /** uec.cpp:1038, 1604-1607: ACK good or ECN; a last-hop NACK arrives here as an ACK with its CE. */
    @Override
    public void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs) {
        Flow f = flows[flow];
        int index = entropy & paths - 1;
        int add = trimmed ? 4 : ecn ? 1 : 0; // uec_mp.cpp:69-76
        f.penalty[index] = Math.min(f.penalty[index] + add, MAX_PENALTY);
        if (!ecn && !trimmed) {
            f.good.add(entropy); // uec_mp.cpp:203-207: PATH_GOOD only
        }
    }

    /** uec.cpp:2333: a timeout penalises entropy 0 (UNKNOWN_EV, uec_mp.h:13) in full. */
    @Override
    public void failure(int flow, long nowNs) {
        flows[flow].penalty[0] = MAX_PENALTY;
    }
}
