// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import spinal.core.BaseType;
import uehw.bench.AxiLite4Master;
import uehw.bench.InOrderScoreboard;
import uehw.bench.StreamDriver;
import uehw.bench.StreamMonitor;
import uehw.bench.csr.DartDftCsr;
import uehw.bench.facade.Sim;
import uehw.hw.dart.DartDft;
import uehw.hw.dart.DartDftIo;
import uehw.model.dart.DartDftModel;
import uehw.model.dart.DartDftModel.Decision;
import uehw.model.dart.DartDftModel.Packet;

/**
 * Drives a DartDft DUT next to a DartDftModel: every packet the DUT accepts is applied to the
 * model in acceptance order and every decision the DUT emits is checked against the model's, in
 * order. Random idle on the input and random backpressure on the output are set per phase.
 * An optional observer sees each decision with the packet (full meta) it belongs to.
 */
public final class DartBench {
    public final Sim<DartDft> sim;
    public final DartDftIo io;
    public final DartDftModel model;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<Decision> decisions = new InOrderScoreboard<>("dart decisions");
    /** Every decision the DUT produced, when {@link #keep} is set. */
    public final List<Decision> seen = new ArrayList<>();
    public boolean keep;
    private final Deque<Packet> accepted = new ArrayDeque<>();
    private final long metaMask;
    private final int flowIdWidth;
    private StreamDriver<Packet> driver;
    private StreamMonitor<Decision> monitor;
    private BiConsumer<Packet, Decision> observer = (p, d) -> { };
    private Consumer<Packet> acceptObserver = p -> { };

    public DartBench(Sim<DartDft> sim, DartDftModel model) {
        this.sim = sim;
        this.io = sim.dut().io();
        this.model = model;
        this.metaMask = mask(sim.dut().cfg().metaWidth());
        this.flowIdWidth = sim.dut().cfg().flowIdWidth();
        patterns(new Random(1), 0, 0);
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        sim.reset(16);
        waitTablesReady();
    }

    private static long mask(int width) {
        return width == 64 ? -1L : (1L << width) - 1;
    }

    /** Input idle and output backpressure probabilities from now on (call between phases). */
    public void patterns(Random random, double idle, double backpressure) {
        if (driver != null && !driver.idle()) {
            throw new IllegalStateException("change patterns only when every packet was taken");
        }
        var in = io.pkt().payload();
        driver = new StreamDriver<>(sim, io.pkt().valid(), io.pkt().ready(), (s, p) -> {
            pokeUnsigned(in.flowId(), p.flowId(), flowIdWidth);
            s.poke(in.start(), p.start());
            s.poke(in.end(), p.end());
            s.poke(in.tokens(), (long) p.tokens());
            s.poke(in.routedPort(), (long) p.routedPort());
            s.poke(in.queueBytes(), p.queueBytes());
            pokeUnsigned(in.meta(), p.meta() & metaMask, sim.dut().cfg().metaWidth());
        }, random, idle);
        var out = io.decision().payload();
        monitor = StreamMonitor.sink(sim, io.decision().valid(), io.decision().ready(), s -> new Decision(
                peekUnsigned(out.flowId(), flowIdWidth), peekUnsigned(out.meta(), sim.dut().cfg().metaWidth()),
                (int) s.peek(out.port()), (int) s.peek(out.tokens()), s.peekBool(out.deflected()),
                s.peekBool(out.tableHit()), s.peekBool(out.allocated()), s.peekBool(out.freed())),
                this::onDecision, random, backpressure);
    }

    private void pokeUnsigned(BaseType signal, long value, int width) {
        if (width >= 63) {
            sim.poke(signal, new BigInteger(Long.toUnsignedString(value)));
        } else {
            sim.poke(signal, value);
        }
    }

    private long peekUnsigned(BaseType signal, int width) {
        return width >= 63 ? sim.peekBig(signal).longValue() : sim.peek(signal);
    }

    public void observe(BiConsumer<Packet, Decision> observer) {
        this.observer = observer;
    }

