// SPDX-License-Identifier: Apache-2.0
package uehw.bench.rccc;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import uehw.bench.AxiLite4Master;
import uehw.bench.StreamDriver;
import uehw.bench.csr.RcccPacerCsr;
import uehw.bench.facade.Sim;
import uehw.hw.rccc.RcccPacer;
import uehw.hw.rccc.RcccPacerConfig;
import uehw.hw.rccc.RcccPacerIo;
import uehw.model.rccc.OversubscribedCcClocked;
import uehw.model.rccc.OversubscribedCcClocked.Arrival;
import uehw.model.rccc.RcccPacerModel;
import uehw.model.rccc.RcccPacerModel.Event;
import uehw.model.rccc.RcccPacerModel.Pull;

/**
 * Drives an RcccPacer DUT and an RcccPacerModel in lockstep, clock by clock: the same event
 * presented (with an idle pattern) and the same PULL-port ready (with a backpressure pattern); at
 * every edge the event taken or not and the PULL presented (valid and payload) must be the model's.
 */
public final class RcccPacerBench {
    /** A PULL taken from the port, at an edge. */
    public record Taken(long edge, Pull pull) {
    }

    public final RcccPacerIo io;
    public final RcccPacerConfig cfg;
    public final RcccPacerModel model;
    public final AxiLite4Master csr;
    public final List<Taken> pulls = new ArrayList<>();
    private final Sim<RcccPacer> sim;
    private StreamDriver<Event> driver;
    private long takenBefore;   // by the drivers of earlier patterns
    private Random random = new Random(1);
    private double ready = 1;
    private long edges;
    private int postedAddress = -1;
    private long postedValue;
    private boolean following;
    private Supplier<Arrival> arrivals = () -> null;

    public RcccPacerBench(Sim<RcccPacer> sim) {
        this.sim = sim;
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = new RcccPacerModel(cfg.connections(), cfg.psPerQuantum(), cfg.clockPs(), (int) cfg.creditPerPull(),
                (int) cfg.maxwndQuanta(), cfg.oversubscribedCc() ? new OversubscribedCcClocked(cfg.occPeriodClocks(),
                        cfg.occMinRate(), cfg.occSeed(), cfg.psPerQuantum()) : null);
        if (io.arrival() != null) {
            sim.poke(io.arrival().valid(), false);
        }
        pattern(random, 0, 1);
        sim.poke(io.pulls().ready(), true);
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        sim.reset(16);
        for (int i = 0; i < cfg.connections() + 16 && !sim.peekBool(io.initDone()); i++) {
            sim.step();
        }
        if (!sim.peekBool(io.initDone())) {
            throw new AssertionError("initDone never rose");
        }
        // the ports open (and the controller's first interval starts) at the edge after initDone rose: the model starts there
    }

    /** From now on: the event port idle with probability `idle`, the PULL port ready with probability `ready`. */
    public void pattern(Random random, double idle, double ready) {
        if (driver != null && !driver.idle()) {
            throw new IllegalStateException("change the pattern only when every event was taken");
        }
        this.random = random;
        this.ready = ready;
        takenBefore += driver == null ? 0 : driver.taken();
        driver = new StreamDriver<>(sim, io.event().valid(), io.event().ready(), (s, e) -> {
            var p = io.event().payload();
            s.poke(p.kind(), (long) e.kind());
            s.poke(p.conn(), (long) e.conn());
            s.poke(p.number(), e.number() & 0xFFFF_FFFFL);
        }, random, idle);
    }

    /** What the arrival port presents at each edge from now on (null: valid low); the option's port. */
    public void arrivals(Supplier<Arrival> source) {
        if (io.arrival() == null) {
            throw new IllegalStateException("the pacer has no oversubscription controller");
        }
        this.arrivals = source;
    }

    public void push(Event e) {
        driver.push(e);
    }

    public long edges() {
        return edges;
    }

    public long eventsTaken() {
        return takenBefore + driver.taken();
    }

