// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import uehw.model.rccc.OversubscribedCcExact;

/**
 * A host's transport as the UEC reference simulator runs it with NSCC (uet-htsim 40ccb05
 * htsim/sim/uec.cpp; docs/network-simulator.md "The reference's setting"): the sender's window
 * counts wire bytes (uec.cpp:1737, 1130-1135), a flow sends while cwnd >= in flight + the next
 * packet, PSNs number packets, retransmissions go first; the receiver ACKs every 16 KiB it
 * accepts, at once on CE, on the first packet, on an ACK request and on a duplicate
 * (uec.cpp:2600-2737), and NACKs each trimmed header (:2740-2790); the sender takes the newly
 * received bytes from the ACK's cumulative counter (:904-927) and its RTT sample from the
 * triggering packet's send time (:939-975, Karn's rule :891-902).
 */
public final class UecTransport {
    /**
     * The window law behind the transport (NSCC on its exact model, its fixed-point model, or the
     * RTL): each call returns the window after the event, in wire bytes.
     */
    public interface Law {
        long init(int flow, long nowPs);

        /** uec.cpp:1052-1059: newly received bytes, the RTT sample (0: none), the ECN echo, in flight after the ACK. */
        long ack(int flow, long nowPs, long newly, long rawRttPs, boolean ecn, long inFlight);

        /** uec.cpp:1565-1583: the trimmed packet's size, its RTT, last hop, in flight before the NACK. */
        long nack(int flow, long nowPs, long bytes, long rawRttPs, boolean lastHop, long inFlight);

        /** uec.cpp:2398, 1297-1304: a timed-out packet of {@code bytes}. */
        long timeout(int flow, long nowPs, long bytes);
    }

    /**
     * The reference's constants: UEC header 64 B (uec.cpp:28), control packets 64 B
     * (uecpacket.h:30), 16 KiB SACK threshold (uec.cpp:22); the window law on (NSCC, -sender_cc)
     * and RCCC on (-receiver_cc): the configured maxwnd (speculative credit and the credit's cap,
     * uec.h:332), the pull pacer's time per 256 B quantum and credit per pull.
     */
    public record Settings(int mtu, int headerBytes, int controlBytes, int ackEveryBytes, long rtoPs, boolean senderCc,
                           boolean receiverCc, long configuredMaxwnd, long psPerQuantum, long creditPerPull,
                           long oversubscribedCcRttPs, double oversubscribedCcMinRate) {
        public Settings {
            if (!senderCc && !receiverCc) {
                throw new IllegalArgumentException("the transport needs NSCC, RCCC or both");
            }
            if (oversubscribedCcRttPs > 0 && !receiverCc) {
                throw new IllegalArgumentException("the oversubscription controller sets RCCC's pull rate: it needs RCCC");
            }
            if (oversubscribedCcRttPs > 0 && !(oversubscribedCcMinRate > 0 && oversubscribedCcMinRate <= 1)) {
                throw new IllegalArgumentException("the oversubscription controller's minimum rate must be in (0, 1], not "
                        + oversubscribedCcMinRate);
            }
        }

        /** Without RCCC's oversubscription controller. */
        public Settings(int mtu, int headerBytes, int controlBytes, int ackEveryBytes, long rtoPs, boolean senderCc,
                        boolean receiverCc, long configuredMaxwnd, long psPerQuantum, long creditPerPull) {
            this(mtu, headerBytes, controlBytes, ackEveryBytes, rtoPs, senderCc, receiverCc, configuredMaxwnd, psPerQuantum,
                    creditPerPull, 0, 0);
        }

        /**
         * RCCC's oversubscription controller (oversubscribed_cc.cpp) at every receiving node, deciding
         * every U[0.75, 1.25] x 1.5 x {@code rttPs} (the network's unloaded RTT, main_uec.cpp:726-727)
         * with the rate's floor {@code minRate}.
         */
        public Settings withOversubscribedCc(long rttPs, double minRate) {
            return new Settings(mtu, headerBytes, controlBytes, ackEveryBytes, rtoPs, senderCc, receiverCc, configuredMaxwnd,
                    psPerQuantum, creditPerPull, rttPs, minRate);
        }

        public int mss() {
            return mtu - headerBytes;
        }
    }

