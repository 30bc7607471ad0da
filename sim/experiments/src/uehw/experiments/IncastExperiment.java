// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import uehw.model.smartt.SmarttParams;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Port;
import uehw.netsim.RepsEntropies;
import uehw.netsim.SmarttWindows;
import uehw.netsim.SwiftWindows;
import uehw.netsim.WindowControl;

/**
 * smartt-reps.txt Sec. 3 closed loop on the fixed-point model (the RTL's arithmetic), on the network
 * simulator: {@link #senders} senders at 100 Gb/s start one flow each at the same time into one
 * receiver behind one switch (the incast star, an 8:1 incast). The switch port to the receiver has a
 * data queue of one BDP with RED marking at dequeue from its instantaneous occupancy (Kmin 20%,
 * Kmax 80%, Sec. 3.5) and a strict-priority control queue: a data packet that does not fit is
 * trimmed and its header reaches the receiver, which NACKs it (README: htsim). Without trimming it
 * is dropped and the sender times out. Link latencies give an empty network the base RTT.
 */
public final class IncastExperiment {
    public final int senders = 8;
    public final int mtu = 4096;
    public final int header = 64;
    public final long flowBytes = 2L << 20;             // 2 MiB per flow
    public final double gbps = 100;
    public final long baseRttNs = 12_000;
    public final long queueBytes = 150_000;             // one BDP
    public final long rtoNs = 3 * baseRttNs;            // timeout without trimming (aggressive, Sec. 3.3)
    /** CONTROL.UNACKED_FROM_WINDOW: QuickAdapt ignores the window before it, not the senders' bytes in flight. */
    public boolean unackedFromWindow = false;

    /** Per-flow results and what the port saw. */
    public record Outcome(boolean trimming, long[] fctNs, long idealNs, long peakQueueBytes, long trims, long drops,
                          long marks, long timeouts, long quickAdapts, long packetsSent, long packetsDelivered,
                          double meanQueueBytes) {
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

    private long serNs(long bytes) {
        return Math.round(bytes * 8 / gbps);
    }

    /** One link's latency: two links each way, a data packet out and its ACK back, make the base RTT. */
    public long linkLatencyNs() {
        return (baseRttNs - 2 * serNs(mtu + header) - 2 * serNs(64)) / 4;
    }

    /** Runs the incast (RED draws seeded by {@code seed}); writes a time series (every 2 us: queue bytes and each window) to csv if given. */
    public Outcome run(boolean trimming, long seed, Path csv) throws IOException {
        SmarttParams p = new SmarttParams();
        p.trimming = trimming;
        p.unackedFromWindow = unackedFromWindow;
        return run(trimming, seed, csv, (host, flows) -> new SmarttWindows(flows, p));
    }

    /** The same incast with the senders' windows from {@code law} (e.g. SwiftWindows). */
    public Outcome run(boolean trimming, long seed, Path csv, java.util.function.BiFunction<Integer, Integer, WindowControl> law)
            throws IOException {
        Port.Spec port = new Port.Spec(queueBytes, 65_536, 1024, header, queueBytes / 5, queueBytes * 4 / 5, trimming,
                (seed * 2 + 1) & 0xFFFFFFFFL); // odd, so never the PRNG's forbidden 0; distinct for seeds below 2^31
        Network.Config config = new Network.Config(gbps, linkLatencyNs(), port, mtu, header, 64, rtoNs, 1);
        List<WindowControl> windows = new ArrayList<>();
        Network net = Network.star(senders + 1, config, (host, flows) -> {
            WindowControl w = law.apply(host, flows);
            windows.add(w);
            return w;
        }, (host, flows) -> new RepsEntropies(new uehw.model.reps.RepsModel(uehw.model.reps.RepsModel.Mode.OPS, flows, 8, 16, 32, 8,
                0, 0, 0, 1 + host)));
        List<Flow> flows = new ArrayList<>();
        for (int i = 0; i < senders; i++) {
            flows.add(net.addFlow(i, senders, flowBytes, 0));
        }
        Port bottleneck = net.downlinkTo(senders);
        long[] queueSum = {0, 0};
        net.every(1000, () -> {
            queueSum[0] += bottleneck.dataBytes();
            queueSum[1]++;
        });
        PrintWriter out = null;
        if (csv != null) {
            Files.createDirectories(csv.toAbsolutePath().getParent());
            out = new PrintWriter(Files.newBufferedWriter(csv));
            StringBuilder h = new StringBuilder("time_us,queue_bytes");
            for (int i = 0; i < senders; i++) {
                h.append(",cwnd_").append(i);
            }
            out.println(h);
            PrintWriter o = out;
            net.every(2000, () -> {
                StringBuilder row = new StringBuilder(String.format(java.util.Locale.ROOT, "%.1f,%d", net.loop.now() / 1e6,
                        bottleneck.dataBytes()));
                flows.forEach(f -> row.append(',').append(f.cwnd));
                o.println(row);
            });
        }
        net.run(10_000_000_000L);
        if (out != null) {
            out.close();
        }
        long[] fct = flows.stream().mapToLong(Flow::fctNs).toArray();
        long packets = (flowBytes + mtu - 1) / mtu;
        // Ideal: the port shared fairly, every flow done when all bytes (with headers) have crossed it, plus one base RTT.
        long ideal = Math.round(senders * (flowBytes + packets * header) * 8 / gbps) + baseRttNs;
        long drops = bottleneck.dropsDataFull + bottleneck.dropsTrimFull;
        return new Outcome(trimming, fct, ideal, bottleneck.peakDataBytes, bottleneck.trims, drops, bottleneck.marks,
                flows.stream().mapToLong(f -> f.timeouts).sum(), windows.stream().mapToLong(w -> w instanceof SmarttWindows s ? s.model.counters.get("QUICK_ADAPTS") : 0).sum(),
                flows.stream().mapToLong(f -> f.packetsSent).sum(), net.deliveredPackets - net.deliveredTrimmed,
                (double) queueSum[0] / Math.max(1, queueSum[1]));
    }
}
