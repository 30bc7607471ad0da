// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.LongUnaryOperator;

import spinal.core.BaseType;
import spinal.core.Bool;
import uehw.bench.facade.Sim;

/**
 * The shared part of a bench that feeds one event Stream and a free-running `now` input: the
 * driver (with an idle pattern), `now` advancing each clock by a caller-chosen step, and one
 * clock that hands each taken event, with the `now` the DUT sampled, to the subclass's model.
 */
public abstract class TimedEventBench<E> {
    protected final Sim<?> sim;
    private final Bool valid;
    private final Bool ready;
    private final BiConsumer<Sim<?>, E> drivePayload;
    private final BaseType nowInput;
    private final long timeMask;
    private StreamDriver<E> driver;
    private long now;
    private LongUnaryOperator clock = t -> t + 1;
    private EdgeActions actions;

    /** The event Stream's valid and ready, how to drive its payload, and the `now` input. */
    protected TimedEventBench(Sim<?> sim, Bool valid, Bool ready, BiConsumer<Sim<?>, E> drivePayload, BaseType nowInput) {
        this.sim = sim;
        this.valid = valid;
        this.ready = ready;
        this.drivePayload = drivePayload;
        this.nowInput = nowInput;
        this.timeMask = nowInput.getBitsWidth() >= 64 ? -1L : (1L << nowInput.getBitsWidth()) - 1;
        sim.poke(nowInput, 0L);
        idle(new Random(1), 0);
    }

    /** The subclass's CSR master: its posted writes are tracked and model changes run at their edges. */
    protected final EdgeActions followCsr(AxiLite4Master csr) {
        actions = new EdgeActions(csr);
        return actions;
    }

    /** Model changes due at an edge, and CSR writes placed at one (see followCsr). */
    public final EdgeActions actions() {
        return actions;
    }

    /** Steps until `done` is high (at most `clocks`), e.g. the post-reset sweep's initDone. */
    protected final void stepUntil(Bool done, int clocks, String what) {
        for (int i = 0; i < clocks && !sim.peekBool(done); i++) {
            step();
        }
        if (!sim.peekBool(done)) {
            throw new AssertionError(what + " never rose");
        }
    }

    /** The event the DUT took at this edge, with the `now` it sampled: apply it to the model, expect its outputs. */
    protected abstract void taken(E event, long sampledNow);

    /** After each edge: the output monitors. */
    protected abstract void afterEdge();

    /** Outputs expected and not seen yet. */
    protected abstract long pending();

    /** Input idle probability from now on (only when every event was taken). */
    public final void idle(Random random, double idle) {
        if (driver != null && !driver.idle()) {
            throw new IllegalStateException("change the idle pattern only when every event was taken");
        }
        driver = new StreamDriver<>(sim, valid, ready, drivePayload, random, idle);
    }

    /** How `now` (ns) advances each clock. */
    public final void clock(LongUnaryOperator next) {
        this.clock = next;
    }

    /** The edges stepped since the simulation started (the edge numbering of EdgeActions). */
    public final long cycle() {
        return sim.cycle();
    }

    public final long now() {
        return now;
    }

    /** Sets `now` (ns) for the next clock (with clock(t -> t) it then holds). */
    public final void setNow(long ns) {
        now = ns;
    }

    public final void push(E e) {
        driver.push(e);
    }

    public final boolean inputIdle() {
        return driver.idle();
    }

    /** One clock. */
    public final void step() {
        long sampled = now & timeMask;
        sim.poke(nowInput, sampled);
        driver.beforeEdge();
        sim.step();
        if (actions != null) {
            actions.afterEdge(sim.cycle());   // before the model takes this edge's event
        }
        E e = driver.afterEdge();
        if (e != null) {
            taken(e, sampled);
        }
        afterEdge();
        now = clock.applyAsLong(now);
    }

    /**
     * Clocks until every pushed event was taken and its outputs came; returns them. Then `latency`
     * clocks more, so that a trailing event without an output is in the counters.
     */
    public final long drain(int latency) {
        long clocks = 0;
        while (!driver.idle() || pending() > 0 || actions != null && !actions.csrIdle()) {
            step();
            if (++clocks > 1_000_000) {
                throw new AssertionError("outputs stopped: " + pending() + " pending");
            }
        }
        for (int i = 0; i < latency; i++) {
            step();
        }
        return clocks;
    }
}
