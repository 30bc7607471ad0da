// SPDX-License-Identifier: Apache-2.0
package uehw.model.nic;

import java.util.ArrayDeque;
import java.util.Deque;

import uehw.model.dart.DasrLimiterModel;
import uehw.model.reps.RepsModel;

/**
 * The whole NIC engine (`nic-cc`), clock by clock (docs/nic-engine.md, "The engine" and "Timing,
 * edge by edge"), composed of the parts' models: the receiver's rules (ControlFrames.receive), the
 * per-flow ACK state, stages 3 and 4, the law's FIFO and its two register slices, the law (a
 * {@link Law}: the law's fixed model behind the window unit's holding register and same-flow
 * spacing), the direct ops' FIFO, the timeout area, the op port's priority, the doorbell's rule
 * (with message boundaries its register and the gate of a flow's message ends),
 * the flow state with its picker and timeout scan ({@link FlowGrants}), with load balancing
 * REPS ({@link RepsModel}) giving each grant its entropy, and with pacing DASR's limiter
 * ({@link DasrLimiterModel}) and the pacer's two FIFOs releasing each granted flow.
 *
 * Edge 0 is any edge after the first that samples `io_initDone` high, with no input offered
 * before it; {@link #setTimeoutScan} aligns the scan with the RTL's. Before an edge, the outputs
 * that edge samples are {@link #grant()}, {@link #retransmit()} and
 * {@link #doorbellReady(Doorbell)}; then {@link #edge} takes the edge's inputs.
 */
public final class NicEngineModel {
    /** Edges from a frame's last beat to the edge that samples the receiver's result (NicCcRx). */
    public static final int RX_LATENCY = 6;
    private static final long MASK = 0xFFFF_FFFFL;
    /** Kinds of the law's events (WindowEvent). */
    public static final int ACK = 0;
    public static final int NACK = 1;
    public static final int TIMEOUT = 2;
    public static final int INIT = 3;

    /** The engine's input to its law (NicCcLawInput), before the law's own format. */
    public record LawInput(int flow, int kind, long bytes, long rtt, boolean ecn, boolean lastHop, int rcvWndPen, long inFlight) {
    }

    /** A window law behind the engine: the law's fixed model with the window unit's timing. */
    public interface Law {
        /** The law's event made from `in`, taken with `now` (the time at its acceptance); returns the new window in bytes. */
        long take(LawInput in, long now);

        /** The window unit's same-flow spacing: a flow's event leaves the holding register at least this many edges after its last. */
        int spacing();

        /** Edges from an event's leaving the holding register to the edge that samples its window op. */
        int toWindowOp();
    }

    /** The engine's settings: the generator's parameters and the CSRs the model assumes at their values. */
    public record Config(int flows, boolean credit, int pickerDepth, int grantFifo, int lawFifo, int pullBytes, int mss, int overhead,
                         int udpPort, long rto, int messageEnds) {
        /** With the generator's default message ends (2). */
        public Config(int flows, boolean credit, int pickerDepth, int grantFifo, int lawFifo, int pullBytes, int mss, int overhead,
                      int udpPort, long rto) {
            this(flows, credit, pickerDepth, grantFifo, lawFifo, pullBytes, mss, overhead, udpPort, rto, 2);
        }
    }

    /** A doorbell: bytes queued on a flow, `start` starts it, `last` ends a message with these bytes. */
    public record Doorbell(long flow, long bytes, boolean start, boolean last) {
        public Doorbell(long flow, long bytes, boolean start) {
            this(flow, bytes, start, false);
        }
    }

    /** A grant on the engine's port: the flow state's, with REPS's entropy (-1 without load balancing). */
    public record Grant(int flow, long psn, int bytes, boolean resend, int entropy, boolean last) {
        static Grant of(FlowGrants.Grant g, int entropy) {
            return new Grant(g.flow(), g.psn(), g.bytes(), g.resend(), entropy, g.last());
        }
    }

    /** Grants the entropy stage's output FIFO holds with those in REPS (NicCc.lbStage). */
    public static final int LB_FIFO = 8;
    /** Clocks from a send's acceptance to REPS's result (Reps.latency). */
    public static final int REPS_LATENCY = 5;
    private static final int LB_ACK_FIFO = 16;
    private static final int LB_FAILURE_FIFO = 4;

