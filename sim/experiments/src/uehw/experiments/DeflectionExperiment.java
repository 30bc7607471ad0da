// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import uehw.model.dart.DartDftModel;
import uehw.netsim.EntropyControl;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Packet;
import uehw.netsim.Percentiles;
import uehw.netsim.Port;
import uehw.netsim.Switch;
import uehw.netsim.WindowControl;

/**
 * dart.txt Sec. IV (spatially-localized congestion) on the network simulator, with Sec. VI-A's
 * numbers: the k = 4 fat tree (16 hosts) with 10 Gb/s links of 5 us, 1 KB payloads (plus 64 B of
 * header), 225 KB switch ports. Two long flows from the two hosts under ToR 0 to pods 2 and 3 collide by ECMP on ToR 0's
 * first uplink (their entropies are chosen so) and keep {@link #LONG_WINDOW_PACKETS} packets each
 * in flight, which holds a standing queue there far above the 15 KB deflection threshold. Short
 * 2-8 KB messages (4 deflection tokens, sent whole at line rate) leave the same two hosts for
 * random hosts in the other pods at {@link #SHORT_LOAD} of a link, each with a random entropy (one
 * path a message, as RDMA needs), so about half of them are routed onto the congested uplink.
 *
 * <p>With IOFD every ToR and aggregation switch has an 8-entry DFT (uehw.model.dart.DartDftModel,
 * the dart-dft block's specification): a message whose start packet finds its routed up-port's
 * queue above the threshold is deflected, whole and in order, to a random other up-port
 * ({@link Switch}). Without it the same tables are disabled. The run reports the short messages'
 * completion times, how many were deflected, and checks RDMA's order at the receivers.
 */
public final class DeflectionExperiment {
    public static final int K = 4;
    public static final double GBPS = 10;
    public static final long LINK_NS = 5_000;
    public static final int MTU = 1000;
    public static final int HEADER = 64;
    public static final long PORT_BYTES = 225_000;
    public static final long THRESHOLD = 15_000;
    public static final int ENTRIES = 8;
    public static final int TOKENS = 4;
    public static final int LONG_WINDOW_PACKETS = 80;
    public static final double SHORT_LOAD = 0.1;
    public static final long ARRIVALS_NS = 60_000_000;
    /** After the last arrival: every short message has finished by then. */
    public static final long DRAIN_NS = 5_000_000;
    /** The long flows (sender, receiver): both senders under ToR 0, the receivers in pods 2 and 3. */
    public static final int[][] LONG_FLOWS = {{0, 8}, {1, 12}};
    static final int FLOWS_PER_HOST = 2048;

    /** What one run measured; completion times in us, from the message's start to its last ACK. */
    public record Outcome(boolean iofd, double[] fctUs, double[] idealUs, long deflectedMessages, long reordered,
                          long longPacketsDeflected, long longBytesAcked, long peakQueueBytes, long refusedFull,
                          long dftEntriesLeft, boolean allFinished) {
        public double percentile(double p) {
            return Percentiles.of(fctUs, p);
        }

        public double mean() {
            return Arrays.stream(fctUs).average().orElse(0);
        }

        /** Mean of completion time / the message's unloaded completion time. */
        public double meanSlowdown() {
            double sum = 0;
            for (int i = 0; i < fctUs.length; i++) {
                sum += fctUs[i] / idealUs[i];
            }
            return sum / fctUs.length;
        }
    }

    /** A NIC's fixed windows and entropies, per local flow: no congestion control, ECMP per message. */
    private static final class FixedUnits {
        final long[] window = new long[FLOWS_PER_HOST];
        final int[] entropy = new int[FLOWS_PER_HOST];
        final WindowControl windows = new WindowControl() {
            @Override
            public long init(int flow, long nowNs) {
                return window[flow];
            }

            @Override
            public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs) {
                return window[flow];
            }
        };
        final EntropyControl entropies = new EntropyControl() {
            @Override
            public void init(int flow, long nowNs) {
            }

            @Override
            public int next(int flow, long nowNs) {
                return entropy[flow];
            }

            @Override
            public void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs) {
            }

