// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.function.BiConsumer;

import spinal.core.Bool;
import uehw.bench.facade.Sim;

/**
 * Drives a valid/ready stream (spinal.lib Stream, AXI4-Stream beats) from a queue, with an
 * optional random idle pattern. Call {@link #beforeEdge} before and {@link #afterEdge} after
 * each clock step; an item leaves the queue when valid && ready were sampled at the edge.
 */
public final class StreamDriver<P> {
    private final Sim<?> sim;
    private final Bool valid;
    private final Bool ready;
    private final BiConsumer<Sim<?>, P> drivePayload;
    private final Deque<P> queue = new ArrayDeque<>();
    private final Random random;
    private final double idleProbability;
    private boolean presenting;
    private long taken;

    public StreamDriver(Sim<?> sim, Bool valid, Bool ready, BiConsumer<Sim<?>, P> drivePayload,
                        Random random, double idleProbability) {
        this.sim = sim;
        this.valid = valid;
        this.ready = ready;
        this.drivePayload = drivePayload;
        this.random = random;
        this.idleProbability = idleProbability;
        sim.poke(valid, false);
    }

    public void push(P item) {
        queue.addLast(item);
    }

    public boolean idle() {
        return queue.isEmpty();
    }

    public long taken() {
        return taken;
    }

    public void beforeEdge() {
        // A presented item stays presented until taken (AXI: valid may not drop before ready).
        if (!presenting && !queue.isEmpty() && (idleProbability == 0 || random.nextDouble() >= idleProbability)) {
            drivePayload.accept(sim, queue.peekFirst());
            presenting = true;
        }
        sim.poke(valid, presenting);
    }

    /** The item presented at the coming edge (after {@link #beforeEdge}), or null. */
    public P presented() {
        return presenting ? queue.peekFirst() : null;
    }

    /** Returns the item taken at this edge, or null. */
    public P afterEdge() {
        if (presenting && sim.peekBool(ready)) {
            presenting = false;
            taken++;
            return queue.pollFirst();
        }
        return null;
    }
}
