// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.Deque;

import uehw.model.nic.ControlFrames;
import uehw.model.nic.NicEngineModel;

/**
 * A host whose NIC is the engine (docs/nic-engine.md, "In the network simulator"): the network's
 * engines are clocked together (one edge every {@code clockPs}, on the network's time grid) while
 * some host has a flow unfinished, a frame or a doorbell waiting. A flow's start is a doorbell
 * (its bytes, start); every ACK or NACK that comes back is a control frame into the engine (one a clock); the NIC takes
 * a grant when it holds fewer than two, and its link sends one packet a grant: the grant's bytes of
 * new data, or (resend) of the flow's oldest NACKed or timed-out packet. The receiver ACKs every
 * data packet with its flow's cumulative received wire bytes and the send time echoed, and NACKs
 * every trimmed header with the packet's wire bytes.
 */
final class EngineNic {
    /** Grants the NIC holds at most (its transmit engine's queue). */
    static final int GRANTS_HELD = 2;
    private final Host host;
    private final Network net;
    private final NicEngine engine;
    private final Clock clock;
    private final Deque<byte[]> frames = new ArrayDeque<>();
    private final Deque<NicEngineModel.Doorbell> doorbells = new ArrayDeque<>();
    private final Deque<NicEngineModel.Grant> grants = new ArrayDeque<>();
    private NicEngineModel.Doorbell offered;
    private boolean ready;
    long edges, retransmitRequests, spuriousResends;

    /**
     * The engines of a network on one clock: an edge every {@code clockPs} on the network's time
     * grid while some engine NIC is busy; each edge drives every engine's inputs, steps the group,
     * then reads what each sampled.
     */
    static final class Clock {
        private final Network net;
        private final NicEngine.Group group;
        private final long clockPs;
        final java.util.List<EngineNic> nics = new java.util.ArrayList<>();
        private boolean running;
        /** The last edge's time (ps): an edge comes at most once a grid point. */
        private long lastEdgePs = Long.MIN_VALUE / 2;

        Clock(Network net, NicEngine.Group group, long clockPs) {
            this.net = net;
            this.group = group;
            this.clockPs = clockPs;
        }

        /** Clocks from the next edge of the grid on, unless clocking already. */
        void wake() {
            if (running) {
                return;
            }
            running = true;
            long now = net.loop.now();
            long next = Math.max((now + clockPs - 1) / clockPs * clockPs, lastEdgePs + clockPs);
            net.loop.after(next - now, this::edge);
        }

        private void edge() {
            lastEdgePs = net.loop.now();
            long nowNs = lastEdgePs / 1000;
            for (EngineNic n : nics) {
                n.drive(nowNs);
            }
            group.step();
            boolean busy = false;
            for (EngineNic n : nics) {
                n.sampled();
                busy |= n.busy();
            }
            if (busy) {
                net.loop.after(clockPs, this::edge);
            } else {
                running = false;
            }
        }
    }

    /** A host's NIC: its engine (null: a receiver only) on the network's engine clock. */
    EngineNic(Host host, Network net, NicEngine engine, Clock clock) {
        this.host = host;
        this.net = net;
        this.engine = engine;
        this.clock = clock;
        if (engine != null) {
            clock.nics.add(this);
        }
    }

    void start(Flow f) {
        if (engine == null) {
            throw new IllegalStateException(host.name() + " has no engine for its flow " + f.id);
        }
        f.started = true;
        host.entropies.init(f.local, net.loop.now() / 1000);
        // the flow's bytes are one message: its last packet's grant says so
        doorbells.add(new NicEngineModel.Doorbell(f.local, f.bytes, true, true));
        clock.wake();
    }

    private boolean busy() {
        if (!frames.isEmpty() || !doorbells.isEmpty()) {
            return true;
        }
        for (Flow f : host.flows) {
            if (f.started && !f.finished()) {
                return true;
            }
        }
        return false;
    }

    private void drive(long nowNs) {
        offered = doorbells.peek();
        ready = grants.size() < GRANTS_HELD;
        engine.drive(frames.poll(), offered, ready, nowNs);
    }

    private void sampled() {
        NicEngine.Sampled s = engine.sampled();
        edges++;
        if (offered != null && s.doorbellReady()) {
            doorbells.poll();
        }
        if (s.retransmit() != null) {
            retransmitRequests++;
            if (s.retransmit().timeout()) {
                timedOut(host.flows.get(s.retransmit().flow()));
            }
        }
        if (s.grant() != null && ready) {
            NicEngineModel.Grant g = s.grant();
            net.noteGrant(host.flows.get(g.flow()), g.psn(), g.bytes(), g.resend(), g.entropy());
            grants.add(g);
            host.nic.kick();
        }
    }