    /** A retransmit request: the NACKed packet's PSN, or (timeout) PSN 0. */
    public record Retransmit(int flow, long psn, boolean timeout) {
    }

    /** A law entry: the law's input and what the flow state does when the law's update comes (the pairing FIFO's side part). */
    private record Entry(LawInput in, long retired, long resend) {
    }

    private record Timed<T>(long edge, T value) {
    }

    /** A taken frame through stages 1 and 2: its control and the in-flight query's answer. */
    private record Staged(ControlFrames.Control c, long inFlight) {
    }

    /** Stage 3's registers. */
    private record Stage3(ControlFrames.Control c, long newly, long pulls, long rtt, long inFlight, boolean toLaw, boolean bypass) {
    }

    private final Config cfg;
    private final Law law;
    private final FlowGrants flowState;
    private long edge;
    // the receiver's results by the edge that samples them
    private final Deque<Timed<ControlFrames.Result>> rx = new ArrayDeque<>();
    // the ACK state: last cumulative received bytes, latest pull number
    private final long[] received;
    private final long[] pulls;
    private Staged s1;
    private Staged s2;
    private Stage3 s3;
    private Entry s4;
    // the law's FIFO and the direct FIFO: entries with the edge of their push (a pop two edges later at the earliest)
    private final Deque<Timed<Entry>> lawFifo = new ArrayDeque<>();
    private final Deque<Timed<FlowGrants.Op>> directFifo = new ArrayDeque<>();
    private boolean initRoom = true;
    // a start doorbell's INIT held for its push (its flow; -1: none)
    private int initPending = -1;
    // the two slices and the holding register
    private Entry s2m;
    private Entry m2s;
    private Entry hold;
    private long holdNow;
    private boolean metZero = true;
    private long met;                  // the holding register's flow met: bit k, a same-flow event left k + 1 edges ago
    private final Deque<long[]> gone = new ArrayDeque<>();   // {left, flow} of the last spacing - 2 edges, newest first
    // window ops: {flow, bytes, retired, resend} by the edge that samples them
    private final Deque<Timed<long[]>> windowOps = new ArrayDeque<>();
    // the timeout area
    private boolean timeoutValid;
    private int timeoutFlow;
    private long timeoutBytes;
    private boolean timeoutLawDone;
    private boolean timeoutRtxDone;
    // this edge's outputs, from the registers (set by prepare())
    private long counted;
    private long lawEvents;
    private long bypassedAcks;
    private long bypassedNacks;
    private long directDrops;
    private long timeouts;
    // load balancing: REPS, its feedback FIFOs, the grants in it and the output FIFO
    private final RepsModel reps;
    private final Deque<Timed<RepsModel.Ctrl>> lbAcks = new ArrayDeque<>();
    private final Deque<Timed<RepsModel.Ctrl>> lbFailures = new ArrayDeque<>();
    private boolean lbAckFirst;
    private final Deque<Timed<Grant>> inReps = new ArrayDeque<>();    // edge: the one that pushes its result
    private final Deque<Timed<Grant>> lbOut = new ArrayDeque<>();     // edge: its push
    private long lbDrops;
    /** Edges from the limiter's acceptance of an event to the edge that samples its answer (DasrLimiter.latency). */
    public static final int PACER_LATENCY = 8;
    // pacing: the limiter, the grant it takes at the next edge, its answers, the fresh and waiting FIFOs ({flow, nextNs, paced})
    private final DasrLimiterModel pacer;
    private FlowGrants.PaceSent paceEvent;
    private final Deque<Timed<long[]>> paceAnswers = new ArrayDeque<>();   // edge: the one that samples it
    private final Deque<Timed<long[]>> fresh = new ArrayDeque<>();         // edge: its push
    private final Deque<Timed<long[]>> waiting = new ArrayDeque<>();
    private boolean freshTurn = true;
    private long[] look;
    private boolean lookFirst;
    private long[] decide;
    private boolean decideFirst;
    private boolean decideDue;
    private long paced;
    /** PACE_LEAD (ns) and the pacer's register of `now` + PACE_LEAD (the last edge's). */
    private long paceLead = 128;
    private long nowLead;
    // message boundaries: the doorbell's register, its flow's ends not passed as read the clock before, the ends taken
    private final int messageEnds;
    private Doorbell db;
    private boolean checked;
    private long outstanding;
    private final long[] tails;
    private long endsFull;

