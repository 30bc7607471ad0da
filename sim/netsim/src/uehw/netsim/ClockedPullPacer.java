// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import uehw.model.rccc.OversubscribedCcClocked;
import uehw.model.rccc.OversubscribedCcClocked.Arrival;
import uehw.model.rccc.RcccPacerModel;
import uehw.model.rccc.RcccPacerModel.Event;
import uehw.model.rccc.RcccPacerModel.Pull;

/**
 * A receiving node's pull pacer on the rccc-pacer block at its clock (docs/rccc.md), the block
 * being its model (RcccPacerModel) or the Verilated RTL (netsim-rtl's RcccRtlPacer): the
 * transport's calls become the block's events, presented from the first clock edge at or after
 * the call (edge k at k x clockPs), one an edge, in call order, held while the block does not take
 * them; a connection's first packet opens it (OPEN with pull number 0: the reference's INIT_PULL);
 * a target is sent as its distance from INIT_PULL, 32 bits; each PULL the block's port hands over
 * (always ready) leaves as the connection's PULL at that edge, its number serially extended back
 * above INIT_PULL. While no event waits and the block is settled (nothing in flight, its lead 0,
 * so idle clocks change nothing) the pacer stops clocking, and starts again at the first edge at or
 * after the next call. Connections take block ids in the order their first packets arrive; the block
 * never closes them (the reference's sinks stay).
 */
public final class ClockedPullPacer implements PullPacer {
    /** The block clocked edge by edge: its event port and its PULL port, always ready. */
    public interface Stepper {
        /** Connections the block paces. */
        int connections();

        /**
         * One clock edge with {@code offered} presented on the event port (null: valid low) and
         * {@code arrival} on the arrival port (null: none; only with the controller): whether the event was taken.
         */
        boolean step(Event offered, Arrival arrival);

        /** The PULL the port handed over at the last edge, or null. */
        Pull handed();

        /** Idle clocks change nothing: no event or PULL in flight, the lists empty, the lead 0. */
        boolean settled();
    }

    /** The interval draws' seed of every node's controller: the block's default `occ-seed`, so that model and RTL runs agree. */
    public static final long OCC_SEED = 0x2545F491L;

    /** OCC_PERIOD_CLOCKS for the settings: 1.5 x their network RTT in clocks, rounded (oversubscribed_cc.h:24-27). */
    public static long occPeriodClocks(UecTransport.Settings s, long clockPs) {
        return Math.max(OversubscribedCcClocked.MIN_PERIOD_CLOCKS, Math.round(1.5 * s.oversubscribedCcRttPs() / clockPs));
    }

    /** OCC_MIN_RATE for the settings: their floor in 2^-30, truncated. */
    public static long occMinRate(UecTransport.Settings s) {
        return (long) Math.floor(s.oversubscribedCcMinRate() * uehw.model.rccc.OversubscribedCcFixed.ONE);
    }

    /**
     * The block's model as the stepper, at the settings' time per quantum, credit per pull and
     * maxwnd; with the oversubscription controller when the settings have one.
     */
    public static Stepper model(int connections, UecTransport.Settings s, long clockPs) {
        RcccPacerModel m = new RcccPacerModel(connections, s.psPerQuantum(), clockPs, (int) s.creditPerPull(),
                (int) (s.configuredMaxwnd() >> 8), s.oversubscribedCcRttPs() > 0 ? new OversubscribedCcClocked(
                        occPeriodClocks(s, clockPs), occMinRate(s), OCC_SEED, s.psPerQuantum()) : null);
        return new Stepper() {
            private Pull handed;

            @Override
            public int connections() {
                return connections;
            }

            @Override
            public boolean step(Event offered, Arrival arrival) {
                handed = m.pull();   // presented at this edge, the port ready: handed over
                return m.step(offered, true, arrival);
            }

            @Override
            public Pull handed() {
                return handed;
            }

            @Override
            public boolean settled() {
                return m.quiet() && m.lead() == 0;
            }
        };
    }

    /** Pacers of the block's model at {@code clockPs} for every receiving node. */
    public static Factory models(int connections, long clockPs) {
        return (host, loop, s, sendPull, running) -> new ClockedPullPacer(loop, clockPs, () -> model(connections, s, clockPs),
                sendPull, s.oversubscribedCcRttPs() > 0 ? running : null);
    }

