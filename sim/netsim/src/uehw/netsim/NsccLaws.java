// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import uehw.model.nscc.NsccExactModel;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.nscc.NsccFixedParams;
import uehw.model.nscc.NsccParams;

/**
 * NSCC behind the reference transport (UecTransport.Law): the exact model (the reference's
 * arithmetic, uec.cpp) or the fixed-point law the {@code nscc} block runs (NsccFixedModel; times
 * in ns, the RTT truncated to ns).
 */
public final class NsccLaws {
    private NsccLaws() {
    }

    /** The exact model; {@code cwnd} 0 starts each flow at maxwnd (the reference's default), else at cwnd bytes. */
    public static UecTransport.Law exact(int flows, NsccParams p, long cwnd) {
        NsccExactModel m = new NsccExactModel(flows, p);
        return new UecTransport.Law() {
            @Override
            public long init(int flow, long nowPs) {
                m.init(flow, p.networkRttPs(), cwnd);
                return m.flow(flow).cwnd;
            }

            @Override
            public long ack(int flow, long nowPs, long newly, long rawRttPs, boolean ecn, long inFlight) {
                m.ack(flow, nowPs, newly, rawRttPs, ecn, 255, inFlight);
                return m.flow(flow).cwnd;
            }

            @Override
            public long nack(int flow, long nowPs, long bytes, long rawRttPs, boolean lastHop, long inFlight) {
                m.nack(flow, nowPs, bytes, rawRttPs, lastHop, inFlight);
                return m.flow(flow).cwnd;
            }

            @Override
            public long timeout(int flow, long nowPs, long bytes) {
                m.timeout(flow, bytes);
                return m.flow(flow).cwnd;
            }
        };
    }

    private static final long TIME_MASK = (1L << NsccFixedModel.TIME_BITS) - 1;
    private static final long FIELD_MAX = (1L << NsccFixedModel.WINDOW_BITS) - 1;

    /** One event of the fixed law's port, saturating the 24-bit fields as the NIC would. */
    public static NsccFixedModel.Event event(int flow, NsccFixedModel.Kind kind, long bytes, long rawRttPs, boolean ecn,
                                             boolean lastHop, long inFlight, long nowPs) {
        return new NsccFixedModel.Event(flow, kind, Math.min(bytes, FIELD_MAX), Math.min(rawRttPs / 1000, FIELD_MAX), ecn,
                lastHop, 255, Math.min(Math.max(inFlight, 0), FIELD_MAX), nowPs / 1000 & TIME_MASK);
    }

    /** The fixed-point law (the RTL's specification), every flow starting at the network RTT and {@code cwnd} (0: maxwnd). */
    public static UecTransport.Law fixed(int flows, NsccParams p, long cwnd) {
        NsccFixedParams q = NsccFixedParams.of(p);
        NsccFixedModel m = new NsccFixedModel(flows, q, q.networkRttNs(), cwnd);
        return applying(e -> {
            m.apply(e);
            return m.state(e.flow()).cwnd;
        });
    }

    /** A law that hands each event to {@code apply} (the fixed model, or the RTL in the loop) and takes the window it returns. */
    public static UecTransport.Law applying(java.util.function.ToLongFunction<NsccFixedModel.Event> apply) {
        return new UecTransport.Law() {
            @Override
            public long init(int flow, long nowPs) {
                return apply.applyAsLong(event(flow, NsccFixedModel.Kind.INIT, 0, 0, false, false, 0, nowPs));
            }

            @Override
            public long ack(int flow, long nowPs, long newly, long rawRttPs, boolean ecn, long inFlight) {
                return apply.applyAsLong(event(flow, NsccFixedModel.Kind.ACK, newly, rawRttPs, ecn, false, inFlight, nowPs));
            }

            @Override
            public long nack(int flow, long nowPs, long bytes, long rawRttPs, boolean lastHop, long inFlight) {
                return apply.applyAsLong(event(flow, NsccFixedModel.Kind.NACK, bytes, rawRttPs, false, lastHop, inFlight, nowPs));
            }

            @Override
            public long timeout(int flow, long nowPs, long bytes) {
                return apply.applyAsLong(event(flow, NsccFixedModel.Kind.TIMEOUT, bytes, 0, false, false, 0, nowPs));
            }
        };
    }
}
