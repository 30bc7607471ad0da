// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/**
 * A port's queue at the clock instead of the packet-level queue of {@link Port}: the trimming
 * queue's RTL or its model with the RTL's timing (uehw.netsim.rtl.ClockedEgress). The network core
 * knows only this much of it; the port's counters are the queue's to keep.
 */
public interface ClockedQueue {
    /** Makes the queue of {@code port}, whose link carries {@code psPerByte} and arrives {@code latencyPs} later. */
    @FunctionalInterface
    interface Factory {
        ClockedQueue make(Port port, EventLoop loop, double psPerByte, long latencyPs);
    }

    /** A packet to send out of the port. */
    void send(Packet p);

    /** Clocks run so far. */
    long clocks();

    /** The most bytes waiting to enter the queue at once. */
    long inputPeakBytes();

    /** The data bytes in the queue now. */
    long dataBytes();
}