    private final EventLoop loop;
    private final long clockPs;
    private final Supplier<Stepper> steppers;
    private final BiConsumer<UecPullPacer.Sink, Boolean> sendPull;
    private Stepper block;
    private final List<UecPullPacer.Sink> sinks = new ArrayList<>();
    private final IdentityHashMap<UecPullPacer.Sink, Integer> ids = new IdentityHashMap<>();
    private final ArrayDeque<Event> waiting = new ArrayDeque<>();
    /** With the block's oversubscription controller: arrivals, one a clock; it ticks while the network runs. */
    private final ArrayDeque<Arrival> arrivals = new ArrayDeque<>();
    private final java.util.function.BooleanSupplier running;
    /** The next edge's index (its time: index x clockPs). */
    private long edge;
    private boolean ticking;
    public long pulls, slowPulls, edges;

    /**
     * @param steppers makes the block when the node's first packet arrives (a node that never
     *                 receives needs none)
     * @param running  with the block's oversubscription controller: whether the network still runs
     *                 (the block then ticks every clock, its intervals running); null: none
     */
    public ClockedPullPacer(EventLoop loop, long clockPs, Supplier<Stepper> steppers,
                            BiConsumer<UecPullPacer.Sink, Boolean> sendPull, java.util.function.BooleanSupplier running) {
        if (clockPs < 1) {
            throw new IllegalArgumentException("clockPs must be at least 1, not " + clockPs);
        }
        this.loop = loop;
        this.clockPs = clockPs;
        this.steppers = steppers;
        this.sendPull = sendPull;
        this.running = running;
    }

    @Override
    public boolean controlsOversubscription() {
        return running != null;
    }

    @Override
    public void arrival(boolean ecn, boolean trimmed, boolean lastHop) {
        if (running == null) {
            PullPacer.super.arrival(ecn, trimmed, lastHop);
        }
        ensureBlock();
        arrivals.add(new Arrival(ecn, trimmed, lastHop));
        startTicking();
    }

    private void ensureBlock() {
        if (block == null) {
            block = steppers.get();
        }
    }

    @Override
    public UecPullPacer.Sink sink(int flow) {
        ensureBlock();
        if (sinks.size() >= block.connections()) {
            throw new IllegalStateException("the pacer holds " + block.connections() + " connections; flow " + flow
                    + " would be one more");
        }
        UecPullPacer.Sink s = new UecPullPacer.Sink(flow);
        present(Event.open(sinks.size(), 0));
        ids.put(s, sinks.size());
        sinks.add(s);
        return s;
    }

    private int conn(UecPullPacer.Sink s) {
        Integer c = ids.get(s);
        if (c == null) {
            throw new IllegalArgumentException("flow " + s.flow + "'s sink is not this pacer's");
        }
        return c;
    }

    @Override
    public void pullTarget(UecPullPacer.Sink s, long target) {
        s.highestPullTarget = Math.max(s.highestPullTarget, target);   // kept for the reader; the block holds its own
        present(Event.target(conn(s), (int) (target - UecPullPacer.INIT_PULL)));
    }

    @Override
    public void request(UecPullPacer.Sink s) {
        present(Event.request(conn(s)));
    }

    @Override
    public long pulls() {
        return pulls;
    }

    @Override
    public long slowPulls() {
        return slowPulls;
    }

    private void present(Event e) {
        waiting.add(e);
        startTicking();
    }

    private void startTicking() {
        if (!ticking) {
            ticking = true;
            edge = Math.max(edge, (loop.now() + clockPs - 1) / clockPs);
            loop.after(edge * clockPs - loop.now(), this::tick);
        }
    }

    private void tick() {
        if (block.step(waiting.peek(), arrivals.poll())) {
            waiting.poll();
        }
        edge++;
        edges++;
        Pull p = block.handed();
        if (p != null) {
            UecPullPacer.Sink s = sinks.get(p.conn());
            // the block's 32-bit serial number, extended about the last one
            s.latestPull += p.number() - (int) (s.latestPull - UecPullPacer.INIT_PULL);
            pulls++;
            slowPulls += p.slow() ? 1 : 0;
            sendPull.accept(s, p.slow());
        }
        if (!waiting.isEmpty() || !arrivals.isEmpty() || !block.settled() || running != null && running.getAsBoolean()) {
            loop.after(clockPs, this::tick);
        } else {
            ticking = false;
        }
    }
}
