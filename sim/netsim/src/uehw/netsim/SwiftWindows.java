// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import uehw.model.swift.SwiftExactModel;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.swift.SwiftFixedParams;
import uehw.model.swift.SwiftParams;

/**
 * A NIC's Swift windows (swift-excerpt.txt Alg. 1) on the exact model or, with {@link #fixed}, on
 * the fixed-point law the hardware will run: an ACK of a packet is one ACK event (num_acked =
 * payload / MTU) with the network's RTT, an endpoint delay of 0 (the hosts answer at once) and the
 * forward hop count; a NACK (a trimmed packet) is fast recovery; a timeout is a retransmission
 * timeout. Windows go out in bytes (packets x MTU); below one packet the NIC paces the flow at
 * rtt / cwnd.
 */
public final class SwiftWindows implements WindowControl {
    /** The exact model, or null when the fixed law runs. */
    public final SwiftExactModel model;
    /** The fixed-point law, or null when the exact model runs. */
    public final SwiftFixedModel fixedModel;
    private final int mtu;

    public SwiftWindows(int flows, SwiftParams params, int mtu) {
        this(new SwiftExactModel(flows, params), null, mtu);
    }

    private SwiftWindows(SwiftExactModel model, SwiftFixedModel fixedModel, int mtu) {
        this.model = model;
        this.fixedModel = fixedModel;
        this.mtu = mtu;
    }

    /** The same NIC on SwiftFixedModel (the law in the hardware's formats). */
    public static SwiftWindows fixed(int flows, SwiftParams params, int mtu) {
        return new SwiftWindows(null, new SwiftFixedModel(flows, SwiftFixedParams.of(params)), mtu);
    }

    private long bytes(double packets) {
        return Math.round(packets * mtu);
    }

    private long bytes(long units) {
        return (units * mtu) >> SwiftFixedModel.CWND_FRAC;
    }

    @Override
    public long init(int flow, long nowNs) {
        if (fixedModel != null) {
            fixedModel.init(flow);
            return bytes(fixedModel.flow(flow).cwnd());
        }
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
        if (fixedModel != null) {
            return bytes(switch (signal) {
                case ACK -> fixedModel.ack(flow, rttNs, 0, hops, ((long) payloadBytes << SwiftFixedModel.ACKED_FRAC) / mtu, nowNs);
                case NACK -> fixedModel.fastRecovery(flow, nowNs);
                case TIMEOUT -> fixedModel.timeout(flow, nowNs);
            });
        }
        return bytes(switch (signal) {
            case ACK -> model.ack(flow, rttNs, 0, hops, (double) payloadBytes / mtu, nowNs);
            case NACK -> model.fastRecovery(flow, nowNs);
            case TIMEOUT -> model.timeout(flow, nowNs);
        });
    }

    @Override
    public long pacingNs(int flow) {
        return fixedModel != null ? fixedModel.pacingDelayNs(flow) : Math.round(model.pacingDelayNs(flow));
    }
}
