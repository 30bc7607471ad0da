// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import uehw.model.reps.RepsModel;
import uehw.netsim.Flow;
import uehw.netsim.Network;
import uehw.netsim.Port;
import uehw.netsim.RepsEntropies;
import uehw.netsim.SmarttWindows;

/**
 * reps.txt Sec. 3.2 on the fat tree: flows from pod 0 to pod 7 of the authors' k = 8 network (16
 * paths each: 4 aggregation switches x 4 cores) when, at {@link #FAIL_AT_NS}, the link from pod 0's
 * aggregation switch 0 to core 0 fails and loses everything it carries. A packet lost there is not
 * NACKed; its retransmission timeout is the sender's failure signal (reps.txt Alg. 1
 * onFailureDetection). REPS freezes on it and resends only entropies that came back clean; OPS
 * (random spraying) keeps sending a 1/16 of its packets into the dead link.
 */
public final class FatTreeLinkFailure {
    public static final long FAIL_AT_NS = 100_000;
    public static final long FLOW_BYTES = 60_000_000;
    public static final String FAILED_LINK = "agg0->core0";
    /** Senders (pod 0, under ToRs 0 and 1) and their receivers (pod 7). */
    public static final int[][] FLOWS = {{0, 127}, {5, 120}};

    /** Per mode: data packets sent, lost on the failed link, of those sent after the first freezing event, when it came. */
    public record Outcome(RepsModel.Mode mode, long sent, long lost, long lostSentAfterFirstFreeze, long firstFreezeNs,
                          long timeouts, long lastFctNs, boolean finished) {
        public String line() {
            String freeze = firstFreezeNs < 0 ? "no freezing" : String.format(Locale.ROOT,
                    "%d of them sent after the first freeze at %.1f us", lostSentAfterFirstFreeze, firstFreezeNs / 1000.0);
            return String.format(Locale.ROOT, "%-9s %8d sent, %5d lost on %s (%s), %d timeouts, last flow done at %.1f us",
                    mode.id, sent, lost, FAILED_LINK, freeze, timeouts, lastFctNs / 1000.0);
        }
    }

    public static Outcome run(RepsModel.Mode mode, long seed) {
        List<RepsEntropies> units = new ArrayList<>();
        Network net = FatTreeIncast.build((host, flows) -> new SmarttWindows(flows, FatTreeIncast.smartt()), (host, flows) -> {
            RepsEntropies e = new RepsEntropies(new RepsModel(mode, flows, FatTreeIncast.BUFFER_ENTRIES, 16, 32, 8,
                    FatTreeIncast.FREEZING_TIMEOUT_NS, FatTreeIncast.NUM_PKTS_BDP, FatTreeIncast.EVS_SIZE, seed * 131 + host + 1));
            units.add(e);
            return e;
        });
        List<Flow> flows = new ArrayList<>();
        for (int[] f : FLOWS) {
            flows.add(net.addFlow(f[0], f[1], FLOW_BYTES, 0));
        }
        Port failed = net.ports.get(FAILED_LINK);
        net.loop.after(FAIL_AT_NS * 1000, () -> failed.setUp(false));
        long[] firstFreeze = {-1};
        net.every(100, () -> {
            if (firstFreeze[0] < 0 && flows.stream().anyMatch(f -> units.get(f.src).model.freezing(f.local))) {
                firstFreeze[0] = net.loop.now() / 1000;
            }
        });
        boolean finished = net.run(100_000_000);
        long after = firstFreeze[0] < 0 ? 0
                : failed.lostSentAtPs.stream().filter(t -> t >= firstFreeze[0] * 1000).count();
        return new Outcome(mode, flows.stream().mapToLong(f -> f.packetsSent).sum(), failed.lostOnFailedLink, after,
                firstFreeze[0], flows.stream().mapToLong(f -> f.timeouts).sum(),
                flows.stream().mapToLong(Flow::fctNs).max().orElse(-1), finished);
    }

    public static void main(String[] args) {
        for (RepsModel.Mode m : RepsModel.Mode.values()) {
            System.out.println(run(m, args.length > 0 ? Long.parseLong(args[0]) : 1).line());
        }
    }
}
