// SPDX-License-Identifier: Apache-2.0
package uehw.bench.smartt;

import java.util.LinkedHashMap;
import java.util.Map;

import uehw.bench.WindowUnitBench;
import uehw.bench.csr.SmarttCsr;
import uehw.bench.facade.Sim;
import uehw.hw.smartt.Smartt;
import uehw.hw.smartt.SmarttConfig;
import uehw.hw.smartt.SmarttEvent;
import uehw.hw.smartt.SmarttUpdate;
import uehw.model.smartt.SmarttFixedModel;
import uehw.model.smartt.SmarttFixedModel.Event;
import uehw.model.smartt.SmarttFixedModel.Rule;
import uehw.model.smartt.SmarttFixedModel.Update;
import uehw.model.smartt.SmarttParams;

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
        sim.reset(16);
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

    /** The CSR image of a parameter set: address -> value, in the order writeParams writes them. */
    public static Map<Integer, Long> csrImage(SmarttParams p) {
        Map<Integer, Long> image = new LinkedHashMap<>();
        image.put(SmarttCsr.CONTROL, (long) ((p.trimming ? 1 : 0) | (p.wtdEnable ? 2 : 0) | (p.unackedFromWindow ? 4 : 0)
                | (p.referenceProfile ? 8 : 0)));
        image.put(SmarttCsr.MTU, (long) p.mtu);
        image.put(SmarttCsr.BDP, p.bdp);
        image.put(SmarttCsr.MAX_CWND, p.maxCwnd);
        image.put(SmarttCsr.INIT_CWND, p.initCwnd);
        image.put(SmarttCsr.BASE_RTT, p.baseRtt);
        image.put(SmarttCsr.TARGET_RTT_FACTOR, (long) p.targetRttFactor);
        image.put(SmarttCsr.FD, (long) p.fd);
        image.put(SmarttCsr.MD, (long) p.md);
        image.put(SmarttCsr.FI, (long) p.fi);
        image.put(SmarttCsr.MI, (long) p.mi);
        image.put(SmarttCsr.QA_SCALING, (long) p.qaScaling);
        image.put(SmarttCsr.FAST_INCREASE_K, (long) p.fastIncreaseK);
        image.put(SmarttCsr.FAST_INCREASE_CLOSENESS, p.fastIncreaseCloseness);
        image.put(SmarttCsr.WTD_ALPHA_SHIFT, (long) p.wtdAlphaShift);
        image.put(SmarttCsr.WTD_THRESHOLD, (long) p.wtdThreshold);
        return image;
    }

    /** The model side of one CSR write: the fields behind {@code address} taken from {@code from}. */
    static void takeRegister(SmarttParams m, int address, SmarttParams from) {
        switch (address) {
            case SmarttCsr.CONTROL -> {
                m.trimming = from.trimming;
                m.wtdEnable = from.wtdEnable;
                m.unackedFromWindow = from.unackedFromWindow;
                m.referenceProfile = from.referenceProfile;
            }
            case SmarttCsr.MTU -> m.mtu = from.mtu;
            case SmarttCsr.BDP -> m.bdp = from.bdp;
            case SmarttCsr.MAX_CWND -> m.maxCwnd = from.maxCwnd;
            case SmarttCsr.INIT_CWND -> m.initCwnd = from.initCwnd;
            case SmarttCsr.BASE_RTT -> m.baseRtt = from.baseRtt;
            case SmarttCsr.TARGET_RTT_FACTOR -> m.targetRttFactor = from.targetRttFactor;
            case SmarttCsr.FD -> m.fd = from.fd;
            case SmarttCsr.MD -> m.md = from.md;
            case SmarttCsr.FI -> m.fi = from.fi;
            case SmarttCsr.MI -> m.mi = from.mi;
            case SmarttCsr.QA_SCALING -> m.qaScaling = from.qaScaling;
            case SmarttCsr.FAST_INCREASE_K -> m.fastIncreaseK = from.fastIncreaseK;
            case SmarttCsr.FAST_INCREASE_CLOSENESS -> m.fastIncreaseCloseness = from.fastIncreaseCloseness;
            case SmarttCsr.WTD_ALPHA_SHIFT -> m.wtdAlphaShift = from.wtdAlphaShift;
            case SmarttCsr.WTD_THRESHOLD -> m.wtdThreshold = from.wtdThreshold;
            default -> throw new IllegalArgumentException("not a parameter CSR: 0x" + Integer.toHexString(address));
        }
    }

    /**
     * docs/smartt.md, "CSR writes": an event accepted at edge k that waited w clocks in stage 0 reads
     * the old value in every stage when k + w <= h - 18, the new one in every stage when k >= h + 2.
     */
    public static final int CSR_OLD_UP_TO = 18;
    public static final int CSR_NEW_FROM = 2;

    /**
     * One parameter register written among the events (WindowUnitBench.writeAmongEvents), its value
     * taken from {@code from}: no event is accepted from h - 16 - L (an event accepted before may wait
     * up to L - 1 clocks) to h + 1; BDP's new reciprocal is used from h + 3 ("one accepted at
     * h + 3 waits in stage 0 and uses the new").
     */
    public void writeRegisterAmongEvents(java.util.Random random, int address, SmarttParams from) {
        long value = csrImage(from).get(address);
        int quiet = CSR_OLD_UP_TO + cfg.sameFlowSpacing() - 2;
        writeAmongEvents(random, quiet, address, value, address == SmarttCsr.BDP ? 3 : CSR_NEW_FROM,
                () -> takeRegister(model.p, address, from));
    }

    /** Writes the CSRs from model parameters (pipeline drained) and waits for the divider. */
    public void writeParams(SmarttParams p) {
        csrImage(p).forEach(csr::write);
        for (int i = 0; i < 6; i++) {
            step(); // the derived values are registered
        }
        waitReady();
        csrImage(p).keySet().forEach(a -> takeRegister(model.p, a, p));
    }
}
