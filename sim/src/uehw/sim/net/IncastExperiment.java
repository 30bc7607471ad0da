package uehw.sim.net;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.Random;

import uehw.sim.smartt.SmarttFixedModel;
import uehw.sim.smartt.SmarttFixedModel.Event;
import uehw.sim.smartt.SmarttFixedModel.Kind;
import uehw.sim.smartt.SmarttParams;

/**
 * smartt-reps.txt Sec. 3 closed loop on the fixed-point model (the RTL's arithmetic): {@link #senders}
 * senders at 100 Gb/s start one flow each at the same time into one 100 Gb/s bottleneck port
 * (an 8:1 incast). The port has a data queue of one BDP with RED marking at dequeue from its
 * instantaneous occupancy (Kmin 20%, Kmax 80%, Sec. 3.5), and a strict-priority header queue: a
 * data packet that does not fit is trimmed and its header reaches the receiver, which NACKs it
 * (README: htsim). Without trimming it is dropped and the sender times out. ACKs return on a
 * fixed path. Each sender keeps at most cwnd bytes in flight and applies every ACK/NACK/timeout
 * to its flow's state in the model.
 */
public final class IncastExperiment {
    public final int senders = 8;
    public final int mtu = 4096;
    public final long flowBytes = 2L << 20;             // 2 MiB per flow
    public final double gbps = 100;
    public final long baseRttNs = 12_000;
    public final long queueBytes = 150_000;             // one BDP
    public final double kMin = 0.2, kMax = 0.8;         // RED (Sec. 3.5)
    public final long rtoNs = 3 * baseRttNs;            // timeout without trimming (aggressive, Sec. 3.3)
    /** CONTROL.UNACKED_FROM_WINDOW: QuickAdapt ignores the window before it, not the senders' bytes in flight. */
    public boolean unackedFromWindow = false;

    private final double nsPerByte = 8 / gbps;
    private final long serialization = Math.round(mtu * nsPerByte);
    /** One-way propagation per hop, so that an empty network has the base RTT (two hops each way). */
    private final long hop = (baseRttNs - 2 * serialization) / 4;

    /** Per-flow results and what the port saw. */
    public record Outcome(boolean trimming, long[] fctNs, long idealNs, long peakQueueBytes, long trims, long drops,
                          long marks, long timeouts, long quickAdapts, long packetsSent, long packetsDelivered) {
        public double throughputRatio() {
            long max = 0, min = Long.MAX_VALUE;
            for (long f : fctNs) {
                max = Math.max(max, f);
                min = Math.min(min, f);
            }
            return (double) max / min; // every flow has the same size: throughput ratio = FCT ratio
        }

        public double meanSlowdown() {
            double s = 0;
            for (long f : fctNs) {
                s += (double) f / idealNs;
            }
            return s / fctNs.length;
        }
    }

    private enum Type { SEND, ARRIVE, DEQUEUED, ACK, NACK, TIMEOUT, SAMPLE }

    private record Ev(long time, long order, Type type, int flow, long seq, long sentAt, boolean ecn) {
    }

    private final class Sender {
        final int id;
        long nextNew;           // next new byte offset
        final ArrayDeque<Long> resend = new ArrayDeque<>();
        long inFlight;
        long acked;
        long finished = -1;
        boolean nicBusy;
        final java.util.Map<Long, Long> outstanding = new java.util.HashMap<>(); // seq -> send time

        Sender(int id) {
            this.id = id;
        }

        boolean hasData() {
            return !resend.isEmpty() || nextNew < flowBytes;
        }
    }

    private final PriorityQueue<Ev> events = new PriorityQueue<>((a, b) ->
            a.time() != b.time() ? Long.compare(a.time(), b.time()) : Long.compare(a.order(), b.order()));
    private long order;

    private void at(long time, Type type, int flow, long seq, long sentAt, boolean ecn) {
        events.add(new Ev(time, order++, type, flow, seq, sentAt, ecn));
    }

