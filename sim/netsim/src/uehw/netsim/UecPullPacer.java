// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.function.BiConsumer;

/**
 * RCCC's receiver pull pacer as the UEC reference simulator runs it, one per receiving node
 * (uet-htsim 40ccb05 uec.cpp:3044-3175 UecPullPacer, 2910-2945 UecSink::pull; main_uec.cpp:753-755):
 * each event serves the head of the active list, granting up to CREDIT_PER_PULL quanta of 256 B
 * up to the connection's highest pull target, never backwards; a connection whose target is met
 * moves to the idle list, whose connections get slow pulls beyond their target while no connection
 * is active, until the excess reaches the configured maxwnd; the next event comes the granted
 * quanta x the time per quantum later (4 quanta if none).
 */
public final class UecPullPacer implements PullPacer {
    /** The reference's initial pull number (uec.cpp:213), large enough that no target maps below it. */
    public static final long INIT_PULL = 100_000_000L;

    /** A connection at the receiver (UecSink's pull state, uec.h:509-545, 575-590). */
    public static final class Sink {
        public final int flow;
        public long highestPullTarget = INIT_PULL;
        public long latestPull = INIT_PULL;
        boolean inPull;
        boolean inSlowPull;
        /** On the idle list (kept for {@link #eachListOnce}). */
        boolean onIdle;
        int entropy;

        Sink(int flow) {
            this.flow = flow;
        }

        long backlog() {
            return Math.max(0, highestPullTarget - latestPull);
        }

        long slowCredit() {
            return highestPullTarget >= latestPull ? 0 : latestPull - highestPullTarget;
        }

        /** uec.cpp:2900-2910: a 7-bit entropy counter (TGT_EV_SIZE) for the PULLs. */
        int nextEntropy() {
            entropy = entropy + 1 & 0x7F;
            return entropy;
        }
    }

    private final EventLoop loop;
    private final long psPerQuantum;
    private final long creditPerPull;
    private final long configuredMaxwndQuanta;
    private final BiConsumer<Sink, Boolean> sendPull;
    private final ArrayDeque<Sink> active = new ArrayDeque<>();
    private final ArrayDeque<Sink> idle = new ArrayDeque<>();
    private boolean running;
    /** The time per quantum under the rate modifier (uec.cpp:3132-3139; the psPerQuantum at rate 1). */
    private long actualPsPerQuantum;
    public long pulls, slowPulls;
    /**
     * The rccc-pacer block's rule (docs/rccc.md): a connection is on the idle list at most once. The
     * reference (false) appends a connection leaving the active list to the idle list even when it is
     * still on it (it joined the active list from there).
     */
    public boolean eachListOnce;

    /**
     * @param psPerQuantum 8 x 256 B / (link speed x ports) / rate modifier, truncated to ps (uec.cpp:3045-3051)
     * @param creditPerPull quanta a pull grants (the reference's (4096 x 4) >> 8 = 64, uec.cpp:33-36)
     * @param configuredMaxwnd bytes of slow credit an idle connection may get (uec.h:332)
     * @param sendPull sends the PULL of a sink (its latest pull; slow or not)
     */
    public UecPullPacer(EventLoop loop, long psPerQuantum, long creditPerPull, long configuredMaxwnd,
                        BiConsumer<Sink, Boolean> sendPull) {
        this.loop = loop;
        this.psPerQuantum = psPerQuantum;
        this.actualPsPerQuantum = psPerQuantum;
        this.creditPerPull = creditPerPull;
        this.configuredMaxwndQuanta = configuredMaxwnd >> 8;
        this.sendPull = sendPull;
    }

    /** The reference's pacer for every receiving node (the transport's settings); the block's list rule when {@code eachListOnce}. */
    public static Factory factory(boolean eachListOnce) {
        return (host, loop, s, sendPull, running) -> {
            UecPullPacer p = new UecPullPacer(loop, s.psPerQuantum(), s.creditPerPull(), s.configuredMaxwnd(), sendPull);
            p.eachListOnce = eachListOnce;
            return p;
        };
    }

    /**
     * uec.cpp:3132-3139 updatePullRate: the oversubscription controller's rate divides the time per
     * quantum (truncated to the ps, a simtime_picosec there); from the next event on.
     */
    public void rate(double relativeRate) {
        actualPsPerQuantum = (long) (psPerQuantum / relativeRate);
    }

    @Override
    public Sink sink(int flow) {
        return new Sink(flow);
    }

    @Override
    public long pulls() {
        return pulls;
    }

    @Override
    public long slowPulls() {
        return slowPulls;
    }

    @Override
    public void pullTarget(Sink s, long target) {
        if (target > s.highestPullTarget) {
            s.highestPullTarget = target;
            request(s);
        }
    }

    @Override
    public void request(Sink s) {
        if (s.inPull) {
            return;
        }
        s.inPull = true;
        active.add(s); // uec.cpp:3157-3170 requestPull
        if (!running) {
            running = true;
            loop.after(0, this::next);
        }
    }

    /** uec.cpp:3061-3130 doNextEvent. */
    private void next() {
        if (active.isEmpty() && idle.isEmpty()) {
            running = false;
            return;
        }
        Sink s;
        long extra = 0;
        boolean slow;
        if (!active.isEmpty()) {
            s = active.poll();
            long prev = s.latestPull; // uec.cpp:2930-2936 pull()
            s.latestPull += creditPerPull;
            if (s.latestPull > s.highestPullTarget) {
                s.latestPull = Math.max(s.highestPullTarget, prev);
            }
            extra = s.latestPull - prev;
            slow = false;
            if (s.backlog() > 0) {
                active.add(s);
            } else {
                if (!eachListOnce || !s.onIdle) {
                    idle.add(s);
                    s.onIdle = true;
                }
                s.inPull = false;
                s.inSlowPull = true;
            }
        } else {
            s = idle.poll();
            s.onIdle = false;
            if (!s.inSlowPull) {
                s.inPull = false;
                s.inSlowPull = true;
            }
            extra = creditPerPull;
            s.latestPull += extra;
            slow = true;
            slowPulls++;
            if (s.backlog() == 0 && s.slowCredit() < configuredMaxwndQuanta) {
                idle.add(s);
                s.onIdle = true;
            } else {
                s.inPull = false;
                s.inSlowPull = false;
            }
        }
        pulls++;
        sendPull.accept(s, slow);
        long quanta = extra == 0 ? 1024 >> 8 : extra;
        loop.after(actualPsPerQuantum * quanta, this::next);
    }
}
