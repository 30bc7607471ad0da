// SPDX-License-Identifier: Apache-2.0
package uehw.model.dart;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import uehw.model.dart.DartDftModel.Packet;

/**
 * Random interleaved RDMA messages for the DFT: short messages with tokens (1 to 8 packets,
 * including one-packet messages), long flows without tokens, a hot message that sends on
 * consecutive clocks, queue occupancies around the threshold, and optional bad input (end packets
 * of unknown flows, repeated start packets, routed ports >= P). Flow ids come from a small pool,
 * so ids are reused as soon as their message ends. Each packet's meta is its sequence number;
 * {@link #messageOf} maps it back to its message (a repeated start packet belongs to its message;
 * other bad input to none).
 */
public final class MessageTraffic {
    /** One message in flight. */
    public static final class Message {
        public final long id;
        public final long flowId;
        public final int routedPort;
        public final int tokens;
        public int remaining;
        boolean started;

        Message(long id, long flowId, int routedPort, int tokens, int length) {
            this.id = id;
            this.flowId = flowId;
            this.routedPort = routedPort;
            this.tokens = tokens;
            this.remaining = length;
        }
    }

    private final Random random;
    private final int ports;
    private final int portSpan;
    private final long flowIdMask;
    private final int concurrent;
    private final long threshold;
    private final double badInput;
    private final List<Message> active = new ArrayList<>();
    private final Set<Long> activeFlows = new HashSet<>();
    private final Map<Long, Message> bySequence = new HashMap<>();
    private final long flowPool;
    private long nextMessage;
    private long sequence;
    private Message hot;
    /** Tokens a start packet carries at most: 0..4 left after earlier switches, fewer for a narrow token field. */
    private int maxTokens = 4;

    /**
     * @param ports      P; routed ports are drawn in [0, portSpan) where portSpan = 2^ceil(log2 P)
     *                   when badInput > 0 (so some are >= P), else [0, P)
     * @param concurrent messages in flight at once (more than E fills the table)
     * @param threshold  the deflection threshold the occupancies are drawn around
     * @param badInput   probability of a bad-input packet
     */
    public MessageTraffic(Random random, int ports, int flowIdWidth, int concurrent, long threshold, double badInput) {
        this.random = random;
        this.ports = ports;
        int span = Integer.highestOneBit(ports - 1) << 1;
        this.portSpan = badInput > 0 ? Math.max(span, 2) : ports;
        this.flowIdMask = flowIdWidth == 64 ? -1L : (1L << flowIdWidth) - 1;
        this.concurrent = concurrent;
        this.threshold = threshold;
        this.badInput = badInput;
        // Unsigned: a 64-bit mask is -1L.
        this.flowPool = Long.compareUnsigned(flowIdMask, 4L * concurrent + 3) < 0 ? flowIdMask + 1 : 4L * concurrent + 3;
        if (flowPool < 2L * concurrent) {
            throw new IllegalArgumentException("flowIdWidth " + flowIdWidth + " has too few ids for " + concurrent + " messages");
        }
    }

    /** Start packets carry at most {@code max} tokens (a narrow token field; 4 by default). */
    public MessageTraffic tokensUpTo(int max) {
        maxTokens = Math.min(4, max);
        return this;
    }

    /** The next packet. */
    public Packet next() {
        long seq = sequence++;
        if (badInput > 0 && random.nextDouble() < badInput) {
            return badPacket(seq);
        }
        while (active.size() < concurrent) {
            startMessage();
        }
        Message m;
        if (hot != null && hot.remaining > 0 && random.nextDouble() < 0.7) {
            m = hot; // the same message on consecutive clocks
        } else {
            m = active.get(random.nextInt(active.size()));
            if (random.nextDouble() < 0.1) {
                hot = m;
            }
        }
        boolean start = !m.started;
        m.started = true;
        boolean end = --m.remaining == 0;
        if (end) {
            active.remove(m);
            activeFlows.remove(m.flowId);
        }
        bySequence.put(seq, m);
        return new Packet(m.flowId, start, end, m.tokens, m.routedPort, occupancy(), seq);
    }

    /** Occupancy of the routed queue: mostly near the threshold, sometimes empty or far above. */
    private long occupancy() {
        double u = random.nextDouble();
        if (u < 0.1) {
            return 0;
        }
        if (u < 0.2) {
            return threshold; // the boundary: not above the threshold
        }
        if (u < 0.3) {
            return threshold + 1;
        }
        return Math.max(0, threshold + (long) (random.nextGaussian() * Math.max(1, threshold / 2)));
    }

    private void startMessage() {
        long flowId;
        do {
            flowId = randomFlowId();
        } while (activeFlows.contains(flowId));
        boolean longFlow = random.nextDouble() < 0.15;
        int length = longFlow ? 8 + random.nextInt(40) : 1 + random.nextInt(8);
        int tokens = longFlow ? 0 : random.nextInt(maxTokens + 1);
        Message m = new Message(nextMessage++, flowId, random.nextInt(ports), tokens, length);
        active.add(m);
        activeFlows.add(flowId);
    }

    private long randomFlowId() {
        // A small pool (ids reused right after their message ends), spread over the id width.
        long k = (long) (random.nextDouble() * flowPool);
        return (k * 0x9E3779B97F4A7C15L) & flowIdMask;
    }

    private Packet badPacket(long seq) {
        int kind = random.nextInt(3);
        int routed = random.nextInt(portSpan);
        if (kind == 1 && !active.isEmpty()) {
            // A repeated start packet of a message in flight (it must not allocate a second entry).
            // The switch cannot tell it from a new message: it may allocate, and the message's
            // later packets then follow it.
            Message m = active.get(random.nextInt(active.size()));
            bySequence.put(seq, m);
            return new Packet(m.flowId, true, false, m.tokens, m.routedPort, threshold + 1, seq);
        }
        if (kind == 2) {
            routed = ports + random.nextInt(Math.max(1, portSpan - ports)); // >= P when portSpan > P
            routed = Math.min(routed, portSpan - 1);
        }
        // An end packet of a flow no message is using, or a stray packet.
        long flowId;
        do {
            flowId = randomFlowId();
        } while (activeFlows.contains(flowId));
        return new Packet(flowId, kind == 2, true, random.nextInt(maxTokens + 1), routed, occupancy(), seq);
    }

    /** The message a packet (by meta = sequence number) belongs to, or null for bad input of no message. */
    public Message messageOf(long meta) {
        return bySequence.remove(meta);
    }

    /** Messages still in flight; ends them all with their remaining packets via {@link #drainPackets}. */
    public int inFlight() {
        return active.size();
    }

    /** The remaining packets of every message in flight, so that every message ends. */
    public List<Packet> drainPackets() {
        List<Packet> out = new ArrayList<>();
        for (Message m : new ArrayList<>(active)) {
            while (m.remaining > 0) {
                long seq = sequence++;
                boolean start = !m.started;
                m.started = true;
                boolean end = --m.remaining == 0;
                bySequence.put(seq, m);
                out.add(new Packet(m.flowId, start, end, m.tokens, m.routedPort, occupancy(), seq));
            }
            active.remove(m);
            activeFlows.remove(m.flowId);
        }
        hot = null;
        return out;
    }
}
