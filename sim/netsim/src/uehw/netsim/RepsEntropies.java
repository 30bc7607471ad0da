// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import uehw.model.reps.RepsModel;

/**
 * A NIC's REPS entropy cache on its model (bit-exact with the RTL), one connection per local flow
 * from {@code base}. Several hosts may share one model (one cache for all NICs, connection
 * host x flowsPerHost + flow: the draws are then taken in the order of the whole network), which is
 * how one RTL instance serves them in the loop (RepsRtlEntropies).
 */
public final class RepsEntropies implements EntropyControl {
    public final RepsModel model;
    private final int base;
    private final long timeMask;

    public RepsEntropies(RepsModel model) {
        this(model, 0);
    }

    public RepsEntropies(RepsModel model, int base) {
        this.model = model;
        this.base = base;
        this.timeMask = (1L << model.timeWidth) - 1;
    }

    /** One model for every host: host h's flows are connections h x flowsPerHost + i. */
    public static java.util.function.BiFunction<Integer, Integer, EntropyControl> shared(RepsModel model) {
        return (host, flowsPerHost) -> new RepsEntropies(model, host * flowsPerHost);
    }

    @Override
    public void init(int flow, long nowNs) {
        model.clock(RepsModel.Ctrl.init(base + flow), -1, nowNs & timeMask);
    }

    @Override
    public int next(int flow, long nowNs) {
        return (int) model.clock(null, base + flow, nowNs & timeMask).ev();
    }

    @Override
    public void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs) {
        model.clock(RepsModel.Ctrl.ack(base + flow, entropy & 0xFFFFFFFFL, ecn, trimmed), -1, nowNs & timeMask);
    }

    @Override
    public void failure(int flow, long nowNs) {
        model.clock(RepsModel.Ctrl.failure(base + flow), -1, nowNs & timeMask);
    }
}
