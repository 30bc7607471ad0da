// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The packet-level network simulator every experiment runs on: hosts (NICs with per-flow windows
 * and entropies), switches that forward by ECMP over (flow, entropy), and output ports with the
 * trimming queue's rules (Port). Topologies: an incast star and the k-ary three-tier fat tree.
 * Deterministic: the same configuration, flows and seeds give the same run, event for event
 * ({@link #traceDigest}).
 */
public final class Network {
    /**
     * Link rate (every link), one-way latency per link, the switch ports' queues, the data packet's
     * payload (MTU) and header bytes, ACK/NACK bytes, the retransmission timeout, and how many flows
     * a NIC's window and entropy units hold.
     */
    public record Config(double gbps, long linkLatencyNs, Port.Spec switchPort, int mtu, int headerBytes, int ackBytes,
                         long rtoNs, int flowsPerHost) {
    }

    /** What a run reports as it goes (all optional). */
    public interface Trace {
        default void window(long timePs, Flow f, long cwnd) {
        }

        default void entropy(long timePs, Flow f, int entropy) {
        }

        default void finished(Flow f) {
        }

        /** {@code p} finished leaving {@code port} (CE and trimmed as it left). */
        default void departed(long timePs, Port port, Packet p) {
        }

        /** A DASR receiver answered a data packet of flow f with n. */
        default void dasr(long timePs, Host receiver, Flow f, int n) {
        }

        /** An engine NIC took a grant of flow f (entropy -1: the engine gives none). */
        default void grant(long timePs, Flow f, long psn, int bytes, boolean resend, int entropy) {
        }

        /** RCCC: flow f's receiver sent a PULL with this cumulative pull number. */
        default void pull(long timePs, Flow f, long number, boolean slow) {
        }
    }

    public final Config config;
    public final EventLoop loop = new EventLoop();
    public final List<Host> hosts = new ArrayList<>();
    public final List<Switch> switches = new ArrayList<>();
    public final List<Flow> flows = new ArrayList<>();
    /** Every port by name ("tor3->host13", "host13->tor3", ...). */
    public final Map<String, Port> ports = new LinkedHashMap<>();
    private final Map<Integer, Port> downlinks = new LinkedHashMap<>();
    private Trace trace = new Trace() { };
    private long digest = 0x243F6A8885A308D3L;
    private int unfinished;
    public long deliveredPackets, deliveredBytes, deliveredTrimmed;

    private Network(Config config) {
        this.config = config;
    }

    public Network trace(Trace t) {
        trace = t;
        return this;
    }

    private Port.Spec nicSpec() {
        long big = 1L << 50;
        return new Port.Spec(big, big, Integer.MAX_VALUE, config.switchPort().trimBytes(), big, big, false, 1);
    }

    private Port link(Node from, Node to, Port.Spec spec) {
        Port p = new Port(from.name() + "->" + to.name(), loop, spec, config.gbps(), config.linkLatencyNs());
        p.connect(to);
        p.net = this;
        ports.put(p.name, p);
        if (to instanceof Host h) {
            downlinks.put(h.id, p);
        }
        return p;
    }

    private void addHosts(int n, BiFunction<Integer, Integer, WindowControl> windows,
                          BiFunction<Integer, Integer, EntropyControl> entropies) {
        for (int i = 0; i < n; i++) {
            hosts.add(new Host(i, this, windows.apply(i, config.flowsPerHost()), entropies.apply(i, config.flowsPerHost())));
        }
    }

    private void attach(Host h, Switch s) {
        h.nic = link(h, s, nicSpec());
        h.nic.source = h::nextData;
    }

    /**
     * {@code n} hosts on one switch: the incast star. {@code windows} and {@code entropies} make a
     * host's units from (host id, flows per host).
     */
    public static Network star(int n, Config config, BiFunction<Integer, Integer, WindowControl> windows,
                               BiFunction<Integer, Integer, EntropyControl> entropies) {
        Network net = new Network(config);
        net.addHosts(n, windows, entropies);
        Switch s = new Switch(0, "switch");
        net.switches.add(s);
        List<Port> down = new ArrayList<>();
        for (Host h : net.hosts) {
            net.attach(h, s);
            down.add(net.link(s, h, config.switchPort()));
        }
        s.ports.addAll(down);
        s.router = (sw, p) -> down.get(p.dst);
        return net;
    }

    /**
     * The k-ary three-tier fat tree (k even): k pods of k/2 ToRs and k/2 aggregation switches,
     * (k/2)^2 cores, k/2 hosts per ToR, k^3/4 hosts (k = 8: 128 hosts, 4 per ToR, 16 per pod).
     * Up-ports by ECMP over (flow, entropy); aggregation switch j of every pod connects to core
     * group j. Every link has the same rate and latency.
     */
    public static Network fatTree(int k, Config config, BiFunction<Integer, Integer, WindowControl> windows,
                                  BiFunction<Integer, Integer, EntropyControl> entropies) {
        if (k < 2 || k % 2 != 0) {
            throw new IllegalArgumentException("fat tree k must be even and >= 2, not " + k);
        }
        int half = k / 2;
        Network net = new Network(config);
        net.addHosts(k * k * k / 4, windows, entropies);
        List<Switch> tors = new ArrayList<>(), aggs = new ArrayList<>(), cores = new ArrayList<>();
        for (int t = 0; t < k * half; t++) {
            tors.add(new Switch(net.switches.size(), "tor" + t));
            net.switches.add(tors.get(t));
        }
        for (int a = 0; a < k * half; a++) {
            aggs.add(new Switch(net.switches.size(), "agg" + a));
            net.switches.add(aggs.get(a));
        }
        for (int c = 0; c < half * half; c++) {
            cores.add(new Switch(net.switches.size(), "core" + c));
            net.switches.add(cores.get(c));
        }
        Port.Spec spec = config.switchPort();
        for (int t = 0; t < tors.size(); t++) {
            Switch tor = tors.get(t);
            int pod = t / half;
            List<Port> down = new ArrayList<>(), up = new ArrayList<>();
            for (int i = 0; i < half; i++) {
                Host h = net.hosts.get(t * half + i);
                net.attach(h, tor);
                down.add(net.link(tor, h, spec));
            }
            for (int j = 0; j < half; j++) {
                up.add(net.link(tor, aggs.get(pod * half + j), spec));
            }
            tor.ports.addAll(down);
            tor.firstUpPort = tor.ports.size();
            tor.ports.addAll(up);
            int tIndex = t;
            tor.router = (s, p) -> p.dst / half == tIndex ? down.get(p.dst % half) : s.ecmp(p, up);
        }
        for (int a = 0; a < aggs.size(); a++) {
            Switch agg = aggs.get(a);
            int pod = a / half, j = a % half;
            List<Port> down = new ArrayList<>(), up = new ArrayList<>();
            for (int i = 0; i < half; i++) {
                down.add(net.link(agg, tors.get(pod * half + i), spec));
            }
            for (int m = 0; m < half; m++) {
                up.add(net.link(agg, cores.get(j * half + m), spec));
            }
            agg.ports.addAll(down);
            agg.firstUpPort = agg.ports.size();
            agg.ports.addAll(up);
            agg.router = (s, p) -> p.dst / (half * half) == pod ? down.get(p.dst / half % half) : s.ecmp(p, up);
        }
        for (int c = 0; c < cores.size(); c++) {
            Switch core = cores.get(c);
            int j = c / half;
            List<Port> down = new ArrayList<>();
            for (int pod = 0; pod < k; pod++) {
                down.add(net.link(core, aggs.get(pod * half + j), spec));
            }
            core.ports.addAll(down);
            core.router = (s, p) -> down.get(p.dst / (half * half));
        }
        return net;
    }

    /**
     * Every host runs the UEC reference simulator's transport (UecTransport) with the window law
     * {@code laws} makes for it, its NIC interleaving ten control packets to one data packet when
     * both wait (uec.cpp:245-246). Before any flow starts.
     */
    public Network uecTransport(UecTransport.Settings settings, java.util.function.IntFunction<UecTransport.Law> laws) {
        return uecTransport(settings, laws, UecPullPacer.factory(false));
    }

    /** The same, with RCCC's receiver pull pacers from {@code pacers} (the reference's: UecPullPacer.factory). */
    public Network uecTransport(UecTransport.Settings settings, java.util.function.IntFunction<UecTransport.Law> laws,
                                PullPacer.Factory pacers) {
        if (!flows.isEmpty() && loop.now() > 0) {
            throw new IllegalStateException("the transport is chosen before the run");
        }
        for (Host h : hosts) {
            h.uec = new UecTransport(h, this, settings, laws.apply(h.id), pacers);
            h.nic.controlTurns = 10;
        }
        return this;
    }

    /**
     * The NICs are the engine (nic-cc, docs/nic-engine.md): host {@code hosts[i]} sends with
     * {@code engines.engine(i)}, every other host only answers (ACKs and NACKs with the cumulative
     * received bytes); the engines are clocked together every {@code clockPs} (4000: 250 MHz) while
     * any is busy. Before any flow starts.
     */
    public Network engineNics(int[] hosts, NicEngine.Group engines, long clockPs) {
        if (!flows.isEmpty() && loop.now() > 0) {
            throw new IllegalStateException("the NICs are chosen before the run");
        }
        if (hosts.length != engines.size()) {
            throw new IllegalArgumentException(hosts.length + " hosts for " + engines.size() + " engines");
        }
        EngineNic.Clock clock = new EngineNic.Clock(this, engines, clockPs);
        java.util.Map<Integer, Integer> index = new java.util.HashMap<>();
        for (int i = 0; i < hosts.length; i++) {
            index.put(hosts[i], i);
        }
        for (Host h : this.hosts) {
            Integer i = index.get(h.id);
            h.engine = new EngineNic(h, this, i == null ? null : engines.engine(i), clock);
        }
        return this;
    }

    /** Engine NICs: edges clocked, retransmit requests, resend grants with nothing to resend, over every host. */
    public long[] engineCounts() {
        long[] c = new long[3];
        for (Host h : hosts) {
            if (h.engine != null) {
                c[0] += h.engine.edges;
                c[1] += h.engine.retransmitRequests;
                c[2] += h.engine.spuriousResends;
            }
        }
        return c;
    }

    /** A flow of {@code bytes} from src to dst starting at {@code startNs}. */
    public Flow addFlow(int src, int dst, long bytes, long startNs) {
        Host h = hosts.get(src);
        if (h.flows.size() >= config.flowsPerHost()) {
            throw new IllegalArgumentException("host " + src + " has " + config.flowsPerHost() + " flows already");
        }
        if (src == dst || dst < 0 || dst >= hosts.size() || bytes <= 0) {
            throw new IllegalArgumentException("flow " + src + " -> " + dst + " of " + bytes + " B");
        }
        Flow f = new Flow(flows.size(), src, dst, bytes, startNs, h.flows.size());
        flows.add(f);
        h.flows.add(f);
        unfinished++;
        loop.after(Math.max(0, startNs * 1000 - loop.now()), () -> h.start(f));
        return f;
    }

    /** The switch port that delivers to {@code host} (the receiver's bottleneck in an incast). */
    public Port downlinkTo(int host) {
        return downlinks.get(host);
    }

    /** Runs until every flow finished (and what is in flight drained) or {@code limitNs}; returns whether all finished. */
    public boolean run(long limitNs) {
        loop.run(limitNs * 1000);
        return unfinished == 0;
    }

    /** Calls {@code sample} every {@code periodNs} while flows are unfinished. */
    public void every(long periodNs, Runnable sample) {
        loop.after(0, new Runnable() {
            @Override
            public void run() {
                sample.run();
                if (unfinished > 0) {
                    loop.after(periodNs * 1000, this);
                }
            }
        });
    }

    /** A digest of every window update, entropy, PULL and completion with its time: equal runs, equal digests. */
    public long traceDigest() {
        return digest;
    }

    private void mix(long... values) {
        for (long v : values) {
            digest = (digest ^ v) * 0x100000001B3L + (digest >>> 29);
        }
    }

    void noteWindow(Flow f, long cwnd) {
        mix(1, loop.now(), f.id, cwnd);
        trace.window(loop.now(), f, cwnd);
    }

    void noteEntropy(Flow f, int entropy) {
        mix(2, loop.now(), f.id, entropy);
        trace.entropy(loop.now(), f, entropy);
    }

    void noteDeparture(Port port, Packet p) {
        trace.departed(loop.now(), port, p);
    }

    void noteGrant(Flow f, long psn, int bytes, boolean resend, int entropy) {
        mix(6, loop.now(), f.id, psn, bytes, resend ? 1 : 0, entropy);
        trace.grant(loop.now(), f, psn, bytes, resend, entropy);
    }

    void notePull(Flow f, long number, boolean slow) {
        mix(5, loop.now(), f.id, number, slow ? 1 : 0);
        trace.pull(loop.now(), f, number, slow);
    }

    void noteDasr(Host receiver, Packet p, int n) {
        mix(4, loop.now(), p.flow, n);
        trace.dasr(loop.now(), receiver, flows.get(p.flow), n);
    }

    /** Gives host {@code host} a DASR receiver (dart.txt Sec. III): its ACKs carry n, its ECN echoes follow Fig. 5. */
    public void enableDasr(int host, DasrUnit unit) {
        hosts.get(host).dasr = unit;
    }

    void delivered(Packet p) {
        deliveredPackets++;
        deliveredBytes += p.bytes;
        deliveredTrimmed += p.trimmed ? 1 : 0;
    }

    void finished(Flow f) {
        unfinished--;
        mix(3, loop.now(), f.id);
        trace.finished(f);
    }

    public int unfinished() {
        return unfinished;
    }
}
