// SPDX-License-Identifier: Apache-2.0
package uehw.bench.reps;

import java.util.ArrayList;
import java.util.List;

import uehw.bench.AxiLite4Master;
import uehw.bench.EdgeActions;
import uehw.bench.InOrderScoreboard;
import uehw.bench.StreamMonitor;
import uehw.bench.csr.RepsCsr;
import uehw.bench.facade.Sim;
import uehw.hw.reps.Reps;
import uehw.hw.reps.RepsIo;
import uehw.model.reps.RepsModel;
import uehw.model.reps.RepsModel.Ctrl;
import uehw.model.reps.RepsModel.CtrlKind;
import uehw.model.reps.RepsModel.SendResult;

/**
 * Drives a Reps DUT one clock at a time next to a RepsModel: every accepted event is applied to
 * the model in the clock the DUT accepted it, and every result the DUT emits is checked against
 * the model's, in order.
 */
public final class RepsBench {
    public final Sim<Reps> sim;
    public final RepsIo io;
    public final RepsModel model;
    public final AxiLite4Master csr;
    /** Model changes due at an edge, and CSR writes placed at one (docs/reps.md, "Timing diagram"). */
    public final EdgeActions actions;
    public final InOrderScoreboard<SendResult> results = new InOrderScoreboard<>("reps send results");
    /** Every result the DUT produced, for directed checks. */
    public final List<SendResult> seen = new ArrayList<>();
    private long now;
    private boolean keep;
    private SendResult lastExpected;
    private final StreamMonitor<SendResult> resultMonitor;

    public RepsBench(Sim<Reps> sim, RepsModel model) {
        this.sim = sim;
        this.io = sim.dut().io();
        this.model = model;
        var r = io.result().payload();
        this.resultMonitor = StreamMonitor.passive(sim, io.result().valid(), null,
                s -> new SendResult(s.peek(r.conn()), s.peek(r.ev()), s.peekBool(r.explored()),
                        s.peekBool(r.replayed()), s.peekBool(r.outOfRange())),
                this::onResult);
        idle();
        if (io.now() != null) {
            sim.poke(io.now(), 0L);
        }
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        this.actions = new EdgeActions(csr);
        sim.reset(16);
        int guard = model.connections + 100;
        while (!sim.peekBool(io.initDone())) {
            step();
            if (--guard == 0) {
                throw new AssertionError("post-reset sweep did not finish");
            }
        }
    }

    public void keepResults(boolean keep) {
        this.keep = keep;
    }

    public long now() {
        return now;
    }

    /** Sets `now` (mode reps only has the port; the other modes ignore time). */
    public void setNow(long t) {
        now = t;
        if (io.now() != null) {
            sim.poke(io.now(), t & ((1L << model.timeWidth) - 1));
        }
    }

    private void idle() {
        sim.poke(io.send().valid(), false);
        sim.poke(io.ack().valid(), false);
        sim.poke(io.failure().valid(), false);
    }

    /** One clock with nothing presented. */
    public void step() {
        sim.step();
        actions.afterEdge(sim.cycle());
        collect();
        if (sim.cycle() == initEdge) {
            model.clock(takeInit(), -1, now);
        }
    }

    /** The edge at which a CSR init written under traffic takes the control port, and its connection. */
    private long initEdge = -1;
    private long initConn;

    private Ctrl takeInit() {
        initEdge = -1;
        return Ctrl.init(initConn);
    }

    /**
     * INIT_CONN written at edge h while events flow: the init takes the control port at edge h + 2
     * (docs/reps.md, CSRs: "granted the control port on the second clock after its AXI4-Lite write
     * is taken"), where neither an ACK nor a failure is accepted, and travels with that edge's send.
     */
    public void initAt(long h, long conn) {
        actions.writeAt(h, RepsCsr.INIT_CONN, conn, h + 3, () -> {
            initEdge = h + 3;
            initConn = conn;
        });
    }

    private void onResult(SendResult r) {
        results.actual(r);
        if (keep) {
            seen.add(r);
        }
    }

    private void collect() {
        resultMonitor.afterEdge();
    }

    /** Whose turn it is when a failure and an ACK wait together (the RTL's alternation, tracked independently). */
    private boolean ackFirst;

