// SPDX-License-Identifier: Apache-2.0
package uehw.model.reps;

import uehw.model.Counters;
import uehw.model.Xorshift32;

/**
 * Golden model of the REPS entropy cache, written from the papers:
 * mode "reps" is reps.txt Sec. 3 Alg. 1 (onAck, onFailureDetection) and Alg. 2 (onSend,
 * getNextEntropy); "reps-lite" is smartt-reps.txt Alg. 4; "ops" sprays a random EV per packet.
 * Random EVs come from the same xorshift32 and multiply-high map as the hardware, so results
 * compare bit-exactly. One {@link #clock} call is one hardware clock: the control event
 * (ACK, failure or init) is applied before the send of the same clock.
 */
public final class RepsModel {
    /**
     * Random EVs are scaled from the draw's top 25 bits: ((r >> 7) * EVS_SIZE) >> 25, one 27 x 18
     * DSP in hardware (uehw.hw.reps.Reps.drawBits); uniform within a bias of EVS_SIZE / 2^25.
     */
    public static final int DRAW_BITS = 25;

    public enum Mode {
        REPS("reps"), LITE("reps-lite"), OPS("ops");
        public final String id;
        Mode(String id) {
            this.id = id;
        }
        public static Mode of(String id) {
            for (Mode m : values()) {
                if (m.id.equals(id)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown mode " + id);
        }
    }

    public enum CtrlKind { ACK, FAILURE, INIT }

    /** A control-port event. */
    public record Ctrl(CtrlKind kind, long conn, long ev, boolean ecn, boolean trimmed) {
        public static Ctrl ack(long conn, long ev, boolean ecn, boolean trimmed) {
            return new Ctrl(CtrlKind.ACK, conn, ev, ecn, trimmed);
        }
        public static Ctrl failure(long conn) {
            return new Ctrl(CtrlKind.FAILURE, conn, 0, false, false);
        }
        public static Ctrl init(long conn) {
            return new Ctrl(CtrlKind.INIT, conn, 0, false, false);
        }
    }

    /** What a send returns. */
    public record SendResult(long conn, long ev, boolean explored, boolean replayed, boolean outOfRange) {
    }

    /** Per-connection state, as reps.txt Alg. 1 l.1-3 (reps) or Alg. 4 l.1-3 (reps-lite). */
    private static final class Conn {
        long[] cachedEv;
        boolean[] isValid;
        int head;
        int replay;
        int filled;
        boolean freezing;
        long exitFreezing;
        int explore;
        // reps-lite
        long cached;
        long next;
        boolean triedAll;
        int sent;
    }

    public final Mode mode;
    public final int connections;
    public final int bufferEntries;
    public final int evWidth;
    public final int timeWidth;
    public final int exploreWidth;
    private final Conn[] conns;
    private final Xorshift32 prng;

    private long freezingTimeout;
    private int numPktsBdp;
    private long evsSize;

    // Counters, as the CSRs of the same names.
    /** The events counted, by the name of the block's count register (docs: its CSR table). */
    public final Counters counters = new Counters("SENDS", "SENDS_EXPLORED", "SENDS_RECYCLED", "SENDS_REPLAYED", "ACKS", "ACKS_RECYCLED", "ACKS_MARKED", "FAILURES", "FREEZE_ENTER", "FREEZE_EXIT", "INITS", "OOR_SEND", "OOR_CTRL");

    public RepsModel(Mode mode, int connections, int bufferEntries, int evWidth, int timeWidth, int exploreWidth,
                     long freezingTimeout, int numPktsBdp, long evsSize, long seed) {
        this.mode = mode;
        this.connections = connections;
        this.bufferEntries = bufferEntries;
        this.evWidth = evWidth;
        this.timeWidth = timeWidth;
        this.exploreWidth = exploreWidth;
        this.conns = new Conn[connections];
        this.prng = new Xorshift32(seed);
        this.freezingTimeout = freezingTimeout;
        this.numPktsBdp = numPktsBdp;
        setEvsSize(evsSize);
        for (int c = 0; c < connections; c++) {
            conns[c] = fresh();
        }
    }

    public void setFreezingTimeout(long t) {
        freezingTimeout = t & mask(timeWidth);
    }

    public void setNumPktsBdp(int n) {
        numPktsBdp = (int) (n & mask(exploreWidth));
    }

    /** 0 or anything above 2^e means 2^e (as the EVS_SIZE CSR). */
    public void setEvsSize(long size) {
        long full = 1L << evWidth;
        long s = size & mask(evWidth + 1);
        evsSize = (s == 0 || s > full) ? full : s;
    }

    public void reseed(long seed) {
        prng.reseed(seed);
    }

    private static long mask(int bits) {
        return bits >= 64 ? -1L : (1L << bits) - 1;
    }

    /** A new or re-initialised connection: nothing cached, explore the first BDP. */
    private Conn fresh() {
        Conn c = new Conn();
        c.cachedEv = new long[bufferEntries];
        c.isValid = new boolean[bufferEntries];
        c.explore = numPktsBdp;
        return c;
    }

    public boolean freezing(int conn) {
        return conns[conn].freezing;
    }

    /** One clock: the control event (or null) and then the send (conn, or -1 for none). */
    public SendResult clock(Ctrl ctrl, long sendConn, long now) {
        if (ctrl != null) {
            control(ctrl, now);
        }
        return sendConn < 0 ? null : send(sendConn);
    }

    private void control(Ctrl e, long now) {
        if (e.conn() >= connections) {
            counters.inc("OOR_CTRL");
            return;
        }
        Conn c = conns[(int) e.conn()];
        switch (e.kind()) {
            case INIT -> {
                counters.inc("INITS");
                conns[(int) e.conn()] = fresh();
            }
            case FAILURE -> {
                counters.inc("FAILURES");
                // reps.txt Alg. 1 l.21-25
                if (mode == Mode.REPS && !c.freezing && c.explore == 0) {
                    c.freezing = true;
                    c.exitFreezing = (now + freezingTimeout) & mask(timeWidth);
                    counters.inc("FREEZE_ENTER");
                }
            }
            case ACK -> {
                counters.inc("ACKS");
                boolean marked = e.ecn() || e.trimmed();
                if (marked) {
                    counters.inc("ACKS_MARKED");
                }
                switch (mode) {
                    case REPS -> onAckReps(c, e, marked, now);
                    case LITE -> {
                        if (marked) { // smartt-reps.txt Alg. 4 l.13-14
                            c.cached = c.next;
                            advanceLite(c);
                        } else { // Alg. 4 l.16
                            c.cached = e.ev();
                            counters.inc("ACKS_RECYCLED");
                        }
                    }
                    case OPS -> { }
                }
            }
        }
    }

    private void onAckReps(Conn c, Ctrl e, boolean marked, long now) {
        if (marked) { // Alg. 1 l.6-8
            return;
        }
        counters.inc("ACKS_RECYCLED");
        if (!c.isValid[c.head]) { // Alg. 1 l.9-11 (numberValidEVs is the count of valid bits)
            c.isValid[c.head] = true;
        }
        c.cachedEv[c.head] = e.ev(); // l.12-13
        c.head = (c.head + 1) % bufferEntries; // l.14
        c.filled = Math.min(c.filled + 1, bufferEntries);
        // l.15-18: now() > exitFreezingMode, compared modulo 2^timeWidth
        if (c.freezing && modularAfter(now, c.exitFreezing)) {
            c.freezing = false;
            c.explore = numPktsBdp;
            counters.inc("FREEZE_EXIT");
        }
    }

    /**
     * now is after then, modulo 2^timeWidth: then - now is negative as a timeWidth-bit signed
     * number (serial-number arithmetic; a gap of exactly 2^(timeWidth-1) counts as after).
     */
    private boolean modularAfter(long now, long then) {
        return ((then - now) & mask(timeWidth)) >= (1L << (timeWidth - 1));
    }

    private void advanceLite(Conn c) {
        if (c.next + 1 >= evsSize) {
            c.next = 0;
            c.triedAll = true;
        } else {
            c.next++;
        }
    }

    private SendResult send(long connId) {
        if (connId >= connections) {
            counters.inc("OOR_SEND");
            return new SendResult(connId, 0, false, false, true);
        }
        counters.inc("SENDS");
        Conn c = conns[(int) connId];
        long ev;
        boolean explored;
        boolean replayed = false;
        switch (mode) {
            case OPS -> {
                ev = prng.nextScaledTop(evsSize, DRAW_BITS);
                explored = true;
            }
            case LITE -> {
                explored = c.sent < numPktsBdp && !c.triedAll; // Alg. 4 l.5
                if (explored) {
                    ev = c.next;
                    advanceLite(c);
                } else {
                    ev = c.cached;
                }
                if (c.sent < (1 << exploreWidth) - 1) {
                    c.sent++;
                }
            }
            default -> {
                int numValid = 0;
                for (boolean v : c.isValid) {
                    numValid += v ? 1 : 0;
                }
                // Alg. 2 l.15-17
                explored = c.filled == 0 || (numValid == 0 && !c.freezing) || c.explore != 0;
                if (explored) {
                    ev = prng.nextScaledTop(evsSize, DRAW_BITS);
                    c.explore = Math.max(c.explore - 1, 0);
                } else if (numValid > 0) { // getNextEntropy, l.3-6
                    int offset = Math.floorMod(c.head - numValid, bufferEntries);
                    c.isValid[offset] = false;
                    ev = c.cachedEv[offset];
                } else { // l.7-9: freezing, replay the cached EVs round-robin
                    ev = c.cachedEv[c.replay];
                    c.replay = (c.replay + 1) % c.filled;
                    replayed = true;
                }
            }
        }
        if (explored) {
            counters.inc("SENDS_EXPLORED");
        } else {
            counters.inc("SENDS_RECYCLED");
        }
        if (replayed) {
            counters.inc("SENDS_REPLAYED");
        }
        return new SendResult(connId, ev, explored, replayed, false);
    }
}
