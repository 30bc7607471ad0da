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
    /**
     * How a port queues: the trimming queue's rules (docs/trimming-queue.md), or the UEC reference
     * simulator's composite queue (uet-htsim compositequeue.cpp:74-300): one header queue of twice
     * the data capacity, served first, for ACKs, NACKs and trimmed headers; a data packet that does
     * not fit trims, with probability 1/2, itself or else the data packet enqueued last, which
     * makes room for it (:162-228); RED at the end of a data packet's service, on the data bytes
     * left behind it (:74-98).
     */
    public enum Discipline { TRIMMING_QUEUE, COMPOSITE }

    /** Queue parameters in bytes; kMin/kMax are RED's thresholds (Sec. 3.5: 20% and 80%). */
    public record Spec(long capacityBytes, long controlBytes, int trimEntries, int trimBytes, long kMin, long kMax,
                       boolean trimming, long seed, Discipline discipline) {
        public Spec(long capacityBytes, long controlBytes, int trimEntries, int trimBytes, long kMin, long kMax,
                    boolean trimming, long seed) {
            this(capacityBytes, controlBytes, trimEntries, trimBytes, kMin, kMax, trimming, seed, Discipline.TRIMMING_QUEUE);
        }

        public static Spec of(long capacity, int trimBytes) {
            return new Spec(capacity, Math.max(capacity / 8, 8192), 1024, trimBytes, capacity / 5, capacity * 4 / 5, true,
                    0x7A1D5EEDL);
        }

        /** The reference's composite queue: data capacity, header queue 2 x capacity (compositequeue.cpp:233). */
        public static Spec composite(long capacity, int trimBytes, long kMin, long kMax, long seed) {
            return new Spec(capacity, 2 * capacity, Integer.MAX_VALUE, trimBytes, kMin, kMax, true, seed,
                    Discipline.COMPOSITE);
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
    /** COMPOSITE: the data packet in service, still counted in the data bytes until it has left (compositequeue.cpp:88). */
    private long inServiceBytes;
    /** COMPOSITE: RED marks (the reference turns it off at the ToRs' downlinks with RCCC, main_uec.cpp:707-708). */
    private boolean ecn = true;
    /**
     * A host NIC's turns when control and data both wait: 0 = control first always; n = n control
     * packets to one data packet (the reference's UecNIC, uec.cpp:245-246, 414-438: 10).
     */
    int controlTurns;
    private int turn;

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
        this.prng = new Xorshift32(spec.discipline() == Discipline.COMPOSITE ? portSeed(spec.seed(), name) : spec.seed());
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

    /** The node at the far end of the link (the network wires it; a bench may wire its own). */
    public void connect(Node peer) {
        this.peer = peer;
    }

    public Node peer() {
        return peer;
    }

    public long dataBytes() {
        return clocked != null ? clocked.dataBytes() : dataBytes + inServiceBytes;
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
        if (spec.discipline() == Discipline.COMPOSITE) {
            if (admitComposite(p)) {
                kick();
            }
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

    /** A composite port's own draws: the spec's seed and the port's name through splitmix64's finaliser (never 0). */
    private static long portSeed(long seed, String name) {
        long z = seed ^ (long) name.hashCode() * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z & 0xFFFF_FFFFL) == 0 ? 1 : z & 0xFFFF_FFFFL;
    }

    /** compositequeue.cpp:140-300: whether {@code p} (or a header in its place) was queued. */
    private boolean admitComposite(Packet p) {
        if (!p.control()) {
            long occupancy = dataBytes + inServiceBytes;
            boolean fits = occupancy + p.bytes <= spec.capacityBytes();
            // :162 drand() < 0.5; with nothing queued to trim (a capacity under two packets: the reference
            // asserts there, :167) the arrival is trimmed
            if (fits || !data.isEmpty() && prng.nextScaled(2) == 0) {
                if (!fits) { // :164-228: the data packet enqueued last is trimmed, the arrival takes its place
                    Packet booted = data.pollLast();
                    dataBytes -= booted.bytes;
                    trimToHeader(booted);
                }
                data.add(p);
                dataBytes += p.bytes;
                peakDataBytes = Math.max(peakDataBytes, dataBytes + inServiceBytes);
                return true;
            }
            trimToHeader(p); // :262: the arrival is trimmed
            return true;
        }
        if (controlBytes + p.bytes > spec.controlBytes()) { // :266
            dropsControlFull++;
            return false;
        }
        control.add(p);
        controlBytes += p.bytes;
        return true;
    }

    private void trimToHeader(Packet p) {
        trims++;
        p.trimmed = true;
        p.bytes = Math.min(p.bytes, spec.trimBytes());
        p.trimmedAtLastHop = peer instanceof Host;
        if (controlBytes + p.bytes > spec.controlBytes()) { // :233, :266
            dropsTrimFull++;
            return;
        }
        control.add(p);
        controlBytes += p.bytes;
    }

    /** A composite port that never marks (the reference's ToR downlinks under RCCC). */
    public void disableEcn() {
        ecn = false;
    }

    /** compositequeue.cpp:74-98, at the end of a data packet's service: above kMax, or above kMin with p linear. */
    private boolean compositeMark() {
        if (!ecn) {
            return false;
        }
        long q = dataBytes;
        long span = spec.kMax() - spec.kMin();
        long draw = prng.nextScaled(span > 0 ? span : 1);
        return q > spec.kMax() || q > spec.kMin() && draw < q - spec.kMin();
    }

    /** Starts the next packet if the link is idle (a NIC calls it when its source has data again). */
    public void kick() {
        if (!busy && clocked == null) {
            startNext();
        }
    }

    private Packet next() {
        if (controlTurns > 0 && !control.isEmpty() && source != null) {
            turn = (turn + 1) % (controlTurns + 1); // uec.cpp:414-438: data on one turn in controlTurns + 1
            if (turn == 0) {
                Packet d = source.get();
                if (d != null) {
                    return d;
                }
            }
        }
        if (!control.isEmpty()) {
            Packet p = control.poll();
            controlBytes -= p.bytes;
            return p;
        }
        if (!trimmedQueue.isEmpty()) {
            return trimmedQueue.poll();
        }
        if (!data.isEmpty() && spec.discipline() == Discipline.COMPOSITE) {
            Packet p = data.poll();
            dataBytes -= p.bytes;
            inServiceBytes = p.bytes;
            return p;
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
            if (spec.discipline() == Discipline.COMPOSITE && p.kind == Packet.Kind.DATA && !p.trimmed) {
                inServiceBytes = 0;
                if (compositeMark()) {
                    p.ce = true;
                    marks++;
                }
            }
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