    /** The transport resends the flow's oldest unacknowledged packet: it is lost. */
    private void timedOut(Flow f) {
        long oldest = Long.MAX_VALUE;
        for (long seq : f.outstanding.keySet()) {
            oldest = Math.min(oldest, seq);
        }
        if (oldest != Long.MAX_VALUE) {
            f.outstanding.remove(oldest);
            f.timeouts++;
            f.resend.add(oldest);
        }
    }

    /** The link's next data packet: one a grant. */
    Packet nextData() {
        NicEngineModel.Grant g = grants.poll();
        if (g == null) {
            return null;
        }
        Flow f = host.flows.get(g.flow());
        long seq;
        boolean retransmission = g.resend();
        if (retransmission && !f.resend.isEmpty()) {
            seq = f.resend.poll();
        } else if (retransmission) {
            spuriousResends++;   // nothing the transport knows to resend: the grant's bytes go as a copy of the last packet
            seq = Math.max(0, f.nextNew - g.bytes());
        } else {
            seq = f.nextNew;
            f.nextNew += g.bytes();
        }
        long now = net.loop.now();
        // the engine's entropy (with load balancing), else the host's entropy unit's
        int entropy = g.entropy() >= 0 ? g.entropy() : host.entropies.next(f.local, now / 1000);
        net.noteEntropy(f, entropy);
        f.outstanding.put(seq, now);
        f.packetsSent++;
        Packet p = new Packet(Packet.Kind.DATA, f.id, host.id, f.dst, seq, g.bytes(), entropy, now, g.bytes() + net.config.headerBytes(), false);
        p.psn = g.psn();
        p.retransmission = retransmission;
        // the message's ends, for a receiver's DASR unit (as Host marks them): a new packet's last from its grant
        p.first = seq == 0;
        p.last = retransmission ? seq + g.bytes() == f.bytes : g.last();
        // the grant that follows may be waiting for room
        clock.wake();
        return p;
    }

    /**
     * The receiver: an ACK with the flow's cumulative received wire bytes, or a NACK of a trimmed
     * header. With a DASR unit at the host (Network.enableDasr) the ACK carries its n, the
     * extension's byte 9 (docs/packet-format.md).
     */
    void receiveData(Packet p, Flow flow) {
        net.delivered(p);
        Packet.Kind reply = p.trimmed ? Packet.Kind.NACK : Packet.Kind.ACK;
        if (!p.trimmed) {
            flow.receivedWire += p.bytes;
        }
        uehw.model.dart.DasrModel.Reply r = host.dasrReply(p);
        Packet answer = new Packet(reply, p.flow, host.id, p.src, p.seq, p.payload, p.entropy, p.sentAtPs, net.config.ackBytes(),
                p.ce && (r == null || r.ecnPass()));
        answer.n = r == null ? 0 : r.n();
        answer.psn = p.psn;
        answer.recvdBytes = flow.receivedWire;
        answer.hops = p.hops;
        answer.trimmedAtLastHop = p.trimmedAtLastHop;
        host.nic.send(answer);
    }

    /** The sender: the answer becomes a control frame for the engine; the transport's own bookkeeping. */
    void receiveAnswer(Packet p, Flow f) {
        boolean nack = p.kind == Packet.Kind.NACK;
        long wire = (long) p.payload + net.config.headerBytes();
        ControlFrames.Control c = new ControlFrames.Control(nack ? ControlFrames.NACK : ControlFrames.ACK, f.local, p.psn & 0xFFFF_FFFFL,
                p.ecnEcho, p.entropy & 0xFFFF, (p.sentAtPs / 1000) & 0xFFFF_FFFFL, nack ? wire : p.recvdBytes & 0xFFFF_FFFFL, 255, nack && p.trimmedAtLastHop,
                nack ? 0 : Math.min(p.n, 255));
        frames.add(ControlFrames.build(c, false, 4000, 0));
        clock.wake();
        host.entropies.feedback(f.local, p.entropy, p.ecnEcho, nack, net.loop.now() / 1000);
        Long sentAt = f.outstanding.get(p.seq);
        if (sentAt == null || sentAt != p.sentAtPs) {
            f.stale++;
            return;
        }
        f.outstanding.remove(p.seq);
        if (nack) {
            f.nacks++;
            f.resend.add(p.seq);
        } else {
            f.acked += p.payload;
            if (f.acked >= f.bytes && !f.finished()) {
                f.finishedPs = net.loop.now();
                net.finished(f);
            }
        }
    }
}
