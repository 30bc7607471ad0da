// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;

import spinal.core.Bool;
import uehw.bench.facade.Sim;

/**
 * Watches a stream (or, with a null ready, a Flow) and hands every transfer's payload to a sink.
 * With a ready to drive it also applies random backpressure. Call {@link #beforeEdge} before and
 * {@link #afterEdge} after each clock step.
 */
public final class StreamMonitor<P> {
    private final Sim<?> sim;
    private final Bool valid;
    private final Bool ready;
    private final Function<Sim<?>, P> readPayload;
    private final Consumer<P> sink;
    private final Random random;
    private final double backpressure;
    private final boolean drivesReady;
    private long transfers;

    /** A Flow (no ready) or a stream whose ready the monitor leaves alone. */
    public static <P> StreamMonitor<P> passive(Sim<?> sim, Bool valid, Bool readyOrNull,
                                               Function<Sim<?>, P> readPayload, Consumer<P> sink) {
        return new StreamMonitor<>(sim, valid, readyOrNull, readPayload, sink, null, 0, false);
    }

    /** A stream sink that drives ready low with probability {@code backpressure} each clock. */
    public static <P> StreamMonitor<P> sink(Sim<?> sim, Bool valid, Bool ready, Function<Sim<?>, P> readPayload,
                                            Consumer<P> sink, Random random, double backpressure) {
        return new StreamMonitor<>(sim, valid, ready, readPayload, sink, random, backpressure, true);
    }

    private StreamMonitor(Sim<?> sim, Bool valid, Bool ready, Function<Sim<?>, P> readPayload, Consumer<P> sink,
                          Random random, double backpressure, boolean drivesReady) {
        this.sim = sim;
        this.valid = valid;
        this.ready = ready;
        this.readPayload = readPayload;
        this.sink = sink;
        this.random = random;
        this.backpressure = backpressure;
        this.drivesReady = drivesReady;
        if (drivesReady) {
            sim.poke(ready, true);
        }
    }

    public long transfers() {
        return transfers;
    }

    public void beforeEdge() {
        if (drivesReady) {
            sim.poke(ready, backpressure == 0 || random.nextDouble() >= backpressure);
        }
    }

    public void afterEdge() {
        if (sim.peekBool(valid) && (ready == null || sim.peekBool(ready))) {
            transfers++;
            sink.accept(readPayload.apply(sim));
        }
    }
}