    /** A flow's sender state (uec.h:324-420, the parts outside the law); per PSN its send record (_tx_bitmap, _rtx_times). */
    private static final class Sender {
        long backlog;
        long nextPsn;
        long inFlight;
        long recvdBytes;
        /** The cumulative ACK seen so far: records below it have ended. */
        long cumulative;
        /** The outstanding send's wire bytes (0: none), its time, and how often the PSN was resent (-1: its record ended). */
        final int[] bytes;
        final long[] sentPs;
        final int[] rtxTimes;
        final TreeMap<Long, Integer> rtx = new TreeMap<>();
        /** Sends in time order {psn, time}, for the retransmission timer (uec.cpp:1997-2030). */
        final ArrayDeque<long[]> sends = new ArrayDeque<>();
        boolean timerPending;
        boolean done;
        /** RCCC (uec.cpp:1705-1740, 1834-1905): credit, speculation, the last pull number, bytes queued to resend. */
        long credit;
        boolean speculating = true;
        long pull = UecPullPacer.INIT_PULL;
        long rtxBacklog;

        Sender(int packets) {
            bytes = new int[packets];
            sentPs = new long[packets];
            rtxTimes = new int[packets];
            Arrays.fill(rtxTimes, -1);
        }

        boolean outstanding(long psn) {
            return psn >= 0 && psn < bytes.length && bytes[(int) psn] > 0;
        }
    }

    /** A flow's receiver state (UecSink, uec.h:540-600). */
    private static final class Sink {
        long expected;
        final BitSet arrived = new BitSet();
        long receivedBytes;
        long recvdBytes;
        long acceptedBytes;
        boolean ackRequested;
        int outOfOrder;
        /** PSNs that arrived since the last ACK. */
        long[] news = new long[16];
        int newsCount;
        /** RCCC: the connection at this receiver's pull pacer. */
        UecPullPacer.Sink pull;
    }

    private final Host host;
    private final Network net;
    private final Settings s;
    private final Law law;
    private final Map<Integer, Sender> senders = new HashMap<>();
    private final Map<Integer, Sink> sinks = new HashMap<>();
    private int roundRobin;
    /** RCCC: this node's pull pacer (uec.cpp:3044, one per receiving node), or null. */
    private final PullPacer pacer;
    /** RCCC: this node's oversubscription controller (oversubscribed_cc.cpp), or null; its counts since the start. */
    private final OversubscribedCcExact oversubscribedCc;
    private int ccReceived, ccEcn, ccTrimmedLastHop, ccTrimmedOther;
    private final java.util.SplittableRandom ccIntervals;
    /** Packets and answers of this host (the reference's summary line, main_uec.cpp). */
    public long newPackets, rtxPackets, acksSent, nacksSent, acksReceived, nacksReceived, pullsReceived, timeouts;

    UecTransport(Host host, Network net, Settings settings, Law law, PullPacer.Factory pacers) {
        this.host = host;
        this.net = net;
        this.s = settings;
        this.law = law;
        this.pacer = settings.receiverCc() ? pacers.make(host.id, net.loop, settings, this::sendPull, () -> net.unfinished() > 0)
                : null;
        if (settings.oversubscribedCcRttPs() > 0 && pacer.controlsOversubscription()) {
            oversubscribedCc = null;   // the block's own, fed through pacer.arrival
            ccIntervals = null;
        } else if (settings.oversubscribedCcRttPs() > 0) {
            if (!(pacer instanceof UecPullPacer)) {
                throw new IllegalArgumentException("the reference's oversubscription controller runs beside the reference's pacer only");
            }
            oversubscribedCc = new OversubscribedCcExact(settings.oversubscribedCcMinRate());
            ccIntervals = new java.util.SplittableRandom(0x0C0C_0000L + host.id);
            scheduleControl(); // oversubscribed_cc.cpp:29: from the start
        } else {
            oversubscribedCc = null;
            ccIntervals = null;
        }
    }

