// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * RCCC's receiver pull pacer as the transport calls it (uet-htsim 40ccb05 uec.cpp:3044-3175, one
 * per receiving node): a data packet's or trimmed header's pull target, a pull request, and the
 * PULLs it sends through {@code sendPull}. UecPullPacer is the reference's, in ps; ClockedPullPacer
 * runs the rccc-pacer block (its model or its RTL) at the clock.
 */
public interface PullPacer {
    /**
     * Makes the pacer of one receiving node; {@code sendPull} sends a sink's PULL (its latest pull;
     * slow or not); {@code running} says whether the network still has unfinished flows (a clocked
     * oversubscription controller ticks while it does).
     */
    interface Factory {
        PullPacer make(int host, EventLoop loop, UecTransport.Settings settings, BiConsumer<UecPullPacer.Sink, Boolean> sendPull,
                       BooleanSupplier running);
    }

    /** The pacer's state of a connection, made when the connection's first packet arrives (uec.cpp:2910-2945). */
    UecPullPacer.Sink sink(int flow);

    /** uec.cpp:2547-2569 handlePullTarget: a data packet's or trimmed header's pull target. */
    void pullTarget(UecPullPacer.Sink s, long target);

    /** uec.cpp:2784-2792, 2814-2817: a trimmed arrival (or an RTS) asks for a pull. */
    void request(UecPullPacer.Sink s);

    /**
     * Whether the pacer has its own oversubscription controller (the rccc-pacer's option), fed
     * through {@link #arrival}; else the transport runs the reference's beside it.
     */
    default boolean controlsOversubscription() {
        return false;
    }

    /** A packet arrived at this node (uec.cpp:2876-2877, 2627-2633, 2750-2754: every one, duplicates too). */
    default void arrival(boolean ecn, boolean trimmed, boolean lastHop) {
        throw new UnsupportedOperationException("this pacer has no oversubscription controller");
    }

    /** PULLs sent, of them slow. */
    long pulls();

    long slowPulls();
}