    /** Sees each packet right after the edge that accepted it, once the model has applied it. */
    public void observeAccept(Consumer<Packet> acceptObserver) {
        this.acceptObserver = acceptObserver;
    }

    public void push(Packet p) {
        driver.push(p);
    }

    public boolean inputIdle() {
        return driver.idle();
    }

    /** One clock: packets accepted at this edge go to the model, decisions seen go to the scoreboard. */
    public void step() {
        driver.beforeEdge();
        monitor.beforeEdge();
        sim.step();
        csr.afterEdge(); // a write posted for an exact edge (AxiLite4Master.postWrite)
        Packet taken = driver.afterEdge();
        if (taken != null) {
            accepted.addLast(taken);
            Decision d = model.apply(taken);
            decisions.expect(new Decision(d.flowId(), d.meta() & metaMask, d.port(), d.tokens(), d.deflected(),
                    d.tableHit(), d.allocated(), d.freed()));
            acceptObserver.accept(taken);
        }
        monitor.afterEdge();
    }

    private void onDecision(Decision d) {
        decisions.actual(d);
        Packet p = accepted.pollFirst();
        observer.accept(p, d);
        if (keep) {
            seen.add(d);
        }
    }

    /** Clocks until every pushed packet was taken and its decision came out; returns the clocks. */
    public long drain() {
        long clocks = 0;
        while (!driver.idle() || decisions.pending() > 0) {
            step();
            if (++clocks > 1_000_000) {
                throw new AssertionError("decisions stopped: " + decisions.pending() + " pending");
            }
        }
        return clocks;
    }

    /** Steps until the candidate tables are built (after reset or a mask change). */
    public void waitTablesReady() {
        for (int i = 0; i < 1000; i++) {
            if ((csr.read(DartDftCsr.STATUS) >>> 16 & 1) == 0) {
                return;
            }
        }
        throw new AssertionError("STATUS.REBUILDING never cleared");
    }

    public long counter(int address) {
        return csr.read(address);
    }

    public int occupancy() {
        return (int) (csr.read(DartDftCsr.STATUS) & 0xFF);
    }

    /** Writes CONTROL and the masks, in the model too (the pipeline must be drained). */
    public void control(boolean enable, boolean torMode, boolean everyMisroute) {
        csr.write(DartDftCsr.CONTROL, (enable ? DartDftCsr.Control.ENABLE : 0) | (torMode ? DartDftCsr.Control.TOR_MODE : 0)
                | (everyMisroute ? DartDftCsr.Control.EVERY_MISROUTE : 0));
        model.enable = enable;
        model.torMode = torMode;
        model.everyMisroute = everyMisroute;
        waitTablesReady();
    }

    public void masks(long candidates, long hostPorts) {
        csr.write(DartDftCsr.CANDIDATES_LO, candidates & 0xFFFFFFFFL);
        csr.write(DartDftCsr.HOST_PORTS_LO, hostPorts & 0xFFFFFFFFL);
        if (model.ports > 32) {
            csr.write(DartDftCsr.CANDIDATES_HI, candidates >>> 32);
            csr.write(DartDftCsr.HOST_PORTS_HI, hostPorts >>> 32);
        }
        model.candidates = candidates;
        model.hostPorts = hostPorts;
        // The new mask reaches the rebuild two clocks after the write.
        for (int i = 0; i < 2; i++) {
            step();
        }
        waitTablesReady();
    }

    public void threshold(long bytes) {
        csr.write(DartDftCsr.THRESHOLD, bytes);
        model.threshold = bytes;
    }

    public void minTokens(int tokens) {
        csr.write(DartDftCsr.MIN_TOKENS, tokens);
        model.minTokens = tokens;
    }

    public void seed(long seed) {
        csr.write(DartDftCsr.SEED, seed);
        model.reseed(seed);
    }

    public void flush() {
        csr.write(DartDftCsr.COMMAND, 1);
        model.flush();
        for (int i = 0; i < 4; i++) {
            step();
        }
    }
}