    /** Without load balancing. */
    public NicEngineModel(Config cfg, Law law) {
        this(cfg, law, null);
    }

    /** With load balancing when {@code reps} is not null (its CSRs at their reset values, a connection a flow). */
    public NicEngineModel(Config cfg, Law law, RepsModel reps) {
        this(cfg, law, reps, null);
    }

    /** With pacing when {@code pacer} is not null (DASR's limiter at its CSRs' values, a flow a flow). */
    public NicEngineModel(Config cfg, Law law, RepsModel reps, DasrLimiterModel pacer) {
        this.cfg = cfg;
        this.law = law;
        this.reps = reps;
        this.pacer = pacer;
        this.flowState = new FlowGrants(cfg.flows(), cfg.credit(), cfg.pickerDepth(), cfg.grantFifo(), cfg.mss(), cfg.overhead(), pacer != null,
                cfg.messageEnds());
        this.messageEnds = cfg.messageEnds();
        this.tails = new long[cfg.flows()];
        flowState.setRto(cfg.rto());
        this.received = new long[cfg.flows()];
        this.pulls = new long[cfg.flows()];
    }

    /** The flow state (its counters, grants and timeout scan). */
    public FlowGrants flowState() {
        return flowState;
    }

    /** Aligns the flow state's timeout scan: it reads `flow` at the next edge. */
    public void setTimeoutScan(int flow) {
        flowState.setTimeoutScan(flow);
    }

    /** The grant offered before the next edge, or null. */
    public Grant grant() {
        if (reps == null) {
            FlowGrants.Grant g = flowState.grant();
            return g == null ? null : Grant.of(g, -1);
        }
        Timed<Grant> head = lbOut.peek();
        return head != null && head.edge() < edge ? head.value() : null;
    }

    /** The retransmit request the next edge samples, or null: a NACK's at stage 3 first, else the timeout's. */
    public Retransmit retransmit() {
        if (s3 != null && s3.c().kind() == ControlFrames.NACK) {
            return new Retransmit((int) s3.c().flowId(), s3.c().psn() & MASK, false);
        }
        return timeoutRtxNow() ? new Retransmit(timeoutFlow, 0, true) : null;
    }

    private boolean timeoutRtxNow() {
        return timeoutValid && !timeoutRtxDone && !(s3 != null && s3.c().kind() == ControlFrames.NACK);
    }

    private boolean timeoutLawNow() {
        return timeoutValid && !timeoutLawDone && s4 == null && initRoom;
    }

    private long[] windowOpNow() {
        Timed<long[]> w = windowOps.peek();
        return w != null && w.edge() == edge ? w.value() : null;
    }

    private boolean directPopValid() {
        Timed<FlowGrants.Op> d = directFifo.peek();
        return d != null && d.edge() <= edge - 2;
    }

    /**
     * The doorbell's ready at the next edge, were `d` offered (null: none). With message boundaries
     * it is the register's: empty, or its doorbell leaves at the next edge.
     */
    public boolean doorbellReady(Doorbell d) {
        if (d == null) {
            return false;
        }
        return messageEnds > 0 ? db == null || innerReady(db) : innerReady(d);
    }

    /** The op merge takes (or, out of range, drops) `d` at the next edge. */
    private boolean innerReady(Doorbell d) {
        if (d.flow() >= cfg.flows()) {
            return true;
        }
        boolean turn = windowOpNow() == null && !directPopValid() && flowState.timeoutCandidate() == null;
        boolean initOk = !d.start() || initPending < 0;
        boolean blocked = messageEnds > 0 && d.last() && (!checked || outstanding == messageEnds);
        return turn && initOk && !blocked;
    }

