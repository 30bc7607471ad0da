package uehw.sim.net;

import uehw.sim.reps.RepsModel;

/** A NIC's REPS entropy cache on its model (bit-exact with the RTL), one connection per local flow. */
public final class RepsEntropies implements EntropyControl {
    public final RepsModel model;
    private final long timeMask;

    public RepsEntropies(RepsModel model) {
        this.model = model;
        this.timeMask = (1L << 32) - 1;
    }

    @Override
    public void init(int flow, long nowNs) {
        model.clock(RepsModel.Ctrl.init(flow), -1, nowNs & timeMask);
    }

    @Override
    public int next(int flow, long nowNs) {
        return (int) model.clock(null, flow, nowNs & timeMask).ev();
    }

    @Override
    public void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs) {
        model.clock(RepsModel.Ctrl.ack(flow, entropy & 0xFFFFFFFFL, ecn, trimmed), -1, nowNs & timeMask);
    }

    @Override
    public void failure(int flow, long nowNs) {
        model.clock(RepsModel.Ctrl.failure(flow), -1, nowNs & timeMask);
    }
}
