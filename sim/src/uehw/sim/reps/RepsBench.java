// SPDX-License-Identifier: Apache-2.0
package uehw.sim.reps;

import java.util.ArrayList;
import java.util.List;

import uehw.hw.reps.Reps;
import uehw.hw.reps.RepsIo;
import uehw.sim.AxiLite4Master;
import uehw.sim.InOrderScoreboard;
import uehw.sim.StreamMonitor;
import uehw.sim.facade.Sim;
import uehw.sim.reps.RepsModel.Ctrl;
import uehw.sim.reps.RepsModel.CtrlKind;
import uehw.sim.reps.RepsModel.SendResult;

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
        sim.reset(2);
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
        collect();
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
        for (int i = 0; i < Reps.latency() + 3; i++) {
            step();
        }
        results.assertEmpty();
    }

    public long counter(int address) {
        return csr.read(address);
    }
}