    /**
     * One edge: the frame whose last beat this edge takes (its bytes, tuser on a beat, a malformed
     * tkeep), or null; the doorbell offered (null: none); the grant port's ready; `io_now`.
     */
    public void edge(byte[] frame, boolean bad, boolean malformed, Doorbell doorbell, boolean grantReady, long now) {
        long e = edge;
        now &= MASK;
        if (frame != null) {
            rx.add(new Timed<>(e + RX_LATENCY, ControlFrames.receive(frame, bad, malformed, cfg.udpPort(), cfg.flows(), 128)));
        }
        // ---- what this edge samples, from the registers before it
        long[] upd = windowOpNow();
        boolean directValid = directPopValid();
        FlowGrants.Candidate cand = flowState.timeoutCandidate();
        boolean lawNow = timeoutLawNow();
        boolean rtxNow = timeoutRtxNow();
        FlowGrants.TimedOut timedOut = flowState.timedOut();
        int occupancy = lawFifo.size();
        // the doorbell the op merge sees: the register's with message boundaries, else the port's
        boolean portFire = doorbellReady(doorbell);
        Doorbell inner = messageEnds > 0 ? db : doorbell;
        boolean innerTaken = inner != null && innerReady(inner);
        boolean doorbellFire = innerTaken && inner.flow() < cfg.flows();
        if (messageEnds > 0) {
            if (db != null && db.last() && checked && outstanding == messageEnds) {
                endsFull++;
            }
            // the register's flow read before this edge's writes; a last doorbell that leaves writes its tail
            if (db != null && db.flow() < cfg.flows()) {
                int f = (int) db.flow();
                long twice = 2L * messageEnds;
                long tailNow = tails[f];
                outstanding = ((tailNow - flowState.head(f)) % twice + twice) % twice;
                // (a last doorbell leaves only after a clock in the register: its tail read then is this one)
                if (doorbellFire && db.last()) {
                    tails[f] = (tailNow + 1) % twice;
                }
            }
            checked = !portFire;
            if (innerTaken) {
                db = null;
            }
            if (portFire) {
                db = doorbell;
            }
        }

        // the op port: the law's update, a direct op, the timeout candidate, a doorbell
        FlowGrants.Op op = null;
        if (upd != null) {
            op = new FlowGrants.Op((int) upd[0], 0, upd[2], upd[3], 0, true, upd[1]);
            windowOps.poll();
        } else if (directValid) {
            op = directFifo.poll().value();
        } else if (cand != null) {
            op = FlowGrants.Op.timeout(cand);
        } else if (doorbellFire) {
            op = FlowGrants.Op.doorbell((int) inner.flow(), inner.bytes() & MASK, messageEnds > 0 && inner.last());
        }

        // the law's FIFO push of this edge: stage 4's event, else the timeout's, else a held INIT (with room);
        // a start doorbell's INIT is held from its edge
        Entry push = null;
        if (s4 != null) {
            push = s4;
        } else if (lawNow) {
            push = new Entry(new LawInput(timeoutFlow, TIMEOUT, timeoutBytes, 0, false, false, 255, 0), 0, 0);
        } else if (initPending >= 0 && initRoom) {
            push = new Entry(new LawInput(initPending, INIT, 0, 0, false, false, 255, 0), 0, 0);
            initPending = -1;
        }
        if (doorbellFire && inner.start()) {
            initPending = (int) inner.flow();
        }

        // ---- the law's input: FIFO -> s2mPipe -> m2sPipe -> holding register
        boolean go = hold != null && metZero;
        boolean lawReady = hold == null || go;
        boolean lawFire = m2s != null && lawReady;
        boolean m2sInReady = m2s == null || lawReady;
        Timed<Entry> head = lawFifo.peek();
        boolean fifoPopValid = head != null && head.edge() <= e - 2;
        Entry s2mOut = s2m != null ? s2m : (fifoPopValid ? head.value() : null);
        boolean fifoPop = fifoPopValid && s2m == null;
        // the law takes the held event
        if (go) {
            long window = law.take(hold.in(), holdNow);
            lawEvents++;
            windowOps.add(new Timed<>(e + law.toWindowOp(), new long[] {hold.in().flow(), window & MASK, hold.retired(), hold.resend()}));
        }
        // the holding register's same-flow history (WindowUnit's hold: met, registered as metZero)
        int spacing = law.spacing();
        long metNext;
        if (lawFire) {
            int incoming = m2s.in().flow();
            metNext = go && hold.in().flow() == incoming ? 1 : 0;
            int k = 1;
            for (long[] g : gone) {
                if (k > spacing - 2) {
                    break;
                }
                if (g[0] == 1 && g[1] == incoming) {
                    metNext |= 1L << k;
                }
                k++;
            }
        } else {
            metNext = (met << 1) & ((1L << (spacing - 1)) - 1);
        }
        gone.addFirst(new long[] {go ? 1 : 0, hold != null ? hold.in().flow() : -1});
        while (gone.size() > Math.max(0, spacing - 2)) {
            gone.removeLast();
        }
        met = metNext;
        metZero = metNext == 0;
        Entry holdNext = go ? null : hold;
        if (lawFire) {
            holdNext = m2s;
            holdNow = now;
        }
        hold = holdNext;
        if (m2sInReady) {
            m2s = s2mOut;
        }
        // s2mPipe: set by a valid input, cleared by the output's ready (which wins)
        if (m2sInReady) {
            s2m = null;
        } else if (fifoPop) {
            s2m = head.value();
        }
        if (fifoPop) {
            lawFifo.poll();
        }
        if (push != null) {
            if (lawFifo.size() >= cfg.lawFifo()) {
                throw new IllegalStateException("the law's FIFO overflowed at edge " + e);
            }
            lawFifo.add(new Timed<>(e, push));
        }
        initRoom = occupancy < cfg.lawFifo() - 12;

        // ---- the frame's stages
        Stage3 s3Next = null;
        if (s2 != null) {
            ControlFrames.Control c = s2.c();
            int f = (int) c.flowId();
            boolean isAck = c.kind() == ControlFrames.ACK;
            boolean isPull = c.kind() == ControlFrames.PULL;
            boolean isNack = c.kind() == ControlFrames.NACK;
            long number = c.number() & MASK;
            long newly = (number - received[f]) & MASK;
            boolean newer = (int) newly > 0;
            long pulled = (number - pulls[f]) & MASK;
            boolean pullNewer = (int) pulled > 0;
            if (isAck && newer) {
                received[f] = number;
            }
            if (isPull && pullNewer) {
                pulls[f] = number;
            }
            long ahead = occupancy + (s3 != null && s3.toLaw() ? 1 : 0) + (s4 != null ? 1 : 0);
            boolean ackRoom = ahead < cfg.lawFifo() - 8;
            boolean nackRoom = ahead < cfg.lawFifo();
            boolean toLaw = (isAck && ackRoom) || (isNack && nackRoom);
            boolean bypass = (isAck && !ackRoom) || (isNack && !nackRoom);
            s3Next = new Stage3(c, isAck && newer ? newly : 0, isPull && pullNewer ? pulled : 0, (now - (c.timestamp() & MASK)) & MASK,
                    s2.inFlight(), toLaw, bypass);
        }
        Entry s4Next = null;
        if (s3 != null) {
            ControlFrames.Control c = s3.c();
            boolean nack = c.kind() == ControlFrames.NACK;
            long number = c.number() & MASK;
            long retired = nack ? number : s3.newly();
            long resend = nack && number > cfg.overhead() ? (number - cfg.overhead()) & MASK : 0;
            boolean isPull = cfg.credit() && c.kind() == ControlFrames.PULL && s3.pulls() != 0;
            if (isPull || s3.bypass()) {
                if (directFifo.size() >= cfg.lawFifo()) {
                    directDrops++;
                } else {
                    long credit = isPull ? (s3.pulls() * cfg.pullBytes()) & MASK : 0;
                    directFifo.add(new Timed<>(e, new FlowGrants.Op((int) c.flowId(), 0, isPull ? 0 : retired, isPull ? 0 : resend, credit,
                            false, 0)));
                }
            }
            if (s3.bypass()) {
                if (c.kind() == ControlFrames.ACK) {
                    bypassedAcks++;
                } else {
                    bypassedNacks++;
                }
            }
            if (s3.toLaw()) {
                s4Next = new Entry(new LawInput((int) c.flowId(), nack ? NACK : ACK, nack ? number : s3.newly(), nack ? 0 : s3.rtt(),
                        c.ecnEcho(), nack && c.lastHop(), nack ? 255 : c.rcvWndPen(), s3.inFlight()), retired, resend);
            }
        }
        // the receiver's result of this edge: taken, its in-flight query answered two edges later
        Staged s1Next = null;
        Timed<ControlFrames.Result> r = rx.peek();
        if (r != null && r.edge() == e) {
            rx.poll();
            ControlFrames.Result res = r.value();
            if (res.reason() == ControlFrames.TAKEN) {
                counted++;
                s1Next = new Staged(res.control(), flowState.inFlight((int) res.control().flowId()));
            }
        }

        // ---- the timeout area (its hold is the register before this edge)
        boolean timeoutHold = timeoutValid;
        if (rtxNow) {
            timeoutRtxDone = true;
        }
        if (lawNow) {
            timeoutLawDone = true;
        }
        if (timeoutValid && timeoutLawDone && timeoutRtxDone) {
            timeoutValid = false;
        }
        if (timedOut != null) {
            timeouts++;
            timeoutValid = true;
            timeoutFlow = timedOut.flow();
            timeoutBytes = timedOut.bytes();
            timeoutLawDone = false;
            timeoutRtxDone = false;
        }

        boolean flowGrantReady = grantReady;
        if (reps != null) {
            flowGrantReady = lbEdge(e, grantReady, now, timedOut);
        }
        FlowGrants.PaceRelease release = pacer != null ? paceEdge(e, now) : null;
        flowState.edge(op, flowGrantReady, now, timeoutHold, release);
        s2 = s1;
        s1 = s1Next;
        s3 = s3Next;
        s4 = s4Next;
        edge++;
    }

