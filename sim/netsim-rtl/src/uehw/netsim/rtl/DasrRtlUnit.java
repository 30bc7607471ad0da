// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import uehw.bench.dart.DasrBench;
import uehw.model.dart.DasrEvent;
import uehw.model.dart.DasrModel;
import uehw.netsim.DasrUnit;

/**
 * Hardware in the loop: a receiver's DASR from the Verilated dart-dasr RTL. Each packet (or
 * look-ahead sender) is driven on io_event with io_now = the network's time, the unit is clocked
 * until its reply came out, and the reply the network uses is the RTL's. The bench checks every
 * reply against its own model as it goes.
 */
public final class DasrRtlUnit implements DasrUnit {
    private final DasrBench bench;
    public long events;
    public long clocks;

    public DasrRtlUnit(DasrBench bench) {
        this.bench = bench;
        bench.clock(t -> t); // `now` is the network's, set per event
    }

    @Override
    public DasrModel.Reply packet(int sender, boolean first, boolean last, boolean announced, boolean ecn, int bytes, long nowNs) {
        bench.setNow(nowNs);
        bench.push(DasrEvent.packet(sender, first, last, announced, ecn, Math.min(bytes, 65535)));
        clocks += bench.drain(0);   // no settling clocks: the pipeline forwards to the next event
        events++;
        return new DasrModel.Reply(bench.lastReply.n(), bench.lastReply.ecnPass());
    }

    @Override
    public void lookAhead(int group, int[] senders, long nowNs) {
        bench.setNow(nowNs);
        for (int i = 0; i < senders.length; i++) {
            bench.push(DasrEvent.lookAhead(group, senders[i], i == 0));
        }
        clocks += bench.drain(0);
        events += senders.length;
    }
}
