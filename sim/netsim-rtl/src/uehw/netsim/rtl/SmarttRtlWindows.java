// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import uehw.bench.smartt.SmarttBench;
import uehw.model.smartt.SmarttFixedModel.Event;
import uehw.model.smartt.SmarttFixedModel.Kind;
import uehw.netsim.WindowControl;

/**
 * Hardware in the loop: the NICs' windows from the Verilated SMaRTT RTL. Each event is driven on
 * io_event with io_now = the network's time, the unit is clocked until its update came out, and
 * the window is read back through the query port (io_cwndQuery / io_cwndReply): the value the
 * network uses is the RTL's. One RTL instance serves every host, host h's flow i being RTL flow
 * h x flowsPerHost + i (SMaRTT's state is per flow, so this equals one unit per NIC). The bench
 * checks every update against its own fixed-point model as it goes.
 */
public final class SmarttRtlWindows {
    private final SmarttBench bench;
    private final int flowsPerHost;
    public long events;
    public long clocks;

    public SmarttRtlWindows(SmarttBench bench, int flowsPerHost) {
        this.bench = bench;
        this.flowsPerHost = flowsPerHost;
        bench.clock(t -> t); // `now` is the network's, set per event
    }

    private long run(int flow, Kind kind, int size, long rttNs, boolean ecn, long unacked, long nowNs) {
        long mask = (1L << bench.cfg.timeWidth()) - 1;
        long byteMax = (1L << bench.cfg.byteWidth()) - 1;
        bench.setNow(nowNs & mask);
        bench.push(new Event(flow, kind, Math.min(size, 65535), Math.min(rttNs, (1L << bench.cfg.rttWidth()) - 1), ecn,
                Math.min(unacked, byteMax), 0));
        clocks += bench.drain() + 2;
        events++;
        return bench.queryCwnd(flow);
    }

    /** The window unit of host {@code host}. */
    public WindowControl forHost(int host) {
        int base = host * flowsPerHost;
        if (base + flowsPerHost > bench.cfg.flows()) {
            throw new IllegalArgumentException("the RTL holds " + bench.cfg.flows() + " flows, not host " + host + "'s");
        }
        return new WindowControl() {
            @Override
            public long init(int flow, long nowNs) {
                return run(base + flow, Kind.INIT, 0, 0, false, 0, nowNs);
            }

            @Override
            public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes,
                              long nowNs) {
                Kind kind = switch (signal) {
                    case ACK -> Kind.ACK;
                    case NACK -> Kind.NACK;
                    case TIMEOUT -> Kind.TIMEOUT;
                };
                return run(base + flow, kind, payloadBytes, rttNs, ecn, unackedBytes, nowNs);
            }
        };
    }
}