            @Override
            public void failure(int flow, long nowNs) {
            }
        };
    }

    public static Network.Config config() {
        Port.Spec port = new Port.Spec(PORT_BYTES, PORT_BYTES, 1024, HEADER, PORT_BYTES / 5, PORT_BYTES * 4 / 5, true, 0x7A1D5EEDL);
        return new Network.Config(GBPS, LINK_NS, port, MTU, HEADER, 64, 2_000_000, FLOWS_PER_HOST);
    }

    public static Outcome run(boolean iofd, long seed) {
        List<FixedUnits> units = new ArrayList<>();
        Network net = Network.fatTree(K, config(), (host, flows) -> {
            units.add(new FixedUnits());
            return units.get(host).windows;
        }, (host, flows) -> units.get(host).entropies);
        for (Switch s : net.switches) {
            if (s.firstUpPort() < s.ports.size()) {
                DartDftModel dft = new DartDftModel(ENTRIES, s.ports.size(), THRESHOLD, 1, (seed * 31 + s.id + 1) & 0xFFFFFFFFL | 1);
                dft.enable = iofd;
                s.deflectWith(dft);
            }
        }
        Switch tor0 = net.switches.get(0);
        List<Port> tor0Up = tor0.ports.subList(tor0.firstUpPort(), tor0.ports.size());
        List<Flow> longFlows = new ArrayList<>();
        for (int[] lf : LONG_FLOWS) {
            Flow f = net.addFlow(lf[0], lf[1], 1L << 40, 0);
            FixedUnits u = units.get(lf[0]);
            u.window[f.local] = (long) LONG_WINDOW_PACKETS * MTU;
            u.entropy[f.local] = collidingEntropy(tor0, f, tor0Up.get(0));
            longFlows.add(f);
        }
        Random random = new Random(seed);
        double meanBytes = 5.0 * MTU;
        double arrivalsPerNs = SHORT_LOAD * GBPS / 8 / meanBytes;
        List<Flow> shorts = new ArrayList<>();
        int hostsPerPod = K * K / 4;
        for (double t = 0; t < ARRIVALS_NS; t += -Math.log(1 - random.nextDouble()) / arrivalsPerNs) {
            int src = LONG_FLOWS[random.nextInt(LONG_FLOWS.length)][0];
            int dst = hostsPerPod + random.nextInt(net.hosts.size() - hostsPerPod);
            Flow f = net.addFlow(src, dst, (long) (2 + random.nextInt(7)) * MTU, (long) t);
            FixedUnits u = units.get(src);
            u.window[f.local] = f.bytes; // Dart starts a message at line rate (Sec. III)
            u.entropy[f.local] = random.nextInt(1 << 16);
            f.tokens = TOKENS;
            shorts.add(f);
        }
        net.run(ARRIVALS_NS + DRAIN_NS);
        double[] fct = new double[shorts.size()];
        double[] ideal = new double[shorts.size()];
        long deflectedMessages = 0, reordered = 0;
        boolean allFinished = true;
        for (int i = 0; i < shorts.size(); i++) {
            Flow f = shorts.get(i);
            allFinished &= f.finished();
            fct[i] = f.fctNs() / 1000.0;
            ideal[i] = idealUs(f);
            deflectedMessages += f.deflectedPackets > 0 ? 1 : 0;
            reordered += f.reordered;
        }
        long longDeflected = 0, longAcked = 0;
        for (Flow f : longFlows) {
            longDeflected += f.deflectedPackets;
            reordered += f.reordered;
            longAcked += f.acked;
        }
        long refusedFull = 0, entriesLeft = 0;
        for (Switch s : net.switches) {
            if (s.dft() != null) {
                refusedFull += s.dft().counters.get("REFUSED_FULL");
                entriesLeft += s.dft().occupancy();
            }
        }
        return new Outcome(iofd, fct, ideal, deflectedMessages, reordered, longDeflected, longAcked, tor0Up.get(0).peakDataBytes,
                refusedFull, entriesLeft, allFinished);
    }

    /** One line of the table the test and `hwgen experiment deflection` print. */
    public static String line(Outcome o) {
        return String.format(java.util.Locale.ROOT, "%-4s  %8d  %9d  %7.1f  %6.1f  %6.1f  %8.2f  %7.1f  %13d  %12d",
                o.iofd() ? "on" : "off", o.fctUs().length, o.deflectedMessages(), o.mean(), o.percentile(50), o.percentile(99),
                o.meanSlowdown(), o.longBytesAcked() / 1e6, o.peakQueueBytes() / 1000, o.refusedFull());
    }

    /** An entropy that ToR 0's ECMP sends up {@code port} for flow {@code f}: the ECMP collision of Sec. IV. */
    private static int collidingEntropy(Switch tor, Flow f, Port port) {
        List<Port> up = tor.ports.subList(tor.firstUpPort(), tor.ports.size());
        for (int e = 0; ; e++) {
            Packet probe = new Packet(Packet.Kind.DATA, f.id, f.src, f.dst, 0, 0, e, 0, 0, false);
            if (tor.ecmp(probe, up) == port) {
                return e;
            }
        }
    }

    /**
     * The message alone on its path: its packets serialised once, the first crossing every link
     * (cross-pod: 6 links each way), and its last ACK back.
     */
    static double idealUs(Flow f) {
        int packets = (int) ((f.bytes + MTU - 1) / MTU);
        double packetUs = (MTU + HEADER) * 8 / (GBPS * 1000);
        double ackUs = 64 * 8 / (GBPS * 1000);
        int links = 6;
        return packets * packetUs + links * (LINK_NS / 1000.0 + packetUs) - packetUs + links * (LINK_NS / 1000.0 + ackUs);
    }
}
