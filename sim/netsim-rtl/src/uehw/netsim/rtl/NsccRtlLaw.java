// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import uehw.bench.Simulation;
import uehw.bench.nscc.NsccBench;
import uehw.hw.nscc.Nscc;
import uehw.hw.nscc.NsccConfig;
import uehw.model.nscc.NsccFixedModel.Event;
import uehw.netsim.NsccLaws;
import uehw.netsim.UecTransport;

/**
 * Hardware in the loop: the NICs' NSCC windows from the Verilated `nscc` RTL, as NsccLaws.fixed
 * gives them from the fixed-point model (docs/nscc.md; issue 33 deliverable 5). Each event is
 * driven with io_now = the network's time in ns, the unit is clocked until its update came out,
 * and the window the update carries is the one the network uses. One RTL instance serves every
 * host, host h's flow i being RTL flow h x flowsPerHost + i. The bench checks every update
 * against its own fixed-point model as it goes.
 */
public final class NsccRtlLaw {
    private final NsccBench bench;
    public long events;
    public long clocks;

    /** The block as the network simulator runs it: its default generation (1024 flows, 100 Gb/s, MTU 4150, the 3-tier RTT). */
    public static Simulation<Nscc> simulation(NsccConfig cfg) {
        return Simulation.compile(NsccRtlLaw.class, "nscc_" + cfg.flows(), () -> new Nscc(cfg));
    }

    public NsccRtlLaw(NsccBench bench) {
        this.bench = bench;
        bench.clock(t -> t); // `now` is the network's, set per event
    }

    private long run(Event e) {
        bench.setNow(e.now());
        bench.push(e);
        clocks += bench.drain() + 2;
        events++;
        return bench.updates.lastMatched().cwnd();
    }

    /**
     * Writes INIT_CWND (bytes; 0: maxwnd), the window the flows' INIT events start from, and
     * CONTROL.RECEIVER_CC (RCCC beside NSCC: a last-hop NACK leaves the window) when they differ.
     */
    public void configure(long cwnd, boolean receiverCc) {
        NsccBench.Csrs c = bench.csrs();
        if (c.initCwnd() != cwnd || c.p().receiverCc() != receiverCc) {
            bench.writeCsrs(new NsccBench.Csrs(c.p().withReceiverCc(receiverCc), c.initBaseRtt(), cwnd));
        }
    }

    /** The law of host {@code host}'s NIC, its {@code flows} flows at RTL flows host x flowsPerHost + i. */
    public UecTransport.Law forHost(int host, int flows, int flowsPerHost) {
        int base = host * flowsPerHost;
        if (flows > flowsPerHost || base + flowsPerHost > bench.cfg.flows()) {
            throw new IllegalArgumentException("the RTL holds " + bench.cfg.flows() + " flows, " + flowsPerHost
                    + " a host, not host " + host + "'s " + flows);
        }
        return NsccLaws.applying(e -> run(new Event(base + e.flow(), e.kind(), e.bytes(), e.rttNs(), e.ecn(), e.lastHop(),
                e.rcvWndPen(), e.inFlight(), e.now())));
    }
}