    /**
     * The entropy stage at edge e (NicCc.lbStage): the output FIFO's pop, REPS's control event (a
     * failure and an ACK waiting together alternate) and send, results into the output FIFO, this
     * edge's feedback pushes; returns the flow state's grant ready (room for one more grant).
     */
    private boolean lbEdge(long e, boolean grantReady, long now, FlowGrants.TimedOut timedOut) {
        int occupancy = lbOut.size();
        boolean room = occupancy + inReps.size() < LB_FIFO;
        if (grantReady && grant() != null) {
            lbOut.poll();
        }
        Timed<RepsModel.Ctrl> a = lbAcks.peek();
        Timed<RepsModel.Ctrl> f = lbFailures.peek();
        boolean ackValid = a != null && a.edge() <= e - 2;
        boolean failureValid = f != null && f.edge() <= e - 2;
        RepsModel.Ctrl ctrl = null;
        if (failureValid && !(ackValid && lbAckFirst)) {
            ctrl = lbFailures.poll().value();
        } else if (ackValid) {
            ctrl = lbAcks.poll().value();
        }
        if (ackValid && failureValid) {
            lbAckFirst = !lbAckFirst;
        }
        FlowGrants.Grant g = flowState.grant();
        boolean send = room && g != null;
        RepsModel.SendResult r = reps.clock(ctrl, send ? g.flow() : -1, now);
        Timed<Grant> done = inReps.peek();
        if (done != null && done.edge() == e) {
            lbOut.add(new Timed<>(e, inReps.poll().value()));
        }
        if (send) {
            inReps.add(new Timed<>(e + REPS_LATENCY, Grant.of(g, (int) r.ev())));
        }
        // feedback: this edge's ACK or NACK at stage 3, the timeout applied
        if (s3 != null && (s3.c().kind() == ControlFrames.ACK || s3.c().kind() == ControlFrames.NACK)) {
            boolean nack = s3.c().kind() == ControlFrames.NACK;
            if (lbAcks.size() >= LB_ACK_FIFO) {
                lbDrops++;
            } else {
                lbAcks.add(new Timed<>(e, RepsModel.Ctrl.ack(s3.c().flowId(), s3.c().entropy() & 0xFFFF, s3.c().ecnEcho(), nack)));
            }
        }
        if (timedOut != null) {
            if (lbFailures.size() >= LB_FAILURE_FIFO) {
                lbDrops++;
            } else {
                lbFailures.add(new Timed<>(e, RepsModel.Ctrl.failure(timedOut.flow())));
            }
        }
        return room;
    }

