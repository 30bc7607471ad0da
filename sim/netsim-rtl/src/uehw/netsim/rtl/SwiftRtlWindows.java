// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.HashMap;
import java.util.Map;

import uehw.bench.swift.SwiftBench;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.swift.SwiftFixedModel.Event;
import uehw.model.swift.SwiftFixedModel.Kind;
import uehw.netsim.SwiftWindows;
import uehw.netsim.WindowControl;

/**
 * Hardware in the loop: the NICs' Swift windows from the Verilated `swift` RTL, as SwiftWindows
 * gives them from the models (an ACK is one ACK event with the network's RTT, an endpoint delay of
 * 0, the forward hops and payload / MTU packets; a NACK is fast recovery). Each event is driven
 * with io_now = the network's time, the unit is clocked until its update came out, the window is
 * read back through the query port and the pacing gap taken from the update: the values the
 * network uses are the RTL's. One RTL instance serves every host, host h's flow i being RTL flow
 * h x flowsPerHost + i (Swift's state is per flow). The bench checks every update against its own
 * fixed-point model as it goes.
 */
public final class SwiftRtlWindows {
    private final SwiftBench bench;
    private final int flowsPerHost;
    private final int mtu;
    private final Map<Integer, Long> pacing = new HashMap<>();
    public long events;
    public long clocks;

    public SwiftRtlWindows(SwiftBench bench, int flowsPerHost, int mtu) {
        this.bench = bench;
        this.flowsPerHost = flowsPerHost;
        this.mtu = mtu;
        bench.clock(t -> t); // `now` is the network's, set per event
    }

    private long run(int flow, Kind kind, long rttNs, int hops, long acked, long nowNs) {
        bench.setNow(nowNs & 0xFFFF_FFFFL);
        bench.push(new Event(flow, kind, Math.min(rttNs, (1L << bench.cfg.delayWidth()) - 1), 0, Math.min(hops, 255),
                Math.min(acked, (1L << 13) - 1), 0));
        clocks += bench.drain() + 2;
        events++;
        pacing.put(flow, bench.updates.lastMatched().pacingNs());
        return (bench.queryCwnd(flow) * mtu) >> SwiftFixedModel.CWND_FRAC;
    }

    /** The window unit of host {@code host}, with {@code flows} flows. */
    public WindowControl forHost(int host, int flows) {
        int base = host * flowsPerHost;
        if (flows > flowsPerHost || base + flowsPerHost > bench.cfg.flows()) {
            throw new IllegalArgumentException("the RTL holds " + bench.cfg.flows() + " flows, " + flowsPerHost
                    + " a host, not host " + host + "'s " + flows);
        }
        return new WindowControl() {
            @Override
            public long init(int flow, long nowNs) {
                return run(base + flow, Kind.INIT, 0, 0, 0, nowNs);
            }

            @Override
            public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs) {
                return apply(flow, signal, payloadBytes, rttNs, ecn, unackedBytes, 0, nowNs);
            }

            @Override
            public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, int hops,
                              long nowNs) {
                return switch (signal) {
                    case ACK -> run(base + flow, Kind.ACK, rttNs, hops,
                            ((long) payloadBytes << SwiftFixedModel.ACKED_FRAC) / mtu, nowNs);
                    case NACK -> run(base + flow, Kind.NACK, 0, 0, 0, nowNs);
                    case TIMEOUT -> run(base + flow, Kind.TIMEOUT, 0, 0, 0, nowNs);
                };
            }

            @Override
            public long pacingNs(int flow) {
                return pacing.getOrDefault(base + flow, 0L);
            }
        };
    }
}