    /** Runs the incast; writes a time series (every 2 us: queue bytes and each flow's window) to csv if given. */
    public Outcome run(boolean trimming, long seed, Path csv) throws IOException {
        SmarttParams p = new SmarttParams();
        p.trimming = trimming;
        p.unackedFromWindow = unackedFromWindow;
        SmarttFixedModel cc = new SmarttFixedModel(senders, 24, 32, 10, 14, p);
        Random random = new Random(seed);
        Sender[] s = new Sender[senders];
        for (int i = 0; i < senders; i++) {
            s[i] = new Sender(i);
            cc.apply(new Event(i, Kind.INIT, 0, 0, false, 0, 0));
            at(0, Type.SEND, i, 0, 0, false);
        }
        ArrayDeque<Ev> queue = new ArrayDeque<>();
        long queued = 0;
        boolean portBusy = false;
        long peak = 0, trims = 0, drops = 0, marks = 0, timeouts = 0, sent = 0, delivered = 0;
        PrintWriter out = null;
        if (csv != null) {
            Files.createDirectories(csv.getParent());
            out = new PrintWriter(Files.newBufferedWriter(csv));
            StringBuilder h = new StringBuilder("time_us,queue_bytes");
            for (int i = 0; i < senders; i++) {
                h.append(",cwnd_").append(i);
            }
            out.println(h);
            at(0, Type.SAMPLE, 0, 0, 0, false);
        }
        int done = 0;
        while (!events.isEmpty()) { // after the last flow ends, what is still in flight drains out
            Ev e = events.poll();
            long now = e.time();
            switch (e.type()) {
                case SEND -> {
                    Sender x = s[e.flow()];
                    x.nicBusy = false;
                    long cwnd = cc.state(x.id).cwnd >>> SmarttFixedModel.F;
                    if (x.hasData() && x.inFlight + mtu <= Math.max(cwnd, mtu)) {
                        long seq = x.resend.isEmpty() ? x.nextNew : x.resend.poll();
                        if (seq == x.nextNew) {
                            x.nextNew += mtu;
                        }
                        x.inFlight += mtu;
                        x.outstanding.put(seq, now);
                        sent++;
                        x.nicBusy = true;
                        at(now + serialization + hop, Type.ARRIVE, x.id, seq, now, false);
                        at(now + serialization, Type.SEND, x.id, 0, 0, false);
                        if (!trimming) {
                            at(now + rtoNs, Type.TIMEOUT, x.id, seq, now, false);
                        }
                    }
                }
                case ARRIVE -> {
                    if (queued + mtu > queueBytes) {
                        if (trimming) {
                            trims++; // the header overtakes the data queue and is NACKed by the receiver
                            at(now + 3 * hop, Type.NACK, e.flow(), e.seq(), e.sentAt(), false);
                        } else {
                            drops++;
                        }
                    } else {
                        queue.add(e);
                        queued += mtu;
                        peak = Math.max(peak, queued);
                        if (!portBusy) {
                            portBusy = true;
                            at(now + serialization, Type.DEQUEUED, 0, 0, 0, false);
                        }
                    }
                }
                case DEQUEUED -> {
                    Ev pkt = queue.poll();
                    // RED at dequeue from the instantaneous occupancy (the packet still counted).
                    double fill = (double) queued / queueBytes;
                    double pMark = fill <= kMin ? 0 : fill >= kMax ? 1 : (fill - kMin) / (kMax - kMin);
                    boolean ecn = random.nextDouble() < pMark;
                    marks += ecn ? 1 : 0;
                    queued -= mtu;
                    delivered++;
                    at(now + hop + 2 * hop, Type.ACK, pkt.flow(), pkt.seq(), pkt.sentAt(), ecn);
                    if (!queue.isEmpty()) {
                        at(now + serialization, Type.DEQUEUED, 0, 0, 0, false);
                    } else {
                        portBusy = false;
                    }
                }
                case ACK, NACK, TIMEOUT -> {
                    Sender x = s[e.flow()];
                    Long sentAt = x.outstanding.get(e.seq());
                    if (sentAt == null || sentAt != e.sentAt()) {
                        break; // a stale timeout of a packet already ACKed or resent
                    }
                    x.outstanding.remove(e.seq());
                    x.inFlight -= mtu;
                    Kind kind = e.type() == Type.ACK ? Kind.ACK : e.type() == Type.NACK ? Kind.NACK : Kind.TIMEOUT;
                    // unacked (Alg. 2 line 8): what is still in flight once this packet left it.
                    cc.apply(new Event(x.id, kind, mtu, now - e.sentAt(), e.ecn(), x.inFlight, now & 0xFFFFFFFFL));
                    if (kind == Kind.ACK) {
                        x.acked += mtu;
                        if (x.acked >= flowBytes && x.finished < 0) {
                            x.finished = now;
                            done++;
                        }
                    } else {
                        timeouts += kind == Kind.TIMEOUT ? 1 : 0;
                        x.resend.add(e.seq()); // the transport retransmits (Alg. 1 line 31)
                    }
                    if (!x.nicBusy) {
                        at(now, Type.SEND, x.id, 0, 0, false);
                    }
                }
                case SAMPLE -> {
                    StringBuilder row = new StringBuilder(String.format(java.util.Locale.ROOT, "%.1f,%d", now / 1000.0, queued));
                    for (int i = 0; i < senders; i++) {
                        row.append(',').append(cc.state(i).cwnd >>> SmarttFixedModel.F);
                    }
                    out.println(row);
                    if (done < senders) {
                        at(now + 2000, Type.SAMPLE, 0, 0, 0, false);
                    }
                }
                default -> throw new IllegalStateException();
            }
        }
        if (out != null) {
            out.close();
        }
        long[] fct = new long[senders];
        for (int i = 0; i < senders; i++) {
            fct[i] = s[i].finished;
        }
        // Ideal: the port shared fairly, every flow done when all bytes have crossed it, plus one base RTT.
        long ideal = Math.round(senders * flowBytes * nsPerByte) + baseRttNs;
        return new Outcome(trimming, fct, ideal, peak, trims, drops, marks, timeouts, cc.quickAdapts, sent, delivered);
    }
}
