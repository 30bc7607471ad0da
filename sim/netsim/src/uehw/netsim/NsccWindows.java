// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import uehw.model.nscc.NsccExactModel;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.nscc.NsccFixedParams;
import uehw.model.nscc.NsccParams;

/**
 * A NIC's NSCC windows (docs/nscc.md) on the exact model (the UEC reference's arithmetic, the
 * pending increase not wrapping) or, with {@link #fixed}, on the fixed-point law the {@code nscc}
 * block will run. This simulator ACKs every packet: an ACK's newly received bytes are the packet's
 * wire bytes (payload + header, as the reference counts them, uec.cpp:2666), its RTT the network's;
 * a NACK takes out the trimmed packet's wire bytes with the bytes in flight before it (uec.cpp:1588
 * removes them after the law); a timeout is a retransmission timeout. The window is in wire bytes;
 * the NIC compares it with its payload bytes in flight.
 */
public final class NsccWindows implements WindowControl {
    /** The exact model, or null when the fixed law runs. */
    public final NsccExactModel model;
    /** The fixed-point law, or null when the exact model runs. */
    public final NsccFixedModel fixedModel;
    private final NsccParams params;
    private final int header;

    private NsccWindows(NsccExactModel model, NsccFixedModel fixedModel, NsccParams params, int header) {
        this.model = model;
        this.fixedModel = fixedModel;
        this.params = params;
        this.header = header;
    }

    /** The exact law; {@code params} as NsccParams.reference derives them for the network. */
    public static NsccWindows exact(int flows, NsccParams params, int header) {
        return new NsccWindows(new NsccExactModel(flows, params), null, params, header);
    }

    /** The fixed-point law, the flows starting at the network RTT's base RTT and maxwnd. */
    public static NsccWindows fixed(int flows, NsccParams params, int header) {
        NsccFixedParams q = NsccFixedParams.of(params);
        return new NsccWindows(null, new NsccFixedModel(flows, q, q.networkRttNs(), 0), params, header);
    }

    private static final long TIME_MASK = (1L << NsccFixedModel.TIME_BITS) - 1;
    private static final long BYTE_MAX = (1L << NsccFixedModel.WINDOW_BITS) - 1;

    @Override
    public long init(int flow, long nowNs) {
        if (fixedModel != null) {
            fixedModel.apply(new NsccFixedModel.Event(flow, NsccFixedModel.Kind.INIT, 0, 0, false, false, 255, 0, nowNs & TIME_MASK));
            return fixedModel.state(flow).cwnd;
        }
        model.init(flow, params.networkRttPs(), 0);
        return model.flow(flow).cwnd;
    }

    @Override
    public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs) {
        long wire = payloadBytes + header;
        long inFlight = signal == Signal.NACK ? unackedBytes + payloadBytes : unackedBytes;
        if (fixedModel != null) {
            NsccFixedModel.Kind kind = switch (signal) {
                case ACK -> NsccFixedModel.Kind.ACK;
                case NACK -> NsccFixedModel.Kind.NACK;
                case TIMEOUT -> NsccFixedModel.Kind.TIMEOUT;
            };
            fixedModel.apply(new NsccFixedModel.Event(flow, kind, wire, Math.min(rttNs, BYTE_MAX), ecn, false, 255,
                    Math.min(inFlight, BYTE_MAX), nowNs & TIME_MASK));
            return fixedModel.state(flow).cwnd;
        }
        switch (signal) {
            case ACK -> model.ack(flow, nowNs * 1000, wire, rttNs * 1000, ecn, 255, inFlight);
            case NACK -> model.nack(flow, nowNs * 1000, wire, rttNs * 1000, false, inFlight);
            case TIMEOUT -> model.timeout(flow, wire);
        }
        return model.flow(flow).cwnd;
    }
}