    /** oversubscribed_cc.h:24-27: the next decision U[0.75, 1.25] x 1.5 base RTTs later (our random numbers, not the reference's). */
    private void scheduleControl() {
        long interval = (long) ((0.75 + ccIntervals.nextDouble() / 2) * 1.5 * s.oversubscribedCcRttPs());
        net.loop.after(interval, () -> {
            // oversubscribed_cc.cpp:39-47, 90: the interval's counts, the pacer's rate
            double rate = oversubscribedCc.control(ccReceived, ccEcn, ccTrimmedLastHop, ccTrimmedOther);
            ccReceived = ccEcn = ccTrimmedLastHop = ccTrimmedOther = 0;
            ((UecPullPacer) pacer).rate(rate);
            if (net.unfinished() > 0) {
                scheduleControl();
            }
        });
    }

    /** The node's pull pacer (RCCC), or null. */
    public PullPacer pacer() {
        return pacer;
    }

    public Law law() {
        return law;
    }

    void start(Flow f) {
        long packets = (f.bytes + s.mss() - 1) / s.mss();
        Sender x = new Sender(Math.toIntExact(packets));
        x.backlog = packets * s.headerBytes() + f.bytes; // uec.cpp:1737
        senders.put(f.id, x);
        x.credit = s.configuredMaxwnd(); // uec.cpp:1707: speculative credit
        f.started = true;
        f.cwnd = law == null ? 0 : law.init(f.local, net.loop.now());
        f.minCwnd = f.cwnd;
        host.entropies.init(f.local, nowNs());
        net.noteWindow(f, f.cwnd);
        host.nic.kick();
    }

    private long nowNs() {
        return net.loop.now() / 1000;
    }

    private int nextSize(Sender x) {
        if (!x.rtx.isEmpty()) {
            return x.rtx.firstEntry().getValue();
        }
        return (int) Math.min(s.mtu(), x.backlog);
    }

    /** The NIC's next data packet: the flows in round robin, each while cwnd >= in flight + its next packet (uec.cpp:1130-1135). */
    Packet nextData() {
        List<Flow> flows = host.flows;
        int n = flows.size();
        for (int i = 0; i < n; i++) {
            Flow f = flows.get((roundRobin + i) % n);
            Sender x = senders.get(f.id);
            if (x == null || x.done) {
                continue;
            }
            int size = nextSize(x);
            // uec.cpp:1770-1786: credit > 0 with RCCC, cwnd >= in flight + the packet with NSCC
            if (size > 0 && (!s.receiverCc() || x.credit > 0) && (!s.senderCc() || f.cwnd >= x.inFlight + size)) {
                roundRobin = (roundRobin + i + 1) % n;
                return send(f, x, size);
            }
        }
        return null;
    }

    private Packet send(Flow f, Sender x, int size) {
        boolean retransmission = !x.rtx.isEmpty();
        long psn;
        if (retransmission) { // uec.cpp:2116-2150
            psn = x.rtx.pollFirstEntry().getKey();
            x.rtxBacklog -= size;
            rtxPackets++;
        } else { // uec.cpp:2035-2110
            psn = x.nextPsn++;
            x.backlog -= size;
            newPackets++;
        }
        if (s.receiverCc()) {
            x.credit -= size; // uec.cpp:1838-1843
        }
        x.inFlight += size;
        long now = net.loop.now();
        int entropy = host.entropies.next(f.local, nowNs());
        net.noteEntropy(f, entropy);
        int i = (int) psn;
        x.bytes[i] = size;
        x.sentPs[i] = now;
        x.rtxTimes[i] = retransmission ? Math.max(1, x.rtxTimes[i] + 1) : 0; // uec.cpp:2205-2220
        x.sends.add(new long[] {psn, now});
        f.packetsSent++;
        Packet p = new Packet(Packet.Kind.DATA, f.id, host.id, f.dst, psn * s.mss(), size - s.headerBytes(), entropy, now,
                size, false);
        p.psn = psn;
        p.retransmission = retransmission;
        p.pullTarget = pullTarget(f, x);
        // uec.cpp:2090 (new: the last packet, no credit left, or the window full with it), 2147 (every retransmission)
        p.ackRequest = retransmission || x.backlog == 0 || s.receiverCc() && x.credit <= 0
                || s.senderCc() && x.inFlight + size >= f.cwnd;
        arm(f, x);
        return p;
    }

