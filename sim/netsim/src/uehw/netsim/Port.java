// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.function.Supplier;

import uehw.model.Xorshift32;
import uehw.model.trim.TrimRules;

/**
 * An output port and the link behind it, at packet level with the trimming queue's rules
 * (uehw.model.trim.TrimRules, the model's; docs/trimming-queue.md; smartt-reps.txt Sec. 2.1, 3.5): ACKs, NACKs and arriving trimmed
 * headers take a strict-priority control queue; a data packet that does not fit the data queue's
 * byte capacity is trimmed to {@code trimBytes} and sent ahead of the data (or dropped without
 * trimming); data packets are ECN-marked when they start to leave, by RED on the data occupancy
 * then (the packet still counted), with the queue's xorshift32 draw; one packet at a time
 * serialises at the link rate and arrives at the peer one propagation latency later. A failed
 * link loses what it carries. A host NIC's port pulls its data from {@link #source} when its
 * queues are empty.
 */
public final class Port {
    /** Queue parameters in bytes; kMin/kMax are RED's thresholds (Sec. 3.5: 20% and 80%). */
    public record Spec(long capacityBytes, long controlBytes, int trimEntries, int trimBytes, long kMin, long kMax,
                       boolean trimming, long seed) {
        public static Spec of(long capacity, int trimBytes) {
            return new Spec(capacity, Math.max(capacity / 8, 8192), 1024, trimBytes, capacity / 5, capacity * 4 / 5, true,
                    0x7A1D5EEDL);
        }
    }

    public final String name;
    private final EventLoop loop;
    private final Spec spec;
    private final double psPerByte;
    private final long latencyPs;
    private Node peer;
    private final Xorshift32 prng;
    private final ArrayDeque<Packet> control = new ArrayDeque<>();
    private final ArrayDeque<Packet> trimmedQueue = new ArrayDeque<>();
    private final ArrayDeque<Packet> data = new ArrayDeque<>();
    private long dataBytes;
    private long controlBytes;
    private boolean busy;
    private boolean up = true;
    /** A host NIC's data, pulled when the queues are empty (null: none now). */
    Supplier<Packet> source;
    /** The queue at the clock (the RTL or its model), or null: the packet-level queue here. */
    private ClockedQueue clocked;
    /** The network whose trace hears the departures. */
    Network net;

    public long peakDataBytes, departures, departedBytes, trims, marks, dropsDataFull, dropsTrimFull, dropsControlFull,
            lostOnFailedLink;
    /** When each packet lost on this failed link was sent (ps; -1 for an ACK or NACK). */
    public final java.util.List<Long> lostSentAtPs = new java.util.ArrayList<>();

    public Port(String name, EventLoop loop, Spec spec, double gbps, long latencyNs) {
        this.name = name;
        this.loop = loop;
        this.spec = spec;
        this.psPerByte = 8000.0 / gbps;
        this.latencyPs = latencyNs * 1000;
        this.prng = new Xorshift32(spec.seed());
    }

    /**
     * From now on this port's queue runs at the clock: {@code factory} makes it (the trimming
     * queue's RTL or its model with the RTL's timing, uehw.netsim.rtl.ClockedEgress). Only a switch
     * port, before anything was sent.
     */
    public ClockedQueue clocked(ClockedQueue.Factory factory) {
        if (source != null || departures > 0 || !control.isEmpty() || !data.isEmpty()) {
            throw new IllegalStateException(name + ": only an unused switch port can run at the clock");
        }
        clocked = factory.make(this, loop, psPerByte, latencyPs);
        return clocked;
    }

    /** The queue parameters of this port. */
    public Spec spec() {
        return spec;
    }

    /** Clocks the clocked queue ran (0 for a packet-level port). */
    public long clocks() {
        return clocked == null ? 0 : clocked.clocks();
    }

    /** The most bytes waiting to enter the clocked queue at once (0 for a packet-level port). */
    public long inputPeakBytes() {
        return clocked == null ? 0 : clocked.inputPeakBytes();
    }

    void connect(Node peer) {
        this.peer = peer;
    }

    public Node peer() {
        return peer;
    }

    public long dataBytes() {
        return clocked != null ? clocked.dataBytes() : dataBytes;
    }

    public boolean up() {
        return up;
    }

    /** A failed (or repaired) link: while down, every packet that finishes on it is lost. */
    public void setUp(boolean up) {
        this.up = up;
    }

    /** A packet to send out of this port. */
    public void send(Packet p) {
        if (clocked != null) {
            clocked.send(p);
            return;
        }
        switch (TrimRules.admit(p.control(), controlBytes + p.bytes <= spec.controlBytes(),
                dataBytes + p.bytes <= spec.capacityBytes(), spec.trimming(), trimmedQueue.size() < spec.trimEntries())) {
            case CONTROL -> {
                control.add(p);
                controlBytes += p.bytes;
            }
            case DATA -> {
                data.add(p);
                dataBytes += p.bytes;
                peakDataBytes = Math.max(peakDataBytes, dataBytes);
            }
            case TRIM -> {
                p.trimmed = true;
                p.bytes = Math.min(p.bytes, spec.trimBytes());
                trimmedQueue.add(p);
                trims++;
            }
            case DROP_CONTROL_FULL -> {
                dropsControlFull++;
                return;
            }
            case DROP_DATA_FULL -> {
                dropsDataFull++;
                return;
            }
            case DROP_TRIM_FULL -> {
                dropsTrimFull++;
                return;
            }
        }
        kick();
    }

    /** Starts the next packet if the link is idle (a NIC calls it when its source has data again). */
    public void kick() {
        if (!busy && clocked == null) {
            startNext();
        }
    }

    private Packet next() {
        if (!control.isEmpty()) {
            Packet p = control.poll();
            controlBytes -= p.bytes;
            return p;
        }
        if (!trimmedQueue.isEmpty()) {
            return trimmedQueue.poll();
        }
        if (!data.isEmpty()) {
            Packet p = data.poll();
            if (TrimRules.congested(prng, dataBytes, spec.kMin(), spec.kMax())) {
                p.ce = true;
                marks++;
            }
            dataBytes -= p.bytes;
            return p;
        }
        return source == null ? null : source.get();
    }

    private void startNext() {
        Packet p = next();
        if (p == null) {
            busy = false;
            return;
        }
        busy = true;
        loop.after(Math.round(p.bytes * psPerByte), () -> {
            departed(p, latencyPs);
            startNext();
        });
    }

    /** {@code p} finished leaving: it reaches the peer {@code arrivesAfterPs} from now, or is lost on a failed link. */
    public void departed(Packet p, long arrivesAfterPs) {
        departures++;
        departedBytes += p.bytes;
        if (net != null) {
            net.noteDeparture(this, p);
        }
        if (up) {
            loop.after(arrivesAfterPs, () -> peer.receive(p, this));
        } else {
            lostOnFailedLink++;
            lostSentAtPs.add(p.kind == Packet.Kind.DATA ? p.sentAtPs : -1);
        }
    }
}
