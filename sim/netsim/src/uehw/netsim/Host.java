// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayList;
import java.util.List;

/**
 * A host: its NIC sends the data of its flows under their congestion windows (one packet at a
 * time onto its link, ACKs and NACKs first, the flows in round robin), with an entropy per packet;
 * as a receiver it ACKs every data packet (echoing CE, the entropy and the send time) and NACKs
 * every trimmed header (smartt-reps.txt Sec. 2.1). Losses without a NACK are found by a
 * retransmission timeout.
 */
public final class Host implements Node {
    public final int id;
    private final Network net;
    Port nic;
    final WindowControl windows;
    final EntropyControl entropies;
    final List<Flow> flows = new ArrayList<>();
    /** The receiver's DASR (dart.txt Sec. III), or null. */
    DasrUnit dasr;
    /** The reference's transport (Network#uecTransport), or null: the per-packet transport below. */
    UecTransport uec;
    /** The NIC engine (Network#engineNics), or null. */
    EngineNic engine;
    private int roundRobin;

    /** The NIC's congestion windows. */
    public WindowControl windows() {
        return windows;
    }

    Host(int id, Network net, WindowControl windows, EntropyControl entropies) {
        this.id = id;
        this.net = net;
        this.windows = windows;
        this.entropies = entropies;
    }

    @Override
    public String name() {
        return "host" + id;
    }

    public Port nic() {
        return nic;
    }

    /** The reference's transport this host runs, or null. */
    public UecTransport uec() {
        return uec;
    }

    /**
     * With a DASR unit here, its reply to a data packet (the n for its ACK, whether its ECN echo may
     * pass), traced; null without one, or for a trimmed header (NACKed: its data comes again).
     */
    uehw.model.dart.DasrModel.Reply dasrReply(Packet p) {
        if (dasr == null || p.trimmed) {
            return null;
        }
        if (p.lookAhead != null) {
            dasr.lookAhead(p.lookAheadGroup, p.lookAhead, nowNs());
        }
        uehw.model.dart.DasrModel.Reply r = dasr.packet(p.src, p.first, p.last, p.announced, p.ce, p.bytes, nowNs());
        net.noteDasr(this, p, r.n());
        return r;
    }

    private long nowNs() {
        return net.loop.now() / 1000;
    }

    void start(Flow f) {
        if (uec != null) {
            uec.start(f);
            return;
        }
        if (engine != null) {
            engine.start(f);
            return;
        }
        f.started = true;
        f.cwnd = windows.init(f.local, nowNs());
        f.minCwnd = f.cwnd;
        entropies.init(f.local, nowNs());
        net.noteWindow(f, f.cwnd);
        nic.kick();
    }

