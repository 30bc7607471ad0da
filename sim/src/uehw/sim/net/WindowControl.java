package uehw.sim.net;

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
}