    /**
     * uec.cpp:1859-1905 computePullTarget: what is left to send (capped at cwnd + MTU with NSCC, at
     * the configured maxwnd), less the credit, at least an MTU while speculating, on top of the last
     * pull, in 256 B quanta rounded up. The NIC's active-source divisor is 1 here (a flow at a time
     * asks the NIC; the reference divides by the sources waiting on its NIC).
     */
    private long pullTarget(Flow f, Sender x) {
        if (!s.receiverCc()) {
            return 0;
        }
        long target = x.backlog + x.rtxBacklog;
        if (s.senderCc()) {
            target = Math.min(target, f.cwnd + s.mtu());
        }
        target = Math.min(target, s.configuredMaxwnd());
        target -= x.credit;
        if (x.speculating && target < s.mtu() && x.backlog > 0) {
            target = s.mtu();
        }
        target += x.pull << 8;
        return (target + 255) / 256;
    }

    /** uec.cpp:1845-1857: the first ACK, NACK or PULL ends the speculation and its unspent credit. */
    private void stopSpeculating(Sender x) {
        if (x.speculating) {
            x.speculating = false;
            if (x.credit > 0) {
                x.credit = 0;
            }
        }
    }

    /** The pacer grants a sink a pull: a PULL to its sender through this NIC's control queue (uec.cpp:3117-3120). */
    private void sendPull(UecPullPacer.Sink sink, boolean slow) {
        Flow f = net.flows.get(sink.flow);
        Packet pull = new Packet(Packet.Kind.PULL, f.id, host.id, f.src, 0, 0, sink.nextEntropy(), net.loop.now(),
                s.controlBytes(), false);
        pull.pullNumber = sink.latestPull;
        pull.slowPull = slow;
        net.notePull(f, sink.latestPull, slow);
        host.nic.send(pull);
    }

    /** uec.cpp:1612-1640 processPull, 1814-1832 handlePull: credit for the newly pulled quanta, capped at the configured maxwnd. */
    private void pull(Sender x, Packet p) {
        pullsReceived++;
        if (x.done) {
            return;
        }
        stopSpeculating(x);
        if (p.pullNumber > x.pull) {
            x.credit = Math.min(x.credit + (p.pullNumber - x.pull << 8), s.configuredMaxwnd());
            x.pull = p.pullNumber;
        }
    }

    void receive(Packet p) {
        if (p.kind == Packet.Kind.DATA) {
            if (oversubscribedCc != null) { // uec.cpp:2876-2877, 2627-2633, 2750-2754: every arrival, duplicates too
                ccReceived++;
                ccEcn += !p.trimmed && p.ce ? 1 : 0;
                ccTrimmedLastHop += p.trimmed && p.trimmedAtLastHop ? 1 : 0;
                ccTrimmedOther += p.trimmed && !p.trimmedAtLastHop ? 1 : 0;
            } else if (s.oversubscribedCcRttPs() > 0) {
                pacer.arrival(p.ce, p.trimmed, p.trimmedAtLastHop);
            }
            if (p.trimmed) {
                trimmed(p);
            } else {
                data(p);
            }
            return;
        }
        Flow f = net.flows.get(p.flow);
        Sender x = senders.get(f.id);
        if (p.kind == Packet.Kind.ACK) {
            ack(f, x, p);
        } else if (p.kind == Packet.Kind.NACK) {
            nack(f, x, p);
        } else {
            pull(x, p);
        }
        host.nic.kick();
    }

    private Sink sink(Packet p) {
        Sink k = sinks.get(p.flow);
        if (k == null) {
            k = new Sink();
            if (pacer != null) {
                k.pull = pacer.sink(p.flow);
            }
            sinks.put(p.flow, k);
        }
        return k;
    }