    /**
     * The pacer at edge e (NicCc.pacer): the decision registered before the edge releases its flow
     * or goes to `waiting`; the entry looked at is decided against the register of the edge
     * before's `now` + PACE_LEAD, and that register takes this edge's; one FIFO's head
     * is looked at (fresh and waiting in turn); the limiter's answer of this edge into `fresh`; the
     * limiter takes the grant registered at the edge before, then the n of the ACK at stage 3.
     * Returns the release the flow state samples at this edge.
     */
    private FlowGrants.PaceRelease paceEdge(long e, long now) {
        FlowGrants.PaceRelease release = null;
        if (decide != null) {
            if (decideDue) {
                release = new FlowGrants.PaceRelease((int) decide[0], decide[2] == 1);
            } else {
                waiting.add(new Timed<>(e, decide));
                if (decideFirst) {
                    paced++;
                }
            }
        }
        decide = look;
        decideFirst = lookFirst;
        decideDue = look != null && (int) ((nowLead - look[1]) & MASK) >= 0;
        nowLead = (now + paceLead) & MASK;
        boolean freshValid = fresh.peek() != null && fresh.peek().edge() <= e - 2;
        boolean waitingValid = waiting.peek() != null && waiting.peek().edge() <= e - 2;
        boolean takeFresh = freshValid && (freshTurn || !waitingValid);
        boolean takeWaiting = waitingValid && !takeFresh;
        look = takeFresh ? fresh.poll().value() : takeWaiting ? waiting.poll().value() : null;
        lookFirst = takeFresh;
        if (takeFresh || takeWaiting) {
            freshTurn = takeWaiting;
        }
        Timed<long[]> answer = paceAnswers.peek();
        if (answer != null && answer.edge() == e) {
            fresh.add(new Timed<>(e, paceAnswers.poll().value()));
        }
        if (paceEvent != null) {
            DasrLimiterModel.Answer a = pacer.sent(paceEvent.flow(), Math.min(paceEvent.wire(), 0xFFFF), now);
            paceAnswers.add(new Timed<>(e + PACER_LATENCY, new long[] {paceEvent.flow(), a.nextNs(), paceEvent.paced() ? 1 : 0}));
        }
        if (s3 != null && s3.c().kind() == ControlFrames.ACK) {
            pacer.ack((int) s3.c().flowId(), s3.c().activeSenders());
        }
        paceEvent = flowState.paceSent();
        return release;
    }

