// SPDX-License-Identifier: Apache-2.0
package uehw.model.rccc;

/**
 * The rules of RCCC's receiver pull pacer per connection, as the rccc-pacer block applies them, in
 * the order the block's state loop takes its ops (no clocks here: RcccPacerModel says when each op
 * runs). Pull numbers are 32-bit and compared as serial numbers (RFC 1982): x is ahead of y when
 * (x - y) mod 2^32 is in 1 .. 2^31 - 1. The reference's rules (uet-htsim 40ccb05 uec.cpp) are cited
 * per rule; where the block decides otherwise (each list at most once, open and close) docs/rccc.md
 * says why.
 */
public final class RcccPacerRules {
    /** What one tick did: the PULL (if any), its grant, and where the connection went. */
    public record Tick(boolean emits, int latest, int quanta, boolean slow, boolean pushActive, boolean pushIdle,
                       boolean dropped) {
    }

    /** What one input op did: whether it put the connection on the active list. */
    public enum Effect { NONE, JOINED, STALE, NOT_OPEN, OUT_OF_RANGE }

    public final int connections;
    final int[] highest;
    final int[] latest;
    final boolean[] open;
    final boolean[] onActive;
    final boolean[] onIdle;

    public RcccPacerRules(int connections) {
        this.connections = connections;
        highest = new int[connections];
        latest = new int[connections];
        open = new boolean[connections];
        onActive = new boolean[connections];
        onIdle = new boolean[connections];
    }

    /** x ahead of y as serial numbers. */
    public static boolean ahead(int x, int y) {
        int d = x - y;
        return d > 0;
    }

    public boolean inRange(int conn) {
        return conn >= 0 && conn < connections;
    }

    public boolean isOpen(int conn) {
        return open[conn];
    }

    public int highest(int conn) {
        return highest[conn];
    }

    public int latest(int conn) {
        return latest[conn];
    }

    /** A pull target (uec.cpp:2547-2569): above the highest it becomes the highest and the connection joins the active list. */
    public Effect target(int conn, int target) {
        if (!inRange(conn)) {
            return Effect.OUT_OF_RANGE;
        }
        if (!open[conn]) {
            return Effect.NOT_OPEN;
        }
        if (!ahead(target, highest[conn])) {
            return Effect.STALE;
        }
        highest[conn] = target;
        return join(conn);
    }

    /** A pull request, a trimmed arrival or an RTS (uec.cpp:2784-2792, 2814-2817, requestPull 3157-3170). */
    public Effect request(int conn) {
        if (!inRange(conn)) {
            return Effect.OUT_OF_RANGE;
        }
        if (!open[conn]) {
            return Effect.NOT_OPEN;
        }
        return join(conn);
    }

    private Effect join(int conn) {
        if (onActive[conn]) {
            return Effect.NONE;
        }
        onActive[conn] = true;
        return Effect.JOINED;
    }

    /** Open: the highest target and the latest pull start at `initial` (uec.cpp:213 starts both at 10^8); the lists are untouched. */
    public void open(int conn, int initial) {
        open[conn] = true;
        highest[conn] = initial;
        latest[conn] = initial;
    }

    /** Close: the connection's list entries are dropped when the engine reaches them. Returns whether it was open. */
    public Effect close(int conn) {
        if (!inRange(conn)) {
            return Effect.OUT_OF_RANGE;
        }
        if (!open[conn]) {
            return Effect.NOT_OPEN;
        }
        open[conn] = false;
        return Effect.NONE;
    }

    /**
     * A tick of the active list's head (uec.cpp:3071-3087 and UecSink::pull 2930-2936): the latest
     * pull grows by up to `credit` quanta but not above the highest target, never backwards; with a
     * target left the connection goes to the tail, else to the idle list (once).
     */
    public Tick tickActive(int conn, int credit) {
        if (!open[conn]) {
            onActive[conn] = false;
            return new Tick(false, 0, 0, false, false, false, true);
        }
        int l = latest[conn];
        int h = highest[conn];
        int plusCredit = l + credit;
        if (ahead(h, plusCredit)) {
            latest[conn] = plusCredit;
            return new Tick(true, plusCredit, credit, false, true, false, false);
        }
        int next = ahead(h, l) ? h : l;
        latest[conn] = next;
        onActive[conn] = false;
        boolean toIdle = !onIdle[conn];
        onIdle[conn] = true;
        return new Tick(true, next, next - l, false, false, toIdle, false);
    }

    /**
     * A tick of the idle list's head when the active list is empty (uec.cpp:3090-3114): a slow pull of
     * `credit` quanta beyond the target; the connection stays idle while it has no target left and its
     * excess stays below `maxwnd` quanta.
     */
    public Tick tickIdle(int conn, int credit, int maxwnd) {
        if (!open[conn]) {
            onIdle[conn] = false;
            return new Tick(false, 0, 0, true, false, false, true);
        }
        int plusCredit = latest[conn] + credit;
        latest[conn] = plusCredit;
        int h = highest[conn];
        boolean stays = !ahead(h, plusCredit) && ahead(h, plusCredit - maxwnd);
        onIdle[conn] = stays;
        return new Tick(true, plusCredit, credit, true, false, stays, false);
    }
}
