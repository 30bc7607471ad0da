// SPDX-License-Identifier: Apache-2.0
package uehw.sim.smartt;

import uehw.hw.smartt.Smartt;
import uehw.hw.smartt.SmarttConfig;
import uehw.hw.smartt.SmarttEvent;
import uehw.hw.smartt.SmarttUpdate;
import uehw.sim.WindowUnitBench;
import uehw.sim.facade.Sim;
import uehw.sim.smartt.SmarttFixedModel.Event;
import uehw.sim.smartt.SmarttFixedModel.Rule;
import uehw.sim.smartt.SmarttFixedModel.Update;

/**
 * Drives a Smartt DUT next to a SmarttFixedModel: each event the DUT accepts goes to the model
 * with the `now` the DUT sampled, and every update and retransmit request the DUT emits is checked
 * against the model's, in order. `now` advances each clock by a caller-chosen step.
 */
public final class SmarttBench extends WindowUnitBench<Event, SmarttEvent, SmarttUpdate, Update> {
    public final SmarttConfig cfg;
    public final SmarttFixedModel model;

    /** The model's parameters for a configuration's CSR reset values. */
    public static SmarttParams paramsOf(SmarttConfig cfg) {
        SmarttParams p = new SmarttParams();
        p.mtu = cfg.mtu();
        p.bdp = cfg.bdp();
        p.maxCwnd = cfg.maxCwnd();
        p.initCwnd = cfg.bdp();
        p.baseRtt = cfg.baseRttNs();
        p.fi = SmarttParams.gain(0.25 * cfg.gamma());
        p.mi = SmarttParams.gain(2.0 * cfg.gamma());
        p.fastIncreaseCloseness = 2L * cfg.mtu() * 8 / cfg.linkGbps();
        return p;
    }

    public static SmarttFixedModel modelOf(SmarttConfig cfg) {
        return new SmarttFixedModel(cfg.flows(), cfg.byteWidth(), cfg.timeWidth(), cfg.recipIndexBits(),
                cfg.recipValueBits(), paramsOf(cfg));
    }

    public SmarttBench(Sim<Smartt> sim) {
        super(sim, "smartt", Smartt.latency(), (s, e) -> {
            var in = sim.dut().io().event().payload();
            s.poke(in.flow(), (long) e.flow());
            s.poke(in.kind(), (long) e.kind().ordinal());
            s.poke(in.size(), (long) e.size());
            s.poke(in.rtt(), e.rtt());
            s.poke(in.ecn(), e.ecn());
            s.poke(in.unacked(), e.unacked());
        }, s -> {
            var u = sim.dut().io().update().payload();
            return new Update((int) s.peek(u.flow()), s.peek(u.cwnd()), Rule.values()[(int) s.peek(u.rule())], false);
        });
        this.cfg = sim.dut().cfg();
        this.model = modelOf(cfg);
        clock(t -> t + 4);
        sim.reset(2);
        waitReady();
    }

    @Override
    protected void taken(Event taken, long sampledNow) {
        Event e = new Event(taken.flow(), taken.kind(), taken.size(), taken.rtt(), taken.ecn(), taken.unacked(), sampledNow);
        Update u = model.apply(e);
        if (u != null) {
            updates.expect(new Update(u.flow(), u.cwnd(), u.rule(), false));
            if (u.retransmit()) {
                retransmits.expect(new Retransmit(u.flow(), e.kind() == SmarttFixedModel.Kind.TIMEOUT));
            }
        }
    }

    /** Waits for the reset sweep and the 1/BDP division. */
    public void waitReady() {
        waitStatus(SmarttCsr.STATUS, 3, 1, cfg.flows(), "INIT_DONE without DIVIDING");
    }

    /** Writes the CSRs from model parameters (pipeline drained) and waits for the divider. */
    public void writeParams(SmarttParams p) {
        csr.write(SmarttCsr.CONTROL, (p.trimming ? 1 : 0) | (p.wtdEnable ? 2 : 0) | (p.unackedFromWindow ? 4 : 0)
                | (p.referenceProfile ? 8 : 0));
        csr.write(SmarttCsr.MTU, p.mtu);
        csr.write(SmarttCsr.BDP, p.bdp);
        csr.write(SmarttCsr.MAX_CWND, p.maxCwnd);
        csr.write(SmarttCsr.INIT_CWND, p.initCwnd);
        csr.write(SmarttCsr.BASE_RTT, p.baseRtt);
        csr.write(SmarttCsr.TARGET_RTT_FACTOR, p.targetRttFactor);
        csr.write(SmarttCsr.FD, p.fd);
        csr.write(SmarttCsr.MD, p.md);
        csr.write(SmarttCsr.FI, p.fi);
        csr.write(SmarttCsr.MI, p.mi);
        csr.write(SmarttCsr.QA_SCALING, p.qaScaling);
        csr.write(SmarttCsr.FAST_INCREASE_K, p.fastIncreaseK);
        csr.write(SmarttCsr.FAST_INCREASE_CLOSENESS, p.fastIncreaseCloseness);
        csr.write(SmarttCsr.WTD_ALPHA_SHIFT, p.wtdAlphaShift);
        csr.write(SmarttCsr.WTD_THRESHOLD, p.wtdThreshold);
        for (int i = 0; i < 4; i++) {
            step(); // the derived values are registered
        }
        waitReady();
        SmarttParams m = model.p;
        m.trimming = p.trimming;
        m.wtdEnable = p.wtdEnable;
        m.unackedFromWindow = p.unackedFromWindow;
        m.referenceProfile = p.referenceProfile;
        m.mtu = p.mtu;
        m.bdp = p.bdp;
        m.maxCwnd = p.maxCwnd;
        m.initCwnd = p.initCwnd;
        m.baseRtt = p.baseRtt;
        m.targetRttFactor = p.targetRttFactor;
        m.fd = p.fd;
        m.md = p.md;
        m.fi = p.fi;
        m.mi = p.mi;
        m.qaScaling = p.qaScaling;
        m.fastIncreaseK = p.fastIncreaseK;
        m.fastIncreaseCloseness = p.fastIncreaseCloseness;
        m.wtdAlphaShift = p.wtdAlphaShift;
        m.wtdThreshold = p.wtdThreshold;
    }
}
