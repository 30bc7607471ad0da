// SPDX-License-Identifier: Apache-2.0
package uehw.model.rccc;

import java.util.ArrayDeque;

import uehw.model.Counters;

/**
 * The rccc-pacer block clock by clock: when its event port takes an event, when each op reaches the
 * state loop, when the engine ticks and when each PULL leaves (docs/rccc.md, "Clocks"). The rules
 * of each op are RcccPacerRules'; the time is the block's lead in ps. Call {@link #step} once a
 * clock with what the ports see at that clock's edge; it returns whether the event was taken and
 * exposes the PULL presented at that edge.
 */
public final class RcccPacerModel {
    /** An input event: kind 0 target, 1 request, 2 open, 3 close. */
    public record Event(int kind, int conn, int number) {
        public static final int TARGET = 0, REQUEST = 1, OPEN = 2, CLOSE = 3;

        public static Event target(int conn, int number) {
            return new Event(TARGET, conn, number);
        }

        public static Event request(int conn) {
            return new Event(REQUEST, conn, 0);
        }

        public static Event open(int conn, int number) {
            return new Event(OPEN, conn, number);
        }

        public static Event close(int conn) {
            return new Event(CLOSE, conn, 0);
        }
    }

    /** A PULL: the connection, its cumulative pull number, slow or not. */
    public record Pull(int conn, int number, boolean slow) {
    }

    // The block's constants (RcccPacer's object; docs/rccc.md)
    public static final int ENGINE_CLOCKS = 11;
    public static final int ENGINE_SLOT = 3;
    public static final int ZERO_GRANT_QUANTA = 4;
    public static final long LAG_LIMIT = 1L << 32;
    /** An op's list append is visible to the engine this many clocks after the op entered the loop. */
    public static final int APPEND_LATENCY = 4;
    private static final long LEAD_MOD = 1L << 40;

    public final RcccPacerRules rules;
    public final Counters counters = new Counters("TARGETS", "STALE_TARGETS", "REQUESTS", "OPENS", "CLOSES", "NOT_OPEN",
            "OUT_OF_RANGE", "JOINS", "PULLS", "SLOW_PULLS", "ZERO_PULLS", "QUANTA", "DROPPED", "PULL_STALLS", "LAG_CLAMPS");
    public long psPerQuantum;
    public long clockPs;
    public int creditPerPull;
    public int maxwndQuanta;

    private final ArrayDeque<Integer> active = new ArrayDeque<>();
    private final ArrayDeque<Integer> idle = new ArrayDeque<>();
    /** Appends on their way to a list: the clock they become visible, the list, the connection. */
    private final ArrayDeque<long[]> appends = new ArrayDeque<>();
    private long clock;
    private long lead;
    // the engine
    private int stage;
    private boolean isOpen, fromActive;
    private int conn, openNumber, credit, maxwnd;
    private RcccPacerRules.Tick tick;
    private long emitAt = Long.MIN_VALUE;   // no PULL yet
    private long product;
    private long clockPsBefore;
    // the PULL port
    private Pull pull;

    /** The oversubscription controller (the `oversubscribed-cc` option), or null. */
    public final OversubscribedCcClocked occ;

    public RcccPacerModel(int connections, long psPerQuantum, long clockPs, int creditPerPull, int maxwndQuanta) {
        this(connections, psPerQuantum, clockPs, creditPerPull, maxwndQuanta, null);
    }

    /** With the oversubscription controller {@code occ} (its reset PS_PER_QUANTUM this one's), or without (null). */
    public RcccPacerModel(int connections, long psPerQuantum, long clockPs, int creditPerPull, int maxwndQuanta,
                          OversubscribedCcClocked occ) {
        this.occ = occ;
        this.rules = new RcccPacerRules(connections);
        this.psPerQuantum = psPerQuantum;
        this.clockPs = clockPs;
        this.clockPsBefore = clockPs;
        this.creditPerPull = creditPerPull;
        this.maxwndQuanta = maxwndQuanta;
    }

    /** The PULL presented at this clock's edge (null: none). */
    public Pull pull() {
        return pull;
    }

    public long lead() {
        return lead;
    }

    /** Nothing in flight: no op in the engine, no append on its way, no PULL waiting, both lists empty. */
    public boolean quiet() {
        return stage == 0 && appends.isEmpty() && pull == null && active.isEmpty() && idle.isEmpty();
    }

    /** Before this edge: the engine would start a tick (free, due, a list not empty, no PULL presented). */
    private boolean engineWantsTick() {
        return stage == 0 && lead <= 0 && (!active.isEmpty() || !idle.isEmpty()) && pull == null;
    }

    /**
     * One clock edge: `offered` is the event presented (null: valid low), `pullReady` the PULL port's
     * ready. Returns whether the event was taken at this edge.
     */
    public boolean step(Event offered, boolean pullReady) {
        return step(offered, pullReady, null);
    }

