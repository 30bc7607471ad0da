package uehw.sim.smartt;

import uehw.hw.smartt.Smartt;
import uehw.hw.smartt.SmarttConfig;
import uehw.hw.smartt.SmarttEvent;
import uehw.hw.smartt.SmarttUpdate;
import uehw.hw.window.WindowUnitIo;
import uehw.sim.AxiLite4Master;
import uehw.sim.InOrderScoreboard;
import uehw.sim.StreamMonitor;
import uehw.sim.TimedEventBench;
import uehw.sim.facade.Sim;
import uehw.sim.smartt.SmarttFixedModel.Event;
import uehw.sim.smartt.SmarttFixedModel.Rule;
import uehw.sim.smartt.SmarttFixedModel.Update;

/**
 * Drives a Smartt DUT next to a SmarttFixedModel: each event the DUT accepts goes to the model
 * with the `now` the DUT sampled, and every update and retransmit request the DUT emits is checked
 * against the model's, in order. `now` advances each clock by a caller-chosen step.
 */
public final class SmarttBench extends TimedEventBench<Event> {
    /** A retransmit request. */
    public record Retransmit(int flow, boolean timeout) {
    }

    public final WindowUnitIo<SmarttEvent, SmarttUpdate> io;
    public final SmarttConfig cfg;
    public final SmarttFixedModel model;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<Update> updates = new InOrderScoreboard<>("smartt updates");
    public final InOrderScoreboard<Retransmit> retransmits = new InOrderScoreboard<>("smartt retransmits");
    private final StreamMonitor<Update> updateMonitor;
    private final StreamMonitor<Retransmit> retransmitMonitor;

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
        super(sim, sim.dut().io().event().valid(), sim.dut().io().event().ready(), (s, e) -> {
            var in = sim.dut().io().event().payload();
            s.poke(in.flow(), (long) e.flow());
            s.poke(in.kind(), (long) e.kind().ordinal());
            s.poke(in.size(), (long) e.size());
            s.poke(in.rtt(), e.rtt());
            s.poke(in.ecn(), e.ecn());
            s.poke(in.unacked(), e.unacked());
        }, sim.dut().io().now());
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = modelOf(cfg);
        clock(t -> t + 4);
        var u = io.update().payload();
        updateMonitor = StreamMonitor.passive(sim, io.update().valid(), null, s -> new Update(
                (int) s.peek(u.flow()), s.peek(u.cwnd()), Rule.values()[(int) s.peek(u.rule())], false),
                updates::actual);
        var r = io.retransmit().payload();
        retransmitMonitor = StreamMonitor.passive(sim, io.retransmit().valid(), null,
                s -> new Retransmit((int) s.peek(r.flow()), s.peekBool(r.timeout())), retransmits::actual);
        sim.poke(io.cwndQuery().valid(), false);
        this.csr = new AxiLite4Master(sim, io.ctrl());
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

    @Override
    protected void afterEdge() {
        updateMonitor.afterEdge();
        retransmitMonitor.afterEdge();
    }

    @Override
    protected long pending() {
        return updates.pending() + retransmits.pending();
    }

    /** Clocks until every pushed event was taken and its update came out; returns the clocks. */
    public long drain() {
        long clocks = drain(Smartt.latency());   // and then nothing more may come out
        updates.assertEmpty();
        retransmits.assertEmpty();
        return clocks;
    }

    /** Waits for the reset sweep and the 1/BDP division. */
    public void waitReady() {
        for (int i = 0; i < cfg.flows() + 200; i++) {
            if ((csr.read(SmarttCsr.STATUS) & 3) == 1) {
                return;
            }
        }
        throw new AssertionError("STATUS never showed INIT_DONE without DIVIDING");
    }

    public long counter(int address) {
        return csr.read(address);
    }

    /** The window of a flow through the query port (bytes). */
    public long queryCwnd(int flow) {
        sim.poke(io.cwndQuery().valid(), true);
        sim.poke(io.cwndQuery().payload(), (long) flow);
        sim.step();
        sim.poke(io.cwndQuery().valid(), false);
        sim.step();
        if (!sim.peekBool(io.cwndReply().valid()) || sim.peek(io.cwndReply().payload().flow()) != flow) {
            throw new AssertionError("no reply to a window query for flow " + flow);
        }
        return sim.peek(io.cwndReply().payload().cwnd());
    }

    /** Writes the CSRs from model parameters (pipeline drained) and waits for the divider. */
    public void writeParams(SmarttParams p) {
        csr.write(SmarttCsr.CONTROL, (p.trimming ? 1 : 0) | (p.wtdEnable ? 2 : 0) | (p.unackedFromWindow ? 4 : 0));
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
        sim.step(4); // the derived values are registered
        waitReady();
        SmarttParams m = model.p;
        m.trimming = p.trimming;
        m.wtdEnable = p.wtdEnable;
        m.unackedFromWindow = p.unackedFromWindow;
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
