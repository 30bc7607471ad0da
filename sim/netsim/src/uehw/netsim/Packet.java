// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/**
 * A packet of the network simulator: a data packet of a flow, or the receiver's ACK or NACK of
 * one. Sizes are wire bytes (headers included). A data packet trimmed by a port keeps only its
 * header and is marked {@code trimmed}; the receiver answers it with a NACK (smartt-reps.txt Sec. 2.1).
 */
public final class Packet {
    public enum Kind { DATA, ACK, NACK, PULL }

    public final Kind kind;
    /** Global flow id (Network.flows index). */
    public final int flow;
    public final int src;
    public final int dst;
    /** Byte offset of the data in its flow (echoed by the ACK/NACK). */
    public final long seq;
    /** Payload bytes the packet carries (data) or acknowledges (ACK/NACK). */
    public final int payload;
    /** The entropy value the data packet was sent with (echoed by the ACK/NACK, reps.txt Alg. 1). */
    public final int entropy;
    /** When the data packet left its sender, in ps (echoed: the RTT sample). */
    public final long sentAtPs;
    public int bytes;
    /** Congestion Experienced, set by a port's RED at dequeue. */
    public boolean ce;
    /** The header of a trimmed data packet. */
    public boolean trimmed;
    /** An ACK's echo of the data packet's CE. */
    public final boolean ecnEcho;
    /** Switches a data packet crossed (a TTL difference); an ACK/NACK carries its data packet's. */
    public int hops;
    /** A data packet starts / ends its message (RDMA's markers, dart.txt Sec. III-B). */
    public boolean first, last;
    /** The incast group a message's first packet announces (dart.txt Sec. III-D look-ahead): its senders (or null) and id. */
    public int[] lookAhead;
    public int lookAheadGroup;
    /** The message was announced by a look-ahead. */
    public boolean announced;
    /** An ACK's DASR sender count n (dart.txt Sec. III-A); 0 from a receiver without DASR. */
    public int n;
    /** Deflection tokens left (dart.txt Sec. IV-A: a misroute takes one; long flows carry none). */
    public int tokens;
    /** Switches that deflected this packet (Dart's IOFD). */
    public int deflections;
    /** A data packet sent again (after a NACK or a timeout). */
    public boolean retransmission;

    // The reference's transport (UecTransport; uet-htsim uecpacket.h), unused by the per-packet profile.
    /** A data packet's PSN (its packet index in the flow); an ACK's or NACK's triggering PSN. */
    public long psn = -1;
    /** A data packet asks for an ACK at once (uec.cpp:2090, 2147). */
    public boolean ackRequest;
    /** An ACK's cumulative ACK (the next PSN the receiver expects) and its cumulative received wire bytes. */
    public long cumulativeAck, recvdBytes;
    /** The PSNs an ACK acknowledges selectively: the receiver's arrivals since its last ACK (the SACK bitmap's news). */
    public long[] selective;
    /** An ACK echoes that its triggering packet was a retransmission (rtx_echo, uec.cpp:891-902). */
    public boolean rtxEcho;
    /** RCCC: a data packet's cumulative pull target, a PULL's cumulative pull number (256 B quanta), a slow pull. */
    public long pullTarget, pullNumber;
    public boolean slowPull;
    /** A trimmed data packet was trimmed by the port that delivers to its receiver; a NACK echoes it (uec.cpp:2750). */
    public boolean trimmedAtLastHop;

    public Packet(Kind kind, int flow, int src, int dst, long seq, int payload, int entropy, long sentAtPs, int bytes,
                  boolean ecnEcho) {
        this.kind = kind;
        this.flow = flow;
        this.src = src;
        this.dst = dst;
        this.seq = seq;
        this.payload = payload;
        this.entropy = entropy;
        this.sentAtPs = sentAtPs;
        this.bytes = bytes;
        this.ecnEcho = ecnEcho;
    }

    /** ACKs, NACKs and trimmed headers take a port's strict-priority queues. */
    public boolean control() {
        return kind != Kind.DATA || trimmed;
    }
}
