// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/** One flow (a message of {@code bytes}) from src to dst, and its sender's state. */
public final class Flow {
    public final int id;
    public final int src;
    public final int dst;
    public final long bytes;
    public final long startNs;
    /** The flow's index at its sender's NIC (its window and entropy state there). */
    public final int local;

    boolean started;
    long nextNew;
    final ArrayDeque<Long> resend = new ArrayDeque<>();
    long inFlight;
    final Map<Long, Long> outstanding = new HashMap<>(); // seq -> send time (ps)
    /** Bytes ACKed so far. */
    public long acked;
    /** Paced: the flow sends again from this time (ps). */
    long nextSendPs;
    /** The last n its receiver's DASR sent (dart.txt Sec. III-A): the flow sends at line rate / n. */
    public int dasrN = 1;
    /** The incast group this message announces (look-ahead): its senders (or null) and id; set before it starts. */
    public int[] lookAhead;
    public int lookAheadGroup;

    /** Deflection tokens of the flow's data packets (dart.txt Sec. IV-A: 4 for short messages, 0 for long flows). */
    public int tokens;
    /** First transmissions that reached the receiver behind a later packet of the flow (out of order). */
    public long reordered;
    /** Data packets of the flow some switch deflected. */
    public long deflectedPackets;
    /** The highest sequence that reached the receiver in a first transmission. */
    long highestArrived = -1;
    /** The receiver's cumulative received wire bytes of the flow (an engine NIC's ACKs carry it). */
    long receivedWire;

    public long cwnd, minCwnd;
    public long finishedPs = -1;
    public long nacks, timeouts, stale, packetsSent;

    Flow(int id, int src, int dst, long bytes, long startNs, int local) {
        this.id = id;
        this.src = src;
        this.dst = dst;
        this.bytes = bytes;
        this.startNs = startNs;
        this.local = local;
    }

    boolean hasData() {
        return !resend.isEmpty() || nextNew < bytes;
    }

    public boolean finished() {
        return finishedPs >= 0;
    }

    /** Completion time from the flow's start, in ns. */
    public long fctNs() {
        return finishedPs < 0 ? -1 : finishedPs / 1000 - startNs;
    }
}
