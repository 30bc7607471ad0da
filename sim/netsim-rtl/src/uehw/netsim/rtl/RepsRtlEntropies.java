// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.function.BiFunction;

import uehw.bench.reps.RepsBench;
import uehw.model.reps.RepsModel;
import uehw.model.reps.RepsModel.SendResult;
import uehw.netsim.EntropyControl;
import uehw.netsim.Network;
import uehw.netsim.RepsEntropies;

/**
 * Hardware in the loop: the NICs' entropies from the Verilated REPS RTL. An ACK (or NACK, as a
 * trimmed ACK) or a failure is presented for one clock with io_now the network's time in ns, a
 * send for one clock and the entropy the network uses is the RTL's result (io_result,
 * Reps.latency clocks later); a new flow re-initialises its connection through INIT_CONN. One RTL
 * instance serves every host (host h's flow i is connection h x flowsPerHost + i), as
 * RepsEntropies.shared does on the model. The bench checks every result against its own model.
 */
public final class RepsRtlEntropies {
    private final RepsBench bench;
    public long clocks;

    public RepsRtlEntropies(RepsBench bench) {
        this.bench = bench;
        bench.keepResults(true);
    }

    private void present(RepsModel.Ctrl ctrl, long sendConn, long nowNs) {
        bench.setNow(nowNs);
        while (!bench.clock(ctrl, sendConn)) {
            clocks++; // refused (the port was busy): present it again
        }
        clocks++;
    }

    /** A factory of the per-host units (for Network), all on this RTL. */
    public BiFunction<Integer, Integer, EntropyControl> forHosts() {
        return (host, flowsPerHost) -> {
            int base = host * flowsPerHost;
            if (base + flowsPerHost > bench.model.connections) {
                throw new IllegalArgumentException("the RTL holds " + bench.model.connections + " connections, not host " + host + "'s");
            }
            return new EntropyControl() {
                @Override
                public void init(int flow, long nowNs) {
                    bench.setNow(nowNs);
                    bench.init(base + flow);
                    clocks += 4;
                }

                @Override
                public int next(int flow, long nowNs) {
                    bench.seen.clear();
                    present(null, base + flow, nowNs);
                    clocks += bench.clocksUntilResultsDrained();
                    if (bench.seen.size() != 1) {
                        throw new AssertionError("one send, " + bench.seen.size() + " results");
                    }
                    SendResult r = bench.seen.get(0);
                    return (int) r.ev();
                }

                @Override
                public void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs) {
                    present(RepsModel.Ctrl.ack(base + flow, entropy & 0xFFFFFFFFL, ecn, trimmed), -1, nowNs);
                }

                @Override
                public void failure(int flow, long nowNs) {
                    present(RepsModel.Ctrl.failure(base + flow), -1, nowNs);
                }
            };
        };
    }
}
