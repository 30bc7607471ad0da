package uehw.sim.dart;

import java.util.Random;
import java.util.function.LongUnaryOperator;

import uehw.hw.dart.DartDasr;
import uehw.hw.dart.DartDasrConfig;
import uehw.hw.dart.DartDasrIo;
import uehw.sim.AxiLite4Master;
import uehw.sim.InOrderScoreboard;
import uehw.sim.StreamDriver;
import uehw.sim.StreamMonitor;
import uehw.sim.facade.Sim;

/**
 * Drives a DartDasr DUT next to a DasrModel: each event the DUT accepts goes to the model with the
 * {@code now} the DUT sampled, and every reply the DUT emits is checked against the model's, in
 * order. {@code now} advances each clock by a caller-chosen step.
 */
public final class DasrBench {
    /** A reply as the DUT gives it. */
    public record Reply(int n, boolean ecnPass, int state) {
    }

    public final Sim<DartDasr> sim;
    public final DartDasrIo io;
    public final DartDasrConfig cfg;
    public final DasrModel model;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<Reply> replies = new InOrderScoreboard<>("dasr replies");
    private final StreamMonitor<Reply> monitor;
    /** The last reply the DUT gave. */
    public Reply lastReply;
    private StreamDriver<DasrEvent> driver;
    private long now;
    private LongUnaryOperator clock = t -> t + 3;

    public static DasrModel modelOf(DartDasrConfig cfg) {
        return new DasrModel(cfg.capacity(), cfg.maxMessages(), cfg.idleTimeoutNs(), cfg.windowNs(), cfg.lineRateBytes(),
                cfg.senderIdBits());
    }

    public DasrBench(Sim<DartDasr> sim) {
        this.sim = sim;
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = modelOf(cfg);
        idle(new Random(1), 0);
        var r = io.reply().payload();
        monitor = StreamMonitor.passive(sim, io.reply().valid(), null,
                s -> new Reply((int) s.peek(r.n()), s.peekBool(r.ecnPass()), (int) s.peek(r.state())), seen -> {
                    lastReply = seen;
                    replies.actual(seen);
                });
        sim.poke(io.now(), 0L);
        this.csr = new AxiLite4Master(sim, io.ctrl());
        sim.reset(2);
        waitReady();
    }

    /** Input idle probability from now on (only when every event was taken). */
    public void idle(Random random, double idle) {
        if (driver != null && !driver.idle()) {
            throw new IllegalStateException("change the idle pattern only when every event was taken");
        }
        var in = io.event().payload();
        driver = new StreamDriver<>(sim, io.event().valid(), io.event().ready(), (s, e) -> {
            s.poke(in.lookAhead(), e.lookAhead());
            s.poke(in.sender(), e.sender() & 0xFFFF_FFFFL);
            s.poke(in.first(), e.first());
            s.poke(in.last(), e.last());
            s.poke(in.announced(), e.announced());
            s.poke(in.ecn(), e.ecn());
            s.poke(in.bytes(), (long) e.bytes());
            s.poke(in.group(), (long) e.group());
        }, random, idle);
    }

    /** How {@code now} (ns) advances each clock. */
    public void clock(LongUnaryOperator next) {
        this.clock = next;
    }

    public long now() {
        return now;
    }

    /** Sets {@code now} (ns) for the next clock (with clock(t -> t) it then holds). */
    public void setNow(long ns) {
        now = ns;
    }

    public void push(DasrEvent e) {
        driver.push(e);
    }

    public boolean inputIdle() {
        return driver.idle();
    }

    /** One clock. */
    public void step() {
        long sampled = now & DasrModel.TIME_MASK;
        sim.poke(io.now(), sampled);
        driver.beforeEdge();
        sim.step();
        DasrEvent taken = driver.afterEdge();
        if (taken != null) {
            DasrModel.Reply r = taken.applyTo(model, sampled);
            if (r != null) {
                replies.expect(new Reply(r.n(), r.ecnPass(), model.state().ordinal()));
            }
        }
        monitor.afterEdge();
        now = clock.applyAsLong(now);
    }

    /** Clocks until every pushed event was taken and its reply came out; returns the clocks. */
    public long drain() {
        long clocks = 0;
        while (!driver.idle() || replies.pending() > 0) {
            step();
            if (++clocks > 1_000_000) {
                throw new AssertionError("replies stopped: " + replies.pending() + " pending");
            }
        }
        for (int i = 0; i < DartDasr.latency(); i++) {
            step(); // a trailing look-ahead's counters (no reply waits for it)
        }
        return clocks;
    }

    private void waitReady() {
        for (int i = 0; i < cfg.capacity() + 16; i++) {
            step();
            if (sim.peekBool(io.initDone())) {
                return;
            }
        }
        throw new AssertionError("initDone never rose");
    }

    public long read(int address) {
        return csr.read(address);
    }

    /** Writes the run-time CSRs, in the model too (drain first). */
    public void idleTimeout(long ns) {
        csr.write(DasrCsr.IDLE_TIMEOUT, ns);
        model.idleTimeoutNs = ns;
    }

    public void window(long ns) {
        csr.write(DasrCsr.WINDOW, ns);
        model.windowNs = ns;
    }

    public void lineRateBytes(long bytes) {
        csr.write(DasrCsr.LINE_RATE_BYTES, bytes);
        model.lineRateBytes = bytes;
    }
}
