// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import static uehw.model.packet.PacketFormat.*;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import uehw.model.packet.Packet.Fields;
import uehw.model.trim.TrimQueueModel;
import uehw.netsim.ClockedQueue;
import uehw.netsim.EventLoop;
import uehw.netsim.Packet;
import uehw.netsim.Port;

/**
 * A port whose queue runs at the clock on a TrimQueueEngine (the RTL, or the model with its
 * timing): each packet becomes a real frame (Ethernet, IPv4 with ECT(0) or CE, UDP to the
 * transport's port with the entropy as source port, the transport header with the packet's flags
 * and a port-local serial number as its sequence, then payload), driven into s_axis a beat a clock
 * in arrival order; m_axis is ready one clock in {@code clocksPerBeat}, which paces the output at
 * the link rate (a beat of W bytes in W bytes' link time), so the input runs {@code clocksPerBeat}
 * times faster than the link (a switch's internal speedup: the frames of several input links
 * reach the queue without waiting). A frame whose last beat leaves at an edge is on the far side
 * of the link one latency later, as the packet it carried, CE and trimmed as the frame says. While
 * nothing is inside (no input and m_axis not valid for {@link #QUIET_CLOCKS} clocks) the port
 * stops clocking, and starts again at the first clock edge after the next arrival.
 */
public final class ClockedEgress implements ClockedQueue {
    /** Idle clocks after which nothing is left inside: well above the queue's 14-clock store and forward. */
    static final int QUIET_CLOCKS = 64;
    private final Port port;
    private final EventLoop loop;
    final TrimQueueEngine engine;
    private final int clocksPerBeat;
    final long clockPs;
    private final long latencyPs;
    private final ArrayDeque<byte[]> input = new ArrayDeque<>();
    private byte[] current;
    private int beat;
    private final Map<Integer, uehw.netsim.Packet> inside = new HashMap<>();
    private int serial;
    /** The next clock's index (time = index x clockPs). */
    private long clock;
    private boolean ticking;
    private int quiet;
    long clocks;
    long inputBytes, inputPeakBytes;

    /**
     * From now on {@code port}'s queue is a trimming queue at the clock on {@code engine} (the
     * Verilated RTL, TrimQueueRtlEngine, or the model with its clock timing, TrimQueueModelEngine),
     * its m_axis ready one clock in {@code clocksPerBeat}. Only a switch port, before anything was sent.
     */
    public static ClockedEgress attach(Port port, TrimQueueEngine engine, int clocksPerBeat) {
        Port.Spec spec = port.spec();
        if (engine.cfg.capacityBytes() != spec.capacityBytes() || engine.cfg.controlBytes() != spec.controlBytes()
                || engine.cfg.trimEntries() != spec.trimEntries() || engine.cfg.trimBytes() != spec.trimBytes()) {
            throw new IllegalArgumentException(port.name + ": the engine's queue " + engine.cfg + " is not this port's " + spec);
        }
        return (ClockedEgress) port.clocked((p, loop, psPerByte, latencyPs) ->
                new ClockedEgress(p, loop, engine, clocksPerBeat, psPerByte, latencyPs));
    }

    @Override
    public long clocks() {
        return clocks;
    }

    @Override
    public long inputPeakBytes() {
        return inputPeakBytes;
    }

    @Override
    public long dataBytes() {
        return engine.model.dataBytes;
    }

    private ClockedEgress(Port port, EventLoop loop, TrimQueueEngine engine, int clocksPerBeat, double psPerByte, long latencyPs) {
        if (clocksPerBeat < 1) {
            throw new IllegalArgumentException("clocksPerBeat must be at least 1, not " + clocksPerBeat);
        }
        double beatPs = psPerByte * engine.bytesPerBeat();
        this.clockPs = Math.round(beatPs / clocksPerBeat);
        if (Math.abs(clockPs * clocksPerBeat - beatPs) > 1e-6) {
            throw new IllegalArgumentException(String.format("a beat of %d bytes takes %.3f ps at this link rate: %d clocks per"
                    + " beat give no whole clock period in ps", engine.bytesPerBeat(), beatPs, clocksPerBeat));
        }
        this.port = port;
        this.loop = loop;
        this.engine = engine;
        this.clocksPerBeat = clocksPerBeat;
        this.latencyPs = latencyPs;
    }

