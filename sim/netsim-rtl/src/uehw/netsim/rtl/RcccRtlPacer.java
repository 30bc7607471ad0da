// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.function.Supplier;

import uehw.bench.Simulation;
import uehw.bench.csr.RcccPacerCsr;
import uehw.bench.rccc.RcccPacerBench;
import uehw.hw.rccc.RcccPacer;
import uehw.hw.rccc.RcccPacerConfig;
import uehw.model.rccc.RcccPacerModel.Event;
import uehw.model.rccc.RcccPacerModel.Pull;
import uehw.netsim.ClockedPullPacer;
import uehw.netsim.EventLoop;
import uehw.netsim.PullPacer;

/**
 * Hardware in the loop: a receiving node's pull pacer is the Verilated `rccc-pacer` (issue 34
 * deliverable 4), clocked by ClockedPullPacer: each edge presents the waiting event and takes the
 * PULL the port hands over. The bench runs the block's model beside it and checks every edge (the
 * event taken, the PULL presented), so a run either follows the RTL exactly or stops at the first
 * edge where RTL and model part; the model also says when the block is settled (nothing in flight,
 * its lead 0), which the RTL shows only through STATUS.
 */
public final class RcccRtlPacer implements ClockedPullPacer.Stepper {
    private final RcccPacerBench bench;
    private boolean pushed;
    private Pull handed;

    /** The block as the network simulator runs it (its clock period: the bench's CLOCK_PS). */
    public static Simulation<RcccPacer> simulation(RcccPacerConfig cfg) {
        return Simulation.compile(RcccRtlPacer.class, "rccc_pacer_" + cfg.connections(), () -> new RcccPacer(cfg));
    }

    /**
     * Pacers on one RTL instance: the first node of a network to receive a connection gets it,
     * reset by a new bench from {@code benches} and its settings written from the transport's (time
     * per quantum, credit per pull, maxwnd in quanta) and CLOCK_PS = {@code clockPs}; a second
     * receiving node in the same network is refused (one block, one node).
     */
    public static PullPacer.Factory factory(Supplier<RcccPacerBench> benches, long clockPs) {
        EventLoop[] served = new EventLoop[1];
        return (host, loop, s, sendPull) -> new ClockedPullPacer(loop, clockPs, () -> {
            if (served[0] == loop) {
                throw new IllegalStateException("host " + host + " is a second receiving node: the RTL pacer serves one");
            }
            served[0] = loop;
            RcccPacerBench b = benches.get();
            b.write(RcccPacerCsr.PS_PER_QUANTUM, s.psPerQuantum());
            b.write(RcccPacerCsr.CLOCK_PS, clockPs);
            b.write(RcccPacerCsr.CREDIT_PER_PULL, s.creditPerPull());
            b.write(RcccPacerCsr.MAXWND_QUANTA, s.configuredMaxwnd() >> 8);
            return new RcccRtlPacer(b);
        }, sendPull);
    }

    public RcccRtlPacer(RcccPacerBench bench) {
        this.bench = bench;
    }

    public RcccPacerBench bench() {
        return bench;
    }

    @Override
    public int connections() {
        return bench.cfg.connections();
    }

    @Override
    public boolean step(Event offered) {
        if (offered != null && !pushed) {
            bench.push(offered);   // presented from this edge (the bench's driver never idles)
            pushed = true;
        }
        long taken = bench.eventsTaken();
        int pulls = bench.pulls.size();
        bench.step();
        handed = bench.pulls.size() > pulls ? bench.pulls.get(pulls).pull() : null;
        if (bench.eventsTaken() > taken) {
            pushed = false;
            return true;
        }
        return false;
    }

    @Override
    public Pull handed() {
        return handed;
    }

    @Override
    public boolean settled() {
        return bench.model.quiet() && bench.model.lead() == 0;
    }
}