    /** PACE_LEAD as the pacer holds it from the next edge on (ns, 0..65535). */
    public void setPaceLead(long ns) {
        paceLead = ns & 0xFFFF;
    }

    /** DASR's limiter (its counters), or null without pacing. */
    public DasrLimiterModel pacer() {
        return pacer;
    }

    /** Grants whose flow then waited for its pacing time (PACED). */
    public long paced() {
        return paced;
    }

    /** Grants that ended a message (MESSAGES). */
    public long messages() {
        return flowState.messages();
    }

    /** A last doorbell waits in the register with its flow's message ends full (ENDS_FULL counts each clock). */
    public boolean doorbellWaitsFull() {
        return db != null && db.last() && checked && outstanding == messageEnds;
    }

    /** Clocks a last doorbell waited with its flow's message ends full (ENDS_FULL). */
    public long endsFull() {
        return endsFull;
    }

    /** REPS feedback dropped (LB_DROPS). */
    public long lbDrops() {
        return lbDrops;
    }

    /** Frames taken (ACK, NACK or PULL for a flow < N). */
    public long frames() {
        return counted;
    }

    /** Events the law took. */
    public long lawEvents() {
        return lawEvents;
    }

    public long acksBypassed() {
        return bypassedAcks;
    }

    public long nacksBypassed() {
        return bypassedNacks;
    }

    public long directDrops() {
        return directDrops;
    }

    public long timeouts() {
        return timeouts;
    }

    /** Nothing is in the engine's pipelines (frames, law, direct ops, timeout), so only grants and the scan can change. */
    public boolean quiet() {
        return rx.isEmpty() && s1 == null && s2 == null && s3 == null && s4 == null && lawFifo.isEmpty() && s2m == null && m2s == null
                && hold == null && windowOps.isEmpty() && directFifo.isEmpty() && !timeoutValid
                && paceEvent == null && paceAnswers.isEmpty() && fresh.isEmpty() && waiting.isEmpty() && look == null && decide == null
                && db == null && initPending < 0;
    }
}
