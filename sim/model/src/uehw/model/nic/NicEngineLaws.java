// SPDX-License-Identifier: Apache-2.0
package uehw.model.nic;

import uehw.model.nscc.NsccFixedModel;
import uehw.model.smartt.SmarttFixedModel;
import uehw.model.swift.SwiftFixedModel;

/**
 * The engine's laws for {@link NicEngineModel} (docs/nic-engine.md, "The law"): how the engine's
 * input becomes each law's event (saturated field by field) and how its update becomes a window in
 * bytes, with the law's fixed model and its window unit's timing. The caller builds the fixed model
 * from the law's CSR reset values and passes the unit's widths and timing (the RTL's constants).
 */
public final class NicEngineLaws {
    private NicEngineLaws() {
    }

    private static long sat(long x, int bits) {
        long max = (1L << bits) - 1;
        return Math.min(x, max);
    }

    /** A law's timing: the same-flow spacing and the edges from an event's leaving the holding register to its window op. */
    public record Timing(int spacing, int toWindowOp) {
    }

    private abstract static class Timed implements NicEngineModel.Law {
        private final Timing timing;

        Timed(Timing timing) {
            this.timing = timing;
        }

        @Override
        public int spacing() {
            return timing.spacing();
        }

        @Override
        public int toWindowOp() {
            return timing.toWindowOp();
        }
    }

    /** NSCC: bytes, RTT and bytes in flight saturate to `windowBits`; the window is the update's cwnd. */
    public static NicEngineModel.Law nscc(NsccFixedModel model, int windowBits, Timing timing) {
        return new Timed(timing) {
            @Override
            public long take(NicEngineModel.LawInput in, long now) {
                model.apply(new NsccFixedModel.Event(in.flow(), NsccFixedModel.Kind.values()[in.kind()], sat(in.bytes(), windowBits),
                        sat(in.rtt(), windowBits), in.ecn(), in.lastHop(), in.rcvWndPen(), sat(in.inFlight(), windowBits), now));
                return model.state(in.flow()).cwnd;
            }
        };
    }

    /** SMaRTT: size = bytes saturated to 16 bits, RTT to `rttWidth`, unacked = bytes in flight to `byteWidth`; the window is cwnd. */
    public static NicEngineModel.Law smartt(SmarttFixedModel model, int rttWidth, int byteWidth, Timing timing) {
        return new Timed(timing) {
            @Override
            public long take(NicEngineModel.LawInput in, long now) {
                return model.apply(new SmarttFixedModel.Event(in.flow(), SmarttFixedModel.Kind.values()[in.kind()], (int) sat(in.bytes(), 16),
                        sat(in.rtt(), rttWidth), in.ecn(), sat(in.inFlight(), byteWidth), now)).cwnd();
            }
        };
    }

    /**
     * Swift: RTT saturated to `delayWidth`; an ACK's acked = floor(min(bytes, 2^capBits - 1) x recip
     * / 2^shift) (u6.7 packets), else 0; no endpoint delay, no hops; the window max(cwnd, 1 packet)
     * x MTU / 2^cwndFrac.
     */
    public static NicEngineModel.Law swift(SwiftFixedModel model, int delayWidth, int capBits, long recip, int shift, int mtu, int cwndFrac,
                                           Timing timing) {
        long one = 1L << cwndFrac;
        return new Timed(timing) {
            @Override
            public long take(NicEngineModel.LawInput in, long now) {
                long acked = in.kind() == NicEngineModel.ACK ? sat(in.bytes(), capBits) * recip >> shift : 0;
                long cwnd = model.apply(new SwiftFixedModel.Event(in.flow(), SwiftFixedModel.Kind.values()[in.kind()], sat(in.rtt(), delayWidth),
                        0, 0, acked, now)).cwnd();
                return Math.max(cwnd, one) * mtu >> cwndFrac;
            }
        };
    }
}
