// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiFunction;

import uehw.hw.nic.NicCcConfig;
import uehw.model.dart.DasrModel;
import uehw.netsim.DasrUnit;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.NicEngine;
import uehw.netsim.Port;
import uehw.netsim.UecMixedEntropies;
import uehw.netsim.rtl.NicCcRtlEngines;

/**
 * The incasts with every sender's NIC the engine (nic-cc, docs/nic-engine.md; issue 35): the SMaRTT
 * authors' 8:1 fat-tree incast (FatTreeIncast's network: 800 Gb/s, 4096 B payload and 64 B headers,
 * REPS entropies) and the reference's `incast15` (UetReference's setting: 100 Gb/s, the k = 4 fat
 * tree, MTU 4150, the reference's RTO; mixed entropies), each with the engine's law `nscc`, `smartt`
 * or `swift` at the reset values the engine derives from its link, MTU and network RTT. The
 * engines run on a 250 MHz clock, their model or their RTL (NicCcRtlEngines), which give the same
 * trace.
 */
public final class EngineIncast {
    /** Edges of the engines' clock: 250 MHz. */
    public static final long CLOCK_PS = 4000;

    private EngineIncast() {
    }

    /** A run: the scenario, the law (with its load balancing), completions, the engines' work, the trace's digest. */
    public record Result(String scenario, String law, int senders, double medianFctUs, double tailFctUs, double idealUs, long nacks,
                         long timeouts, long packets, long engineEdges, long retransmitRequests, long spuriousResends, long digest,
                         boolean finished, double wallSeconds) {
        public String row() {
            return String.format(Locale.ROOT, "%s,%s,%d,%.1f,%.1f,%.1f,%.3f,%d,%d,%d,%d,%d,%d,%s,%.2f", scenario, law, senders, idealUs,
                    medianFctUs, tailFctUs, tailFctUs / idealUs, packets, nacks, timeouts, retransmitRequests, spuriousResends, engineEdges,
                    finished, wallSeconds);
        }

        public static final String HEADER = "scenario,law,senders,ideal_us,median_fct_us,tail_fct_us,tail_over_ideal,packets,nacks,"
                + "timeouts,retransmit_requests,spurious_resends,engine_edges,finished,wall_s";
    }

    /** A scenario: its network with flows added (the NICs chosen by the caller first), its engines' configuration and RTO. */
    public record Scenario(String name, NicCcConfig cfg, long rtoNs, int[] senders, double idealUs,
                           BiFunction<int[], NicEngine.Group, Network> network) {
    }

    /**
     * The engine for the authors' fat tree: 64 flows, 800 Gb/s, MTU 4160 wire (4096 B payload),
     * network RTT their base RTT; `lb` its load balancing ("none": the hosts' REPS units give the
     * entropies).
     */
    public static NicCcConfig fatTreeEngine(String law, String lb) {
        return fatTreeEngine(law, lb, "none");
    }

    /** The same with the engine's pacing (`dasr`: the receivers' ACKs carry DASR's n). */
    public static NicCcConfig fatTreeEngine(String law, String lb, String pacing) {
        return new NicCcConfig(64, 64, 16, law, false, 64, 256, (int) FatTreeIncast.GBPS, FatTreeIncast.MTU + FatTreeIncast.HEADER,
                FatTreeIncast.BASE_RTT_NS * 1000, lb, pacing);
    }

    /** The engine for the reference's setting: its defaults (100 Gb/s, MTU 4150, network RTT 14,022,720 ps), 64 flows. */
    public static NicCcConfig referenceEngine(String law, String lb) {
        return referenceEngine(law, lb, "none");
    }

    /** The same with the engine's pacing. */
    public static NicCcConfig referenceEngine(String law, String lb, String pacing) {
        return new NicCcConfig(64, 64, 16, law, false, 64, 256, (int) UetReference.GBPS, UetReference.MTU, 14_022_720L, lb, pacing);
    }

    /**
     * A receiver's DASR unit at `gbps` (dart.txt Sec. III-A, as DasrIncast's: 256 senders, a 10 us
     * window at 95 % of line rate counts as line rate), for engines with `pacing` = `dasr`.
     */
    public static DasrUnit dasrReceiver(double gbps) {
        long window = 10_000;
        return DasrUnit.of(new DasrModel(256, 255, 2_000_000_000L, window, Math.round(gbps / 8 * window * 0.95)));
    }

    /** The authors' N:1 incast into host 127 of {@code bytes} a sender, without the engine's load balancing. */
    public static Scenario fatTree(String law, int senders, long bytes, long seed) {
        return fatTree(law, "none", senders, bytes, seed);
    }

    /** The same with the engine's load balancing `lb`. */
    public static Scenario fatTree(String law, String lb, int senders, long bytes, long seed) {
        return fatTree(law, lb, "none", senders, bytes, seed);
    }

