// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/**
 * A host NIC's congestion windows, one per local flow: the SMaRTT model today, the Verilated RTL
 * or another law (Swift) behind the same calls. Windows are in bytes.
 */
public interface WindowControl {
    enum Signal { ACK, NACK, TIMEOUT }

    /** A new flow; returns its first window. */
    long init(int flow, long nowNs);

    /** One ACK, NACK (a trimmed packet) or timeout of the flow; returns the window after it. */
    long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, long nowNs);

    /** The same with the data packet's forward hop count (switches it crossed; a law that scales by it overrides this). */
    default long apply(int flow, Signal signal, int payloadBytes, long rttNs, boolean ecn, long unackedBytes, int hops,
                       long nowNs) {
        return apply(flow, signal, payloadBytes, rttNs, ecn, unackedBytes, nowNs);
    }

    /** The gap the flow's next packet must keep after this one, in ns (Swift paces below one packet); 0: none. */
    default long pacingNs(int flow) {
        return 0;
    }
}
