package uehw.sim.net;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import uehw.sim.dart.DartDftModel;
import uehw.sim.dart.DartDftModel.Decision;
import uehw.sim.dart.DartDftModel.Packet;

/**
 * dart.txt Sec. IV as an experiment on the DFT golden model: one switch with {@link #ports} output
 * ports in slotted time (a slot is one 1 KB packet at 10 Gb/s, 0.8 us, as in Sec. VI-A). Two long
 * flows collide on port 0 (an ECMP collision, the spatially-localized congestion of Sec. IV), each
 * keeping {@link #longWindow} packets in that queue, so port 0 holds a standing queue far above the
 * 15 KB threshold. Short messages of 2-8 KB (Sec. VI-A), 4 tokens each, arrive at random, also
 * routed to port 0, one packet a slot. The other ports carry random background traffic. Every
 * packet routed to port 0 goes through the DFT model; a deflected packet pays two extra hops
 * ({@link #deflectionPenaltySlots}: misroute and recovery, Sec. IV, Fig. 6). Run once with IOFD
 * enabled and once disabled; the message latency is first-packet arrival to last-packet delivery.
 */
public final class DeflectionExperiment {
    public static final double SLOT_US = 0.8; // 1000 bytes at 10 Gb/s
    public static final int PACKET_BYTES = 1000;

    public final int ports = 8;
    public final int longFlows = 2;
    public final int longWindow = 40;
    public final double shortLoad = 0.1;        // of one port's capacity
    public final double backgroundLoad = 0.5;   // per other port
    public final int tokens = 4;                // Sec. VI-A
    public final long threshold = 15_000;       // Sec. VI-A
    public final int entries = 8;               // Sec. VI-A
    /** Two extra links of 5 us propagation plus serialization each (Sec. VI-A): 11.6 us. */
    public final int deflectionPenaltySlots = (int) Math.round(2 * (5.0 + SLOT_US) / SLOT_US);
    public final long slots = 200_000;

    /** Short-message latencies and what the switch saw. */
    public record Outcome(boolean iofd, double[] latencySlots, double[] idealSlots, long deflectedMessages,
                          long reordered, long longPacketsServed, long longPacketsDeflected, long peakQueueBytes,
                          long refusedFull, long dftEntriesLeft) {
        public double percentile(double p) {
            return Percentiles.of(latencySlots, p);
        }

        public double mean() {
            return Arrays.stream(latencySlots).average().orElse(0);
        }

        /** Mean of latency / ideal (the message's own serialization). */
        public double meanSlowdown() {
            double sum = 0;
            for (int i = 0; i < latencySlots.length; i++) {
                sum += latencySlots[i] / idealSlots[i];
            }
            return sum / latencySlots.length;
        }
    }

    private static final class Message {
        final long flowId;
        final int length;
        final long arrival;
        final boolean isLong;
        int sent;
        int delivered;
        long lastDelivery;
        boolean deflected;

        Message(long flowId, int length, long arrival, boolean isLong) {
            this.flowId = flowId;
            this.length = length;
            this.arrival = arrival;
            this.isLong = isLong;
        }
    }

    private record Queued(Message message, int index, boolean deflected) {
    }

    public Outcome run(boolean iofd, long seed) {
        Random random = new Random(seed);
        DartDftModel dft = new DartDftModel(entries, ports, threshold, 1, 1 + (seed & 0x7FFFFFFFL));
        dft.enable = iofd;
        List<ArrayDeque<Queued>> queues = new ArrayList<>();
        for (int p = 0; p < ports; p++) {
            queues.add(new ArrayDeque<>());
        }
        List<Message> longs = new ArrayList<>();
        int[] longQueued = new int[longFlows];
        for (int f = 0; f < longFlows; f++) {
            longs.add(new Message(1_000_000 + f, Integer.MAX_VALUE, 0, true));
        }
        List<Message> sending = new ArrayList<>();
        List<Double> latencies = new ArrayList<>();
        List<Double> ideals = new ArrayList<>();
        double messageRate = shortLoad / 5.0; // mean size 5 packets
        long nextFlowId = 1;
        long deflectedMessages = 0;
        long reordered = 0;
        long longServed = 0;
        long longDeflected = 0;
        long peakQueue = 0;
        for (long now = 0; now < slots; now++) {
            // Arrivals routed to the congested port 0, through the DFT.
            for (int f = 0; f < longFlows; f++) {
                if (longQueued[f] < longWindow) {
                    Message m = longs.get(f);
                    longQueued[f]++;
                    if (route(dft, queues, m, 0, now)) {
                        longDeflected++;
                    }
                }
            }
            if (random.nextDouble() < messageRate) {
                sending.add(new Message(nextFlowId++, 2 + random.nextInt(7), now, false));
            }
            for (Message m : new ArrayList<>(sending)) {
                route(dft, queues, m, tokens, now);
                if (m.sent == m.length) {
                    sending.remove(m);
                }
            }
            for (int p = 1; p < ports; p++) {
                if (random.nextDouble() < backgroundLoad) {
                    queues.get(p).addLast(new Queued(null, 0, false));
                }
            }
            peakQueue = Math.max(peakQueue, (long) queues.get(0).size() * PACKET_BYTES);
            // Each port sends one packet a slot.
            for (int p = 0; p < ports; p++) {
                Queued q = queues.get(p).pollFirst();
                if (q == null || q.message() == null) {
                    continue;
                }
                Message m = q.message();
                if (m.isLong) {
                    longServed++;
                    longQueued[(int) (m.flowId - 1_000_000)]--;
                    continue;
                }
                long delivery = now + 1 + (q.deflected() ? deflectionPenaltySlots : 0);
                if (q.index() != m.delivered || delivery < m.lastDelivery) {
                    reordered++;
                }
                m.delivered++;
                m.lastDelivery = delivery;
                if (m.delivered == m.length) {
                    latencies.add((double) (delivery - m.arrival));
                    ideals.add((double) m.length);
                    deflectedMessages += m.deflected ? 1 : 0;
                }
            }
        }
        return new Outcome(iofd, latencies.stream().mapToDouble(Double::doubleValue).toArray(),
                ideals.stream().mapToDouble(Double::doubleValue).toArray(), deflectedMessages, reordered,
                longServed, longDeflected, peakQueue, dft.refusedFull, dft.occupancy() - countOpenDeflected(sending));
    }

    /** Entries that messages still being sent legitimately hold (their end packet has not passed). */
    private static int countOpenDeflected(List<Message> sending) {
        return (int) sending.stream().filter(m -> m.deflected && m.sent > 0).count();
    }

    /** Sends the message's next packet through the DFT; returns whether it was deflected. */
    private static boolean route(DartDftModel dft, List<ArrayDeque<Queued>> queues, Message m, int tokens, long now) {
        int index = m.sent++;
        boolean start = index == 0;
        boolean end = !m.isLong && m.sent == m.length;
        long queueBytes = (long) queues.get(0).size() * PACKET_BYTES;
        Decision d = dft.apply(new Packet(m.flowId, start, end, m.isLong ? 0 : tokens, 0, queueBytes, index));
        m.deflected |= d.deflected() && !m.isLong && start;
        queues.get(d.port()).addLast(new Queued(m, index, d.deflected()));
        return d.deflected();
    }
}
