// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import uehw.model.dart.DasrModel;

/**
 * A receiver's DASR unit as the network simulator uses it: the model ({@link DasrModel}) or the
 * Verilated dart-dasr RTL (uehw.netsim.rtl.DasrRtlUnit), which must answer alike.
 */
public interface DasrUnit {
    /** A data packet: the n (and whether its ECN echo passes) its ACK carries. */
    DasrModel.Reply packet(int sender, boolean first, boolean last, boolean announced, boolean ecn, int bytes, long nowNs);

    /** A look-ahead notification of an incast group's senders. */
    void lookAhead(int group, int[] senders, long nowNs);

    /** The golden model as the unit (the model module knows nothing of the network). */
    static DasrUnit of(DasrModel model) {
        return new DasrUnit() {
            @Override
            public DasrModel.Reply packet(int sender, boolean first, boolean last, boolean announced, boolean ecn, int bytes,
                                          long nowNs) {
                return model.packet(sender, first, last, announced, ecn, bytes, nowNs);
            }

            @Override
            public void lookAhead(int group, int[] senders, long nowNs) {
                model.lookAhead(group, senders, nowNs);
            }
        };
    }
}
