// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Function;

import spinal.core.Bundle;
import uehw.bench.facade.Sim;
import uehw.hw.window.WindowEvent;
import uehw.hw.window.WindowUnit;
import uehw.hw.window.WindowUnitIo;

/**
 * The part of a window-unit bench (docs/window-unit.md) that does not depend on the law: the
 * update and retransmit scoreboards and their monitors, the CSR master, the counters, the window
 * query port and the drain. A law's bench gives how to drive its event, how to read its update,
 * and applies each taken event to its model.
 *
 * @param <E>  the model's event
 * @param <EB> the RTL's event bundle
 * @param <UB> the RTL's update bundle
 * @param <R>  the model's update, as the RTL's is read back
 */
public abstract class WindowUnitBench<E, EB extends Bundle & WindowEvent, UB extends Bundle, R> extends TimedEventBench<E> {
    /** A retransmit request. */
    public record Retransmit(int flow, boolean timeout) {
    }

    public final WindowUnitIo<EB, UB> io;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<R> updates;
    public final InOrderScoreboard<Retransmit> retransmits;
    private final StreamMonitor<R> updateMonitor;
    private final StreamMonitor<Retransmit> retransmitMonitor;
    private final int latency;

    protected WindowUnitBench(Sim<? extends WindowUnit<EB, ?, UB>> sim, String name, int latency,
                              BiConsumer<Sim<?>, E> drivePayload, Function<Sim<?>, R> readUpdate) {
        super(sim, sim.dut().io().event().valid(), sim.dut().io().event().ready(), drivePayload, sim.dut().io().now());
        this.io = sim.dut().io();
        this.latency = latency;
        this.updates = new InOrderScoreboard<>(name + " updates");
        this.retransmits = new InOrderScoreboard<>(name + " retransmits");
        updateMonitor = StreamMonitor.passive(sim, io.update().valid(), null, readUpdate, updates::actual);
        var r = io.retransmit().payload();
        retransmitMonitor = StreamMonitor.passive(sim, io.retransmit().valid(), null,
                s -> new Retransmit((int) s.peek(r.flow()), s.peekBool(r.timeout())), retransmits::actual);
        sim.poke(io.cwndQuery().valid(), false);
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        followCsr(csr);
    }

    /**
     * One CSR write put among the events, as the law's docs make a change exact: the events queued
     * are taken, then none is accepted in the {@code quiet} edges before the write's edge h (where
     * an event may read some stages' CSRs old and others new), the write is taken at h, and the
     * model changes before the events accepted at h + {@code effectAfter}, the first edge at which
     * the events pushed next can be accepted (so none is accepted from h - quiet to h + effectAfter - 1).
     * The pipeline still holds the events accepted before the quiet edges when the write lands.
     */
    public final void writeAmongEvents(Random random, int quiet, long address, long value, int effectAfter, Runnable change) {
        writeAfterQuiet(quiet + (random.nextBoolean() ? 0 : random.nextInt(3)), address, value, effectAfter, change); // the shortest span half the time
    }

    /**
     * The same with exactly {@code quiet} edges after the last event's acceptance (the edge this
     * returns to when the events queued were taken there): the shortest span the docs allow.
     */
    public final void writeAfterQuiet(int quiet, long address, long value, int effectAfter, Runnable change) {
        while (!inputIdle()) {
            step();
        }
        long h = cycle() + quiet + 1; // the last event was accepted at cycle() or before
        actions().writeAt(h, address, value, h + effectAfter, change);
        while (cycle() < h + effectAfter - 1) { // the next event is accepted at h + effectAfter or later
            step();
        }
    }

    @Override
    protected void afterEdge() {
        updateMonitor.afterEdge();
        retransmitMonitor.afterEdge();
    }

    @Override
    protected long pending() {
        return updates.pending() + retransmits.pending();
    }

    /** Clocks until every pushed event was taken and its update came out; returns the clocks. */
    public long drain() {
        long clocks = drain(latency);   // and then nothing more may come out
        updates.assertEmpty();
        retransmits.assertEmpty();
        return clocks;
    }

    /** Reads STATUS until (STATUS & mask) == ready: the reset sweep (and whatever else the law waits for) done. */
    protected final void waitStatus(int status, long mask, long ready, int flows, String what) {
        for (int i = 0; i < flows + 200; i++) {
            if ((csr.read(status) & mask) == ready) {
                return;
            }
        }
        throw new AssertionError("STATUS never showed " + what);
    }

    public long counter(int address) {
        return csr.read(address);
    }

    /** The window of a flow through the query port. */
    public long queryCwnd(int flow) {
        sim.poke(io.cwndQuery().valid(), true);
        sim.poke(io.cwndQuery().payload(), (long) flow);
        step();
        sim.poke(io.cwndQuery().valid(), false);
        step();
        if (!sim.peekBool(io.cwndReply().valid()) || sim.peek(io.cwndReply().payload().flow()) != flow) {
            throw new AssertionError("no reply to a window query for flow " + flow);
        }
        return sim.peek(io.cwndReply().payload().cwnd());
    }
}