    /** The frame that carries {@code p}. */
    static byte[] frameOf(uehw.netsim.Packet p, int serial) {
        int flags = switch (p.kind) {
            case DATA -> p.trimmed ? FlagTrimmed : 0;
            case ACK -> FlagAck | (p.ecnEcho ? FlagEcnEcho : 0);
            case NACK -> FlagNack;
            case PULL -> throw new IllegalArgumentException("a PULL (RCCC) has no frame in docs/packet-format.md yet");
        };
        int payload = p.bytes - Ipv4AllHeaderBytes;
        if (payload < 0) {
            throw new IllegalArgumentException("a packet of " + p.bytes + " B is shorter than its headers ("
                    + Ipv4AllHeaderBytes + " B)");
        }
        Fields f = new Fields(false, 0, p.ce ? EcnCe : EcnEct0, p.entropy & 0xFFFF, p.flow, serial, flags, 0, 0);
        return uehw.model.packet.Packet.transport(f, payload, serial).bytes;
    }

    @Override
    public void send(uehw.netsim.Packet p) {
        inside.put(serial, p);
        byte[] frame = frameOf(p, serial++);
        input.add(frame);
        inputBytes += frame.length;
        inputPeakBytes = Math.max(inputPeakBytes, inputBytes);
        if (!ticking) {
            ticking = true;
            quiet = 0;
            clock = Math.max(clock, (loop.now() + clockPs - 1) / clockPs);
            loop.after(clock * clockPs - loop.now(), this::tick);
        }
    }

    private void tick() {
        if (current == null && !input.isEmpty()) {
            current = input.poll();
            beat = 0;
        }
        boolean drove = current != null;
        TrimQueueEngine.Departure out = engine.clock(current, beat, clock % clocksPerBeat == 0);
        if (current != null && ++beat * engine.bytesPerBeat() >= current.length) {
            inputBytes -= current.length;
            current = null;
        }
        clock++;
        clocks++;
        if (out != null) {
            depart(out);
        }
        TrimQueueModel m = engine.model;
        port.trims = m.outcome(TrimQueueModel.Outcome.TRIM);
        port.marks = m.counters.get("MARKED");
        port.dropsTrimFull = m.outcome(TrimQueueModel.Outcome.DROP_TRIM_FULL);
        port.dropsDataFull = m.outcome(TrimQueueModel.Outcome.DROP_DATA_FULL) + m.counters.get("DROP_NON_ECT");
        port.dropsControlFull = m.outcome(TrimQueueModel.Outcome.DROP_CONTROL_FULL)
                + m.outcome(TrimQueueModel.Outcome.DROP_CONTROL_OVERSIZE);
        port.peakDataBytes = m.dataHighWater;
        quiet = drove || engine.outputValid() ? 0 : quiet + 1;
        if (quiet >= QUIET_CLOCKS && current == null && input.isEmpty()) {
            ticking = false;
            if (engine instanceof TrimQueueModelEngine e && !e.idle()) {
                throw new AssertionError(port.name + ": quiet for " + QUIET_CLOCKS + " clocks with a frame inside");
            }
            return;
        }
        loop.after(clockPs, this::tick);
    }

    /** The frame's last beat left at this clock's edge: its packet reaches the peer one latency after the edge. */
    private void depart(TrimQueueEngine.Departure out) {
        byte[] b = out.bytes();
        int tp = Ipv4TransportOffset;
        int id = (b[tp + TpSequence] & 0xFF) << 24 | (b[tp + TpSequence + 1] & 0xFF) << 16
                | (b[tp + TpSequence + 2] & 0xFF) << 8 | b[tp + TpSequence + 3] & 0xFF;
        uehw.netsim.Packet p = inside.remove(id);
        if (p == null) {
            throw new AssertionError(port.name + ": a frame left with serial " + id + ", which no packet sent");
        }
        p.trimmed = (b[tp + TpFlags] & FlagTrimmed) != 0;
        p.ce = (b[Ipv4Tos] & 3) == EcnCe;
        p.bytes = out.length();
        port.departed(p, clockPs + latencyPs);
    }
}