    /** The same with the engine's pacing (`dasr`: a DASR unit at the receiver puts n on its ACKs). */
    public static Scenario fatTree(String law, String lb, String pacing, int senders, long bytes, long seed) {
        int[] hosts = new int[senders];
        for (int i = 0; i < senders; i++) {
            hosts[i] = i;
        }
        long packets = (bytes + FatTreeIncast.MTU - 1) / FatTreeIncast.MTU;
        double ideal = (senders * (bytes + packets * FatTreeIncast.HEADER) * 8 / FatTreeIncast.GBPS + FatTreeIncast.BASE_RTT_NS) / 1000.0;
        long rto = FatTreeIncast.config().rtoNs();
        return new Scenario("fat-tree-incast-" + senders, fatTreeEngine(law, lb, pacing), rto, hosts, ideal, (h, group) -> {
            Network net = FatTreeIncast.build(seed);
            net.engineNics(h, group, CLOCK_PS);
            if (pacing.equals("dasr")) {
                net.enableDasr(FatTreeIncast.RECEIVER, dasrReceiver(FatTreeIncast.GBPS));
            }
            for (int s : h) {
                net.addFlow(s, FatTreeIncast.RECEIVER, bytes, 0);
            }
            return net;
        });
    }

    /** The reference's incast15: 15 hosts of the k = 4 fat tree into host 15, 2 MB each, its switch ports and RTO. */
    public static Scenario incast15(String law) {
        return incast15(law, "none");
    }

    /** The same with the engine's load balancing `lb`. */
    public static Scenario incast15(String law, String lb) {
        return incast15(law, lb, "none");
    }

    /** The same with the engine's pacing (`dasr`: a DASR unit at each receiver). */
    public static Scenario incast15(String law, String lb, String pacing) {
        UetReference.Scenario s = UetReference.defaults().stream().filter(x -> x.name().equals("incast15")).findFirst().orElseThrow();
        Set<Integer> senders = new LinkedHashSet<>();
        long wire = 0;
        for (UetReference.Connection c : s.connections()) {
            senders.add(c.src());
            long payload = UetReference.MTU - UetReference.HEADER;
            wire += c.bytes() + (c.bytes() + payload - 1) / payload * UetReference.HEADER;
        }
        int[] hosts = senders.stream().mapToInt(Integer::intValue).toArray();
        double ideal = (wire * 8.0 / UetReference.GBPS + 14_022.72) / 1000.0;
        long rto = UetReference.RTO_PS / 1000;
        return new Scenario("incast15", referenceEngine(law, lb, pacing), rto, hosts, ideal, (h, group) -> {
            Port.Spec port = Port.Spec.composite(UetReference.QUEUE_BYTES, UetReference.HEADER, UetReference.ECN_LOW, UetReference.ECN_HIGH,
                    0x5EED_0013L);
            Network.Config config = new Network.Config(UetReference.GBPS, UetReference.LINK_NS, port, UetReference.MTU - UetReference.HEADER,
                    UetReference.HEADER, UetReference.HEADER, rto, 1);
            Network net = Network.fatTree(4, config, (x, n) -> null, (x, n) -> new UecMixedEntropies(n, s.paths(), 0x13L * 1_000_003 + x));
            net.engineNics(h, group, CLOCK_PS);
            if (pacing.equals("dasr")) {
                s.connections().stream().mapToInt(UetReference.Connection::dst).distinct()
                        .forEach(d -> net.enableDasr(d, dasrReceiver(UetReference.GBPS)));
            }
            for (UetReference.Connection c : s.connections()) {
                net.addFlow(c.src(), c.dst(), c.bytes(), c.startUs() * 1000);
            }
            return net;
        });
    }

    /** Runs a scenario on the engines' model. */
    public static Result runModel(Scenario s) {
        return run(s, NicCcRtlEngines.models(s.cfg(), s.senders().length, s.rtoNs()));
    }

    /** Runs a scenario on the engines' RTL (one Verilated engine a sender, compiled once a configuration). */
    public static Result runRtl(Scenario s, long seed) {
        return runRtl(s, seed, new Network.Trace() { });
    }

    /** The same, traced. */
    public static Result runRtl(Scenario s, long seed, Network.Trace trace) {
        Result[] r = new Result[1];
        NicCcRtlEngines.simulation(s.cfg(), s.senders().length).run(s.name() + "_" + s.cfg().law(), seed,
                sim -> r[0] = run(s, new NicCcRtlEngines(sim, s.rtoNs()), trace));
        return r[0];
    }

    /** Runs a scenario on the given engines (at most 100 ms simulated). */
    public static Result run(Scenario s, NicEngine.Group engines) {
        return run(s, engines, new Network.Trace() { });
    }

    /** The same, traced. */
    public static Result run(Scenario s, NicEngine.Group engines, Network.Trace trace) {
        long t0 = System.nanoTime();
        Network net = s.network().apply(s.senders(), engines);
        net.trace(trace);
        boolean finished = net.run(100_000_000L);
        double wall = (System.nanoTime() - t0) / 1e9;
        List<Long> fct = new ArrayList<>();
        long nacks = 0, timeouts = 0, packets = 0;
        for (Flow f : net.flows) {
            fct.add(f.fctNs());
            nacks += f.nacks;
            timeouts += f.timeouts;
            packets += f.packetsSent;
        }
        fct.sort(null);
        long[] c = net.engineCounts();
        return new Result(s.name(), s.cfg().law() + (s.cfg().withLb() ? "+" + s.cfg().lb() : "") + (s.cfg().paced() ? "+" + s.cfg().pacing() : ""), s.senders().length, fct.get(fct.size() / 2) / 1000.0, fct.get(fct.size() - 1) / 1000.0,
                s.idealUs(), nacks, timeouts, packets, c[0], c[1], c[2], net.traceDigest(), finished, wall);
    }
}
