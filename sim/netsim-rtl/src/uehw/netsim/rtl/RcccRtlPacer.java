// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.function.Supplier;

import uehw.bench.Simulation;
import uehw.bench.csr.RcccPacerCsr;
import uehw.bench.rccc.RcccPacerBench;
import uehw.hw.rccc.RcccPacer;
import uehw.hw.rccc.RcccPacerConfig;
import uehw.model.rccc.OversubscribedCcClocked.Arrival;
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
    private Arrival next;

    /** The block as the network simulator runs it (its clock period: the bench's CLOCK_PS). */
    public static Simulation<RcccPacer> simulation(RcccPacerConfig cfg) {
        return Simulation.compile(RcccRtlPacer.class, "rccc_pacer_" + cfg.connections() + (cfg.oversubscribedCc() ? "_occ" : ""),
                () -> new RcccPacer(cfg));
    }

    /**
     * Pacers on one RTL instance: the first node of a network to receive a connection gets it,
     * reset by a new bench from {@code benches} and its settings written from the transport's (time
     * per quantum, credit per pull, maxwnd in quanta) and CLOCK_PS = {@code clockPs}; a second
     * receiving node in the same network is refused (one block, one node).
     */
    public static PullPacer.Factory factory(Supplier<RcccPacerBench> benches, long clockPs) {
        EventLoop[] served = new EventLoop[1];
        return (host, loop, s, sendPull, running) -> new ClockedPullPacer(loop, clockPs, () -> {
            if (served[0] == loop) {
                throw new IllegalStateException("host " + host + " is a second receiving node: the RTL pacer serves one");
            }
            served[0] = loop;
            RcccPacerBench b = benches.get();
            RcccPacerConfig c = b.cfg;
            // only the settings that differ from the generation's reset values are written: the controller's intervals run
            // from the first edge, and the model's run (ClockedPullPacer.model) has no setup edges
            setting(b, RcccPacerCsr.PS_PER_QUANTUM, c.psPerQuantum(), s.psPerQuantum());
            setting(b, RcccPacerCsr.CLOCK_PS, c.clockPs(), clockPs);
            setting(b, RcccPacerCsr.CREDIT_PER_PULL, c.creditPerPull(), s.creditPerPull());
            setting(b, RcccPacerCsr.MAXWND_QUANTA, c.maxwndQuanta(), s.configuredMaxwnd() >> 8);
            if (s.oversubscribedCcRttPs() > 0) {
                if (!c.oversubscribedCc() || c.occSeed() != ClockedPullPacer.OCC_SEED) {
                    throw new IllegalStateException("the settings' oversubscription controller needs the block's option at occ-seed "
                            + ClockedPullPacer.OCC_SEED);
                }
                setting(b, RcccPacerCsr.OCC_PERIOD_CLOCKS, c.occPeriodClocks(), ClockedPullPacer.occPeriodClocks(s, clockPs));
                setting(b, RcccPacerCsr.OCC_MIN_RATE, c.occMinRate(), ClockedPullPacer.occMinRate(s));
            }
            return new RcccRtlPacer(b);
        }, sendPull, s.oversubscribedCcRttPs() > 0 ? running : null);
    }

    private static void setting(RcccPacerBench b, int address, long resetValue, long value) {
        if (value != resetValue) {
            b.write(address, value);
        }
    }

    public RcccRtlPacer(RcccPacerBench bench) {
        this.bench = bench;
        if (bench.io.arrival() != null) {
            bench.arrivals(() -> next);
        }
    }

    public RcccPacerBench bench() {
        return bench;
    }

    @Override
    public int connections() {
        return bench.cfg.connections();
    }

    @Override
    public boolean step(Event offered, Arrival arrival) {
        next = arrival;
        if (offered != null && !pushed) {
            bench.push(offered);   // presented from this edge (the bench's driver never idles)
            pushed = true;
        }
        long taken = bench.eventsTaken();
        int pulls = bench.pulls.size();
        bench.step();
        next = null;   // presented at this edge only
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