    /** One clock edge with the arrival port presenting {@code arrival} (null: valid low; the option's port). */
    public boolean step(Event offered, boolean pullReady, OversubscribedCcClocked.Arrival arrival) {
        // the time per quantum before this edge: an E7 at this edge takes it (one the controller writes at this edge
        // reaches an E7 at the next)
        long timePerQuantum = occ == null ? psPerQuantum : occ.psPerQuantum();
        if (occ != null) {
            occ.edge(true, arrival, psPerQuantum);
        } else if (arrival != null) {
            throw new IllegalArgumentException("an arrival without the oversubscription controller");
        }
        // what the registers hold at this edge
        boolean stopped = (stage == 0 || isOpen) && active.isEmpty() && idle.isEmpty();
        boolean waitsForEngine = offered != null && offered.kind() == Event.OPEN && rules.inRange(offered.conn());
        boolean openStarts = stage == 0 && waitsForEngine;   // an open goes before a tick
        boolean tickStarts = engineWantsTick() && !openStarts;
        boolean blocked = stage == ENGINE_SLOT || isOpen && (stage == 1 || stage == 2);
        boolean taken = offered != null && !blocked && (!waitsForEngine || openStarts);
        boolean emitsNow = clock == emitAt;   // the E7 register: a PULL loaded at this edge
        boolean addsNow = clock == emitAt + 3; // E10: the delta holds the product

        if (pull != null && !pullReady) {
            counters.inc("PULL_STALLS");
        }
        if (pull != null && pullReady) {
            pull = null;
        }
        if (emitsNow) {
            pull = new Pull(conn, tick.latest(), tick.slow());
            // E7: the product's operands, PS_PER_QUANTUM sampled at this edge
            product = (long) (tick.quanta() == 0 ? ZERO_GRANT_QUANTA : tick.quanta())
                    * timePerQuantum;
        }

        // the lead: falls by CLOCK_PS, gains a PULL's quanta x PS_PER_QUANTUM at E10, 0 when stopped, >= -2^32
        long sum = lead - clockPsBefore + (addsNow ? product : 0);   // CLOCK_PS as sampled an edge before
        sum = wrapLead(sum);
        if (sum < 0 && stopped) {
            lead = 0;
        } else if (sum < -LAG_LIMIT) {
            lead = -LAG_LIMIT;
            counters.inc("LAG_CLAMPS");
        } else {
            lead = sum;
        }

        // the op that enters the state loop at this edge: the engine's at E3, else the event taken
        if (stage == ENGINE_SLOT) {
            engineOp();
        } else if (taken && !waitsForEngine) {
            inputOp(offered);
        }

        // the engine
        if (stage == 0) {
            if (tickStarts) {
                fromActive = !active.isEmpty();
                conn = fromActive ? active.poll() : idle.poll();
                isOpen = false;
                stage = 1;
            } else if (openStarts) {
                isOpen = true;
                conn = offered.conn();
                openNumber = offered.number();
                stage = 1;
            }
        } else {
            if (stage == 2) {
                credit = creditPerPull;   // E2: CREDIT_PER_PULL and MAXWND_QUANTA sampled
                maxwnd = maxwndQuanta;
            }
            stage = stage == ENGINE_CLOCKS - 1 ? 0 : stage + 1;
        }

        // appends visible from the next edge
        clockPsBefore = clockPs;
        clock++;
        while (!appends.isEmpty() && appends.peekFirst()[0] <= clock) {
            long[] a = appends.pollFirst();
            (a[1] == 0 ? active : idle).add((int) a[2]);
        }
        return taken;
    }

    private static long wrapLead(long v) {
        long m = Math.floorMod(v, LEAD_MOD);
        return m >= LEAD_MOD / 2 ? m - LEAD_MOD : m;
    }

    private void append(int list, int c) {
        appends.add(new long[] {clock + APPEND_LATENCY, list, c});
    }

    private void inputOp(Event e) {
        if (!rules.inRange(e.conn())) {
            counters.inc("OUT_OF_RANGE");
            return;
        }
        RcccPacerRules.Effect effect = switch (e.kind()) {
            case Event.TARGET -> rules.target(e.conn(), e.number());
            case Event.REQUEST -> rules.request(e.conn());
            case Event.CLOSE -> rules.close(e.conn());
            default -> throw new IllegalStateException("an open in range goes through the engine");
        };
        if (effect == RcccPacerRules.Effect.NOT_OPEN) {
            counters.inc("NOT_OPEN");
            return;
        }
        counters.inc(switch (e.kind()) {
            case Event.TARGET -> "TARGETS";
            case Event.REQUEST -> "REQUESTS";
            default -> "CLOSES";
        });
        if (effect == RcccPacerRules.Effect.STALE) {
            counters.inc("STALE_TARGETS");
        }
        if (effect == RcccPacerRules.Effect.JOINED) {
            counters.inc("JOINS");
            append(0, e.conn());
        }
    }

    /** E3: the engine's op in the loop; its PULL at E7 (presented from E8), its product in the lead at E10. */
    private void engineOp() {
        long start = clock - ENGINE_SLOT;
        if (isOpen) {
            rules.open(conn, openNumber);
            counters.inc("OPENS");
            return;
        }
        tick = fromActive ? rules.tickActive(conn, credit) : rules.tickIdle(conn, credit, maxwnd);
        if (tick.pushActive()) {
            append(0, conn);
        }
        if (tick.pushIdle()) {
            append(1, conn);
        }
        if (tick.dropped()) {
            counters.inc("DROPPED");
            return;
        }
        emitAt = start + 7;
        counters.inc("PULLS");
        counters.add("QUANTA", tick.quanta());
        if (tick.slow()) {
            counters.inc("SLOW_PULLS");
        } else if (tick.quanta() == 0) {
            counters.inc("ZERO_PULLS");
        }
    }
}