    /** One clock presenting a control event (ACK or failure, or null) and a send (conn, or -1). */
    public boolean clock(Ctrl ctrl, long sendConn) {
        boolean isAck = ctrl != null && ctrl.kind() == CtrlKind.ACK;
        boolean isFailure = ctrl != null && ctrl.kind() == CtrlKind.FAILURE;
        if (ctrl != null && ctrl.kind() == CtrlKind.INIT) {
            throw new IllegalArgumentException("inits go through the CSR: use init()");
        }
        return clock(isAck ? ctrl : null, isFailure ? ctrl : null, sendConn) == 0;
    }

    /**
     * One clock presenting an ACK, a failure (each or null) and a send (conn, or -1). The events
     * the DUT accepts are applied to the model. Returns a bit set of what was refused:
     * 1 = ACK, 2 = failure, 4 = send.
     *
     * Values read after a step are the ones sampled at that edge, so valid && ready read then is
     * "accepted at this edge". The documented arbitration (failure and ACK alternate when both
     * wait) is checked on every clock.
     */
    public int clock(Ctrl ack, Ctrl failure, long sendConn) {
        sim.poke(io.ack().valid(), ack != null);
        sim.poke(io.failure().valid(), failure != null);
        if (ack != null) {
            sim.poke(io.ack().payload().conn(), ack.conn());
            if (io.ack().payload().ev() != null) { // mode ops has no EV on ACKs
                sim.poke(io.ack().payload().ev(), ack.ev());
            }
            sim.poke(io.ack().payload().ecn(), ack.ecn());
            sim.poke(io.ack().payload().trimmed(), ack.trimmed());
        }
        if (failure != null) {
            sim.poke(io.failure().payload().conn(), failure.conn());
        }
        sim.poke(io.send().valid(), sendConn >= 0);
        if (sendConn >= 0) {
            sim.poke(io.send().payload().conn(), sendConn);
        }
        sim.step();
        actions.afterEdge(sim.cycle());
        collect();
        boolean sendReady = sim.peekBool(io.send().ready());
        boolean failureReady = sim.peekBool(io.failure().ready());
        boolean ackReady = sim.peekBool(io.ack().ready());
        // The documented arbitration: a failure and an ACK waiting together alternate, the first
        // such clock after reset going to the failure; alone, either is taken when the port is open.
        boolean open = failureReady || ackReady;
        boolean contended = ack != null && failure != null;
        boolean expectAck = open && (failure == null || ackFirst);
        boolean expectFailure = open && !(contended && ackFirst);
        if (open && (ackReady != expectAck || failureReady != expectFailure)) {
            throw new AssertionError("ack.ready=" + ackReady + " failure.ready=" + failureReady + " but the alternation expects "
                    + expectAck + "/" + expectFailure);
        }
        if (open && contended) {
            ackFirst = !ackFirst;
        }
        idle();
        Ctrl taken = failure != null && failureReady ? failure : ack != null && ackReady ? ack : null;
        if (sim.cycle() == initEdge) {
            if (taken != null) {
                throw new AssertionError("an ACK or failure accepted at edge " + initEdge + ", which the CSR init owns");
            }
            taken = takeInit();
        }
        long send = sendConn >= 0 && sendReady ? sendConn : -1;
        SendResult expected = model.clock(taken, send, now);
        lastExpected = expected;
        if (expected != null) {
            results.expect(expected);
        }
        int refused = 0;
        if (ack != null && !ackReady) {
            refused |= 1;
        }
        if (failure != null && !failureReady) {
            refused |= 2;
        }
        if (sendConn >= 0 && !sendReady) {
            refused |= 4;
        }
        return refused;
    }

    /** Re-initialises one connection through the INIT_CONN CSR (the data ports idle meanwhile). */
    public void init(long conn) {
        csr.write(RepsCsr.INIT_CONN, conn);
        // The request is taken by the control port within two clocks of the write landing.
        for (int i = 0; i < 4; i++) {
            step();
        }
        model.clock(Ctrl.init(conn), -1, now);
    }

    /** The model's result for the send of the last clock (null if none was accepted). */
    public SendResult lastExpected() {
        return lastExpected;
    }

    /** Idles until every expected result came out; returns the clock edges that took. */
    public int clocksUntilResultsDrained() {
        int edges = 0;
        while (results.pending() > 0) {
            if (edges > 64) {
                throw new AssertionError(results.pending() + " results never came");
            }
            step();
            edges++;
        }
        return edges;
    }

    /** Idles until every accepted send's result came out and was checked. */
    public void drain() {
        for (int i = 0; i < Reps.latency() + 3 || !actions.csrIdle(); i++) {
            step();
        }
        results.assertEmpty();
    }

    public long counter(int address) {
        return csr.read(address);
    }
}
