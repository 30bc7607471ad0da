package uehw.sim.net;

import java.util.PriorityQueue;
import java.util.Random;

import uehw.sim.reps.RepsModel;
import uehw.sim.reps.RepsModel.Ctrl;
import uehw.sim.reps.RepsModel.SendResult;

/**
 * reps.txt Sec. 3.2 as an experiment on the golden model: one sender, `paths` equal-cost paths
 * chosen by an ECMP hash of the EV, a window of packets in flight. At {@code failAt} one path
 * starts dropping everything: packets on it time out (a failure event and a retransmission),
 * packets on the others are ACKed one RTT later, ECN-marked with a small probability.
 */
public final class FailedPathExperiment {
    public record Outcome(long sent, long sentIntoFailedPath, long sentIntoFailedPathAfterFirstFreeze,
                          long firstFreezeAt, long timeouts) {
    }

    private record Event(long time, long ev, boolean timeout) {
    }

    public final int paths = 16;
    public final int failedPath = 5;
    public final long rttNs = 10_000;
    public final long rtoNs = 50_000;
    public final long failAtNs = 200_000;
    public final long endNs = 2_000_000;
    public final int window = 32;
    public final double ecnProbability = 0.05;

    /** ECMP: a fixed integer hash of the EV onto the paths (murmur3 finalizer). */
    public int pathOf(long ev) {
        long h = ev * 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) Math.floorMod(h, (long) paths);
    }

    public Outcome run(RepsModel.Mode mode, long seed) {
        RepsModel lb = new RepsModel(mode, 1, 8, 16, 32, 8, endNs, 16, 256, 1 + (seed & 0x7FFFFFFF));
        Random rnd = new Random(seed);
        PriorityQueue<Event> pending = new PriorityQueue<>((a, b) -> Long.compare(a.time(), b.time()));
        long sent = 0;
        long intoFailed = 0;
        long intoFailedAfterFreeze = 0;
        long firstFreeze = -1;
        long timeouts = 0;
        int inFlight = 0;
        long now = 0;
        while (now < endNs) {
            while (inFlight < window) {
                SendResult r = lb.clock(null, 0, now);
                int path = pathOf(r.ev());
                boolean lost = now >= failAtNs && path == failedPath;
                sent++;
                if (lost) {
                    intoFailed++;
                    if (firstFreeze >= 0) {
                        intoFailedAfterFreeze++;
                    }
                }
                pending.add(new Event(now + (lost ? rtoNs : rttNs + rnd.nextInt(2000)), r.ev(), lost));
                inFlight++;
            }
            Event e = pending.poll();
            now = e.time();
            inFlight--;
            if (e.timeout()) {
                timeouts++;
                lb.clock(Ctrl.failure(0), -1, now);
                if (firstFreeze < 0 && lb.freezing(0)) {
                    firstFreeze = now;
                }
            } else {
                lb.clock(Ctrl.ack(0, e.ev(), rnd.nextDouble() < ecnProbability, false), -1, now);
            }
        }
        return new Outcome(sent, intoFailed, intoFailedAfterFreeze, firstFreeze, timeouts);
    }
}