    /** uec.cpp:2600-2737 (processData). */
    private void data(Packet p) {
        net.delivered(p);
        Sink k = sink(p);
        k.acceptedBytes += p.bytes; // :2604
        if (pacer != null) {
            pacer.pullTarget(k.pull, p.pullTarget); // :2610
        }
        boolean ecn = p.ce;
        if (p.psn < k.expected || k.arrived.get((int) p.psn)) { // :2635-2656: a duplicate is ACKed at once
            answer(k, p, Packet.Kind.ACK, ecn);
            k.acceptedBytes = 0;
            return;
        }
        boolean force = k.receivedBytes == 0; // :2658-2660
        k.receivedBytes += p.bytes - s.controlBytes();
        k.recvdBytes += p.bytes; // :2666
        if (p.ackRequest) { // :2675-2681
            force = true;
            k.ackRequested = true;
        }
        k.arrived.set((int) p.psn);
        if (k.newsCount == k.news.length) {
            k.news = Arrays.copyOf(k.news, 2 * k.newsCount);
        }
        k.news[k.newsCount++] = p.psn;
        if (p.psn == k.expected) { // :2688-2702
            while (k.arrived.get((int) ++k.expected)) {
                k.outOfOrder--;
            }
            if (k.outOfOrder == 0 && k.ackRequested) {
                force = true;
                k.ackRequested = false;
            }
        } else {
            k.outOfOrder++;
        }
        if (ecn || k.acceptedBytes >= s.ackEveryBytes() || force) { // :2714, 2949-2951
            answer(k, p, Packet.Kind.ACK, ecn);
            k.acceptedBytes = 0;
        }
    }

    /** uec.cpp:2740-2792 (processTrimmed): a NACK, or an ACK when the data came already. */
    private void trimmed(Packet p) {
        Sink k = sink(p);
        if (p.psn < k.expected || k.arrived.get((int) p.psn)) {
            answer(k, p, Packet.Kind.ACK, false);
            return;
        }
        if (pacer != null) {
            pacer.pullTarget(k.pull, p.pullTarget); // :2775
        }
        answer(k, p, Packet.Kind.NACK, p.ce);
        if (pacer != null) {
            pacer.request(k.pull); // :2784-2792: the sender now retransmits
        }
    }

    private void answer(Sink k, Packet p, Packet.Kind kind, boolean ecn) {
        Packet a = new Packet(kind, p.flow, host.id, p.src, p.seq, p.payload, p.entropy, p.sentAtPs, s.controlBytes(), ecn);
        a.psn = p.psn;
        a.hops = p.hops;
        a.cumulativeAck = k.expected;
        a.recvdBytes = k.recvdBytes;
        a.rtxEcho = p.retransmission;
        a.trimmedAtLastHop = p.trimmedAtLastHop;
        if (kind == Packet.Kind.ACK) {
            a.selective = Arrays.copyOf(k.news, k.newsCount);
            k.newsCount = 0;
            acksSent++;
        } else {
            nacksSent++;
        }
        host.nic.send(a);
    }

    /** uec.cpp:904-1103 (processAck). */
    private void ack(Flow f, Sender x, Packet a) {
        acksReceived++;
        if (x.done) {
            return;
        }
        long newly = 0;
        if (a.recvdBytes > x.recvdBytes) { // :910-917
            newly = a.recvdBytes - x.recvdBytes;
            x.recvdBytes = a.recvdBytes;
        }
        x.inFlight -= newly; // :921
        long now = net.loop.now();
        int times = x.outstanding(a.psn) ? x.rtxTimes[(int) a.psn] : -1;
        boolean valid = times == 0 && !a.rtxEcho || times == 1 && a.rtxEcho; // :891-902
        long rawRtt = valid ? Math.max(1, now - x.sentPs[(int) a.psn]) : 0;
        // :1005-1036 handleCumulativeAck and the SACK bitmap: the records end; a queued retransmission
        // the cumulative ACK covers leaves the queue and its bytes count in flight again (:745-757).
        while (!x.rtx.isEmpty() && x.rtx.firstKey() < a.cumulativeAck) {
            int size = x.rtx.pollFirstEntry().getValue();
            x.rtxBacklog -= size;
            x.inFlight += size;
        }
        for (; x.cumulative < a.cumulativeAck; x.cumulative++) {
            x.bytes[(int) x.cumulative] = 0;
            x.rtxTimes[(int) x.cumulative] = -1;
        }
        if (a.selective != null) {
            for (long psn : a.selective) {
                x.bytes[(int) psn] = 0;
            }
        }
        host.entropies.feedback(f.local, a.entropy, a.ecnEcho, false, nowNs()); // :1038
        if (s.senderCc()) {
            update(f, law.ack(f.local, now, newly, rawRtt, a.ecnEcho, x.inFlight)); // :1052-1059
        }
        stopSpeculating(x); // :1096
        f.acked = Math.min(f.bytes, a.cumulativeAck * s.mss());
        if (a.cumulativeAck * s.mss() >= f.bytes) { // :812-850 checkFinished
            x.speculating = false;
            x.done = true;
            f.finishedPs = now;
            net.finished(f);
        }
    }

