package uehw.sim.net;

import uehw.sim.swift.SwiftExactModel;
import uehw.sim.swift.SwiftParams;

/**
 * A NIC's Swift windows on the exact model (swift-excerpt.txt Alg. 1): an ACK of a packet is one
 * ACK event (num_acked = payload / MTU) with the network's RTT, an endpoint delay of 0 (the hosts
 * answer at once) and the forward hop count; a NACK (a trimmed packet) is fast recovery; a timeout
 * is a retransmission timeout. Windows go out in bytes (packets x MTU); below one packet the NIC
 * paces the flow at rtt / cwnd.
 */
public final class SwiftWindows implements WindowControl {
    public final SwiftExactModel model;
    private final int mtu;

    public SwiftWindows(int flows, SwiftParams params, int mtu) {
        this.model = new SwiftExactModel(flows, params);
        this.mtu = mtu;
    }

    private long bytes(double packets) {
        return Math.round(packets * mtu);
    }

    @Override
    public long init(int flow, long nowNs) {
        model.init(flow);
        return bytes(model.flow(flow).cwnd());
    }

    @Override
    public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs) {
        return apply(flow, signal, payloadBytes, rttNs, ecn, unackedBytes, 0, nowNs);
    }

    @Override
    public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, int hops,
                      long nowNs) {
        double cwnd = switch (signal) {
            case ACK -> model.ack(flow, rttNs, 0, hops, (double) payloadBytes / mtu, nowNs);
            case NACK -> model.fastRecovery(flow, nowNs);
            case TIMEOUT -> model.timeout(flow, nowNs);
        };
        return bytes(cwnd);
    }

    @Override
    public long pacingNs(int flow) {
        return Math.round(model.pacingDelayNs(flow));
    }
}
