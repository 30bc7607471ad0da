// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

/**
 * A host NIC's entropy (path) choice per local flow: the REPS model today, the RTL behind the
 * same calls. The entropy a data packet carries is hashed by the switches' ECMP.
 */
public interface EntropyControl {
    void init(int flow, long nowNs);

    /** The entropy of the flow's next data packet. */
    int next(int flow, long nowNs);

    /** An ACK (or a NACK: trimmed) came back for a packet sent with {@code entropy}. */
    void feedback(int flow, int entropy, boolean ecn, boolean trimmed, long nowNs);

    /** A packet sent with this flow timed out (reps.txt Alg. 1 onFailureDetection). */
    void failure(int flow, long nowNs);
}