    /** uec.cpp:1524-1610 (processNack). */
    private void nack(Flow f, Sender x, Packet a) {
        nacksReceived++;
        f.nacks++;
        if (x.done || !x.outstanding(a.psn)) { // :1541-1555
            f.stale++;
            return;
        }
        int i = (int) a.psn;
        int size = x.bytes[i];
        long now = net.loop.now();
        long rawRtt = Math.max(1, now - x.sentPs[i]);
        if (s.senderCc()) {
            update(f, law.nack(f.local, now, size, rawRtt, a.trimmedAtLastHop, x.inFlight)); // :1565-1583
        }
        x.bytes[i] = 0;
        x.inFlight -= size; // :1588
        stopSpeculating(x); // :1594
        x.rtx.put(a.psn, size); // :1596 queueForRtx
        x.rtxBacklog += size;
        // :1604-1607: a last-hop NACK is path feedback good (or ECN by its CE); any other, a NACK
        host.entropies.feedback(f.local, a.entropy, a.trimmedAtLastHop && a.ecnEcho, !a.trimmedAtLastHop, nowNs());
    }

    /** Starts the flow's retransmission timer for its oldest send when it is not running (uec.cpp:1997-2030, startRTO). */
    private void arm(Flow f, Sender x) {
        if (x.timerPending || x.sends.isEmpty()) {
            return;
        }
        x.timerPending = true;
        long at = x.sends.peek()[1] + s.rtoPs();
        net.loop.after(Math.max(0, at - net.loop.now()), () -> expire(f, x));
    }

    /**
     * uec.cpp:2319-2430 (rtxTimerExpired) and 2307-2317 (recalculateRTO): the timer runs for the
     * earliest send still outstanding; each send whose RTO has passed times out, then the timer
     * restarts for the next.
     */
    private void expire(Flow f, Sender x) {
        x.timerPending = false;
        if (x.done) {
            return;
        }
        long now = net.loop.now();
        while (!x.sends.isEmpty()) {
            long[] head = x.sends.peek();
            int i = (int) head[0];
            if (x.bytes[i] == 0 || x.sentPs[i] != head[1]) {
                x.sends.poll(); // ended, or sent again since
                continue;
            }
            if (head[1] + s.rtoPs() > now) {
                break;
            }
            x.sends.poll();
            timeout(f, x, i);
        }
        arm(f, x);
        host.nic.kick();
    }

    private void timeout(Flow f, Sender x, int psn) {
        timeouts++;
        f.timeouts++;
        int size = x.bytes[psn];
        x.bytes[psn] = 0;
        host.entropies.failure(f.local, nowNs()); // :2333
        if (s.senderCc()) { // :2398 mark_packet_for_retransmission, with NSCC only
            x.inFlight -= size; // :1298
            update(f, law.timeout(f.local, net.loop.now(), size));
        }
        x.rtx.put((long) psn, size);
        x.rtxBacklog += size;
    }

    private void update(Flow f, long cwnd) {
        f.cwnd = cwnd;
        f.minCwnd = Math.min(f.minCwnd, cwnd);
        net.noteWindow(f, cwnd);
    }

    /** Bytes in flight of a flow (wire bytes). */
    public long inFlight(Flow f) {
        Sender x = senders.get(f.id);
        return x == null ? 0 : x.inFlight;
    }
}