    /** One clock, DUT and model side by side. */
    public void step() {
        driver.beforeEdge();
        Event offered = driver.presented();
        boolean pullReady = ready >= 1 || random.nextDouble() < ready;
        sim.poke(io.pulls().ready(), pullReady);
        Arrival arrival = arrivals.get();
        if (io.arrival() != null) {
            sim.poke(io.arrival().valid(), arrival != null);
            if (arrival != null) {
                var a = io.arrival().payload();
                sim.poke(a.ecn(), arrival.ecn());
                sim.poke(a.trimmed(), arrival.trimmed());
                sim.poke(a.lastHop(), arrival.lastHop());
            }
        }
        sim.step();
        csr.afterEdge();
        boolean dutTaken = driver.afterEdge() != null;
        Pull dutPull = null;
        if (sim.peekBool(io.pulls().valid())) {
            var q = io.pulls().payload();
            dutPull = new Pull((int) sim.peek(q.conn()), (int) sim.peek(q.number()), sim.peekBool(q.slow()));
        }
        Pull modelPull = model.pull();
        boolean modelTaken = model.step(offered, pullReady, arrival);
        edges++;
        if (dutTaken != modelTaken || !java.util.Objects.equals(dutPull, modelPull)) {
            String message = String.format("rccc-pacer at edge %d (of the bench): event %s taken: RTL %b, model %b; "
                    + "PULL presented: RTL %s, model %s (model lead %d ps)", edges, offered == null ? "none" : offered,
                    dutTaken, modelTaken, dutPull, modelPull, model.lead());
            System.out.println(message);   // also here: a long run's report comes at the end of the class
            throw new AssertionError(message);
        }
        // regif: with E the edge that took the write's later beat, the register holds the new value from
        // edge E + 1, so a register loading it at edge E + 2 or later takes the new value
        if (following) {
            follow(postedAddress, postedValue);
            postedAddress = -1;
            following = false;
        } else if (postedAddress >= 0 && csr.postedEdge() == sim.cycle()) {
            following = true;
        }
        if (dutPull != null && pullReady) {
            pulls.add(new Taken(edges, dutPull));
        }
    }

    /** Steps until every pushed event was taken; returns the clocks. */
    public long flush() {
        long clocks = 0;
        while (!driver.idle()) {
            step();
            if (++clocks > 10_000_000) {
                throw new AssertionError("events stopped being taken");
            }
        }
        return clocks;
    }

    /** Steps until every event was taken and the pacer is quiet (its lists empty, no PULL waiting); returns the clocks. */
    public long drain() {
        long clocks = flush();
        while (!model.quiet()) {
            step();
            if (++clocks > 100_000_000) {
                throw new AssertionError("the pacer never went quiet");
            }
        }
        for (int i = 0; i < 4; i++) {
            step();
        }
        return clocks + 4;
    }

    /** Writes a setting (blocking) and has the model follow from the edge after the write's beats. */
    public void write(int address, long value) {
        post(address, value);
        while (settingPending()) {
            step();
        }
    }

    /** Presents a setting's write without waiting: it lands among the traffic, the model following at its edge. */
    public void post(int address, long value) {
        csr.postWrite(address, value);
        postedAddress = address;
        postedValue = value;
    }

    public boolean settingPending() {
        return postedAddress >= 0 || !csr.postedDone();
    }

    private void follow(int address, long value) {
        switch (address) {
            case RcccPacerCsr.PS_PER_QUANTUM -> model.psPerQuantum = value;
            case RcccPacerCsr.CLOCK_PS -> model.clockPs = value;
            case RcccPacerCsr.CREDIT_PER_PULL -> model.creditPerPull = (int) value;
            case RcccPacerCsr.MAXWND_QUANTA -> model.maxwndQuanta = (int) value;
            case RcccPacerCsr.OCC_PERIOD_CLOCKS -> model.occ.periodClocks = value;
            case RcccPacerCsr.OCC_MIN_RATE -> model.occ.minRate = value;
            default -> throw new IllegalArgumentException("not a setting: " + address);
        }
    }

    public long read(int address) {
        return csr.read(address);
    }
}
