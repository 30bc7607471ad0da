// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayList;
import java.util.List;

import uehw.model.smartt.SmarttFixedModel;
import uehw.model.smartt.SmarttFixedModel.Event;
import uehw.model.smartt.SmarttFixedModel.Kind;
import uehw.model.smartt.SmarttParams;

/**
 * A NIC's SMaRTT window unit on the fixed-point model (the RTL's arithmetic, bit-exact), with
 * each flow's QuickAdapt events recorded: when, and the window it set.
 */
public final class SmarttWindows implements WindowControl {
    /** One QuickAdapt: time in ns and the window it set. */
    public record QuickAdapt(long nowNs, long cwnd) {
    }

    public final SmarttFixedModel model;
    public final List<List<QuickAdapt>> quickAdapts = new ArrayList<>();
    private final long timeMask;

    /** The generated defaults' widths: 24-bit bytes, 32-bit time, a 1024 x 14 reciprocal table. */
    public SmarttWindows(int flows, SmarttParams params) {
        this.model = new SmarttFixedModel(flows, 24, 32, 10, 14, params);
        this.timeMask = (1L << model.timeWidth) - 1;
        for (int i = 0; i < flows; i++) {
            quickAdapts.add(new ArrayList<>());
        }
    }

    private long bytes(int flow) {
        return model.state(flow).cwnd >>> SmarttFixedModel.F;
    }

    @Override
    public long init(int flow, long nowNs) {
        model.apply(new Event(flow, Kind.INIT, 0, 0, false, 0, nowNs & timeMask));
        return bytes(flow);
    }

    @Override
    public long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs) {
        Kind kind = switch (signal) {
            case ACK -> Kind.ACK;
            case NACK -> Kind.NACK;
            case TIMEOUT -> Kind.TIMEOUT;
        };
        SmarttFixedModel.Update u = model.apply(new Event(flow, kind, payloadBytes, rttNs, ecn,
                Math.min(unackedBytes, (1L << model.byteWidth) - 1), nowNs & timeMask));
        if (u.rule() == SmarttFixedModel.Rule.QUICK_ADAPT) {
            quickAdapts.get(flow).add(new QuickAdapt(nowNs, bytes(flow)));
        }
        return bytes(flow);
    }
}