    /** The NIC's next data packet, or null when no flow may send now (a paced flow wakes the NIC when it may). */
    Packet nextData() {
        if (uec != null) {
            return uec.nextData();
        }
        if (engine != null) {
            return engine.nextData();
        }
        int n = flows.size();
        long now = net.loop.now();
        long wake = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            Flow f = flows.get((roundRobin + i) % n);
            if (f.started && f.hasData() && f.inFlight + net.config.mtu() <= Math.max(f.cwnd, net.config.mtu())) {
                if (f.nextSendPs > now) {
                    wake = Math.min(wake, f.nextSendPs);
                    continue;
                }
                roundRobin = (roundRobin + i + 1) % n;
                return send(f);
            }
        }
        if (wake != Long.MAX_VALUE && wake < wakeAt) {
            wakeAt = wake;
            net.loop.after(wake - now, () -> {
                wakeAt = Long.MAX_VALUE;
                nic.kick();
            });
        }
        return null;
    }

    /** When a paced flow next wakes the NIC (ps), or MAX_VALUE. */
    private long wakeAt = Long.MAX_VALUE;

    private Packet send(Flow f) {
        boolean retransmission = !f.resend.isEmpty();
        long seq = retransmission ? f.resend.poll() : f.nextNew;
        int payload = (int) Math.min(net.config.mtu(), f.bytes - seq);
        if (seq == f.nextNew) {
            f.nextNew += payload;
        }
        long now = net.loop.now();
        int entropy = entropies.next(f.local, nowNs());
        net.noteEntropy(f, entropy);
        f.outstanding.put(seq, now);
        f.inFlight += payload;
        f.packetsSent++;
        int wire = payload + net.config.headerBytes();
        // Two limits: the window law's pacing, and DASR's line rate / n (a packet every n serialisations).
        long dasrGapPs = f.dasrN > 1 ? Math.round(f.dasrN * wire * 8000.0 / net.config.gbps()) : 0;
        f.nextSendPs = now + Math.max(windows.pacingNs(f.local) * 1000, dasrGapPs);
        net.loop.after(net.config.rtoNs() * 1000, () -> timeout(f, seq, now));
        Packet p = new Packet(Packet.Kind.DATA, f.id, id, f.dst, seq, payload, entropy, now, wire, false);
        p.first = seq == 0;
        p.last = seq + payload == f.bytes;
        p.lookAhead = p.first ? f.lookAhead : null;
        p.lookAheadGroup = f.lookAheadGroup;
        p.announced = f.lookAhead != null;
        p.tokens = f.tokens;
        p.retransmission = retransmission;
        return p;
    }

    @Override
    public void receive(Packet p, Port from) {
        if (p.dst != id) {
            throw new IllegalStateException(name() + " got a packet for host " + p.dst);
        }
        if (uec != null) {
            uec.receive(p);
            return;
        }
        if (engine != null) {
            if (p.kind == Packet.Kind.DATA) {
                engine.receiveData(p, net.flows.get(p.flow));
            } else {
                engine.receiveAnswer(p, net.flows.get(p.flow));
            }
            return;
        }
        if (p.kind == Packet.Kind.DATA) {
            net.delivered(p);
            Flow flow = net.flows.get(p.flow);
            if (!p.retransmission) {
                // RDMA delivers in order (dart.txt Sec. IV-A): count a first transmission behind a later one.
                if (p.seq < flow.highestArrived) {
                    flow.reordered++;
                } else {
                    flow.highestArrived = p.seq;
                }
            }
            flow.deflectedPackets += p.deflections > 0 ? 1 : 0;
            Packet.Kind reply = p.trimmed ? Packet.Kind.NACK : Packet.Kind.ACK;
            uehw.model.dart.DasrModel.Reply r = dasrReply(p);
            boolean ecnEcho = p.ce && (r == null || r.ecnPass());
            int n = r == null ? 0 : r.n();
            Packet answer = new Packet(reply, p.flow, id, p.src, p.seq, p.payload, p.entropy, p.sentAtPs, net.config.ackBytes(), ecnEcho);
            answer.n = n;
            answer.hops = p.hops;
            nic.send(answer);
            return;
        }
        Flow f = net.flows.get(p.flow);
        Long sentAt = f.outstanding.get(p.seq);
        if (sentAt == null || sentAt != p.sentAtPs) {
            f.stale++; // the answer to a copy that timed out and was sent again
            return;
        }
        f.outstanding.remove(p.seq);
        f.inFlight -= p.payload;
        if (p.n > 0) {
            f.dasrN = p.n;
        }
        boolean nack = p.kind == Packet.Kind.NACK;
        if (nack) {
            f.nacks++;
            f.resend.add(p.seq);
        } else {
            f.acked += p.payload;
            if (f.acked == f.bytes) {
                f.finishedPs = net.loop.now();
                net.finished(f);
            }
        }
        long rttNs = (net.loop.now() - p.sentAtPs) / 1000;
        entropies.feedback(f.local, p.entropy, p.ecnEcho, nack, nowNs());
        update(f, windows.apply(f.local, nack ? WindowControl.Signal.NACK : WindowControl.Signal.ACK, p.payload, rttNs,
                p.ecnEcho, f.inFlight, p.hops, nowNs()));
    }

    private void timeout(Flow f, long seq, long sentAt) {
        Long s = f.outstanding.get(seq);
        if (s == null || s != sentAt) {
            return;
        }
        f.outstanding.remove(seq);
        int payload = (int) Math.min(net.config.mtu(), f.bytes - seq);
        f.inFlight -= payload;
        f.timeouts++;
        f.resend.add(seq);
        entropies.failure(f.local, nowNs());
        update(f, windows.apply(f.local, WindowControl.Signal.TIMEOUT, payload, 0, false, f.inFlight, nowNs()));
    }

    private void update(Flow f, long cwnd) {
        f.cwnd = cwnd;
        f.minCwnd = Math.min(f.minCwnd, cwnd);
        net.noteWindow(f, cwnd);
        nic.kick();
    }
}
