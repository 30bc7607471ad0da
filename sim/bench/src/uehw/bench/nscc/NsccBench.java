// SPDX-License-Identifier: Apache-2.0
package uehw.bench.nscc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import uehw.bench.CounterCheck;
import uehw.bench.WindowUnitBench;
import uehw.bench.csr.NsccCsr;
import uehw.bench.facade.Sim;
import uehw.hw.nscc.Nscc;
import uehw.hw.nscc.NsccConfig;
import uehw.hw.nscc.NsccEvent;
import uehw.hw.nscc.NsccUpdate;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.nscc.NsccFixedModel.Event;
import uehw.model.nscc.NsccFixedModel.Kind;
import uehw.model.nscc.NsccFixedParams;
import uehw.model.nscc.NsccParams;
import uehw.model.nscc.NsccRule;

/**
 * Drives an NSCC DUT next to an NsccFixedModel: each event the DUT accepts goes to the model with
 * the `now` the DUT sampled (fields cut to the port widths), and every update (window, rule,
 * fulfilled) and retransmit request the DUT emits is checked against the model's, in order; the
 * model counts what the count registers should show.
 */
public final class NsccBench extends WindowUnitBench<Event, NsccEvent, NsccUpdate, NsccBench.Update> {
    /** What io_update carries. */
    public record Update(int flow, long cwnd, NsccRule rule, boolean fulfilled) {
    }

    /** The CSRs as the model holds them: the law's parameters, INIT_BASE_RTT and INIT_CWND. */
    public record Csrs(NsccFixedParams p, long initBaseRtt, long initCwnd) {
    }

    public final NsccConfig cfg;
    public final NsccFixedModel model;

    /** The CSRs' reset values: the reference's derivation for the generation parameters (docs/nscc.md). */
    public static Csrs resetCsrs(NsccConfig cfg) {
        NsccParams ref = NsccParams.reference(cfg.linkGbps() * 1_000_000_000L, cfg.mtu(), cfg.networkRttPs());
        return new Csrs(NsccFixedParams.of(ref), cfg.networkRttPs() / 1000, 0);
    }

    public NsccBench(Sim<Nscc> sim) {
        super(sim, "nscc", Nscc.latency(), (s, event) -> {
            var in = sim.dut().io().event().payload();
            Event e = cut(sim.dut().cfg(), event);
            s.poke(in.flow(), (long) e.flow());
            s.poke(in.kind(), (long) e.kind().ordinal());
            s.poke(in.bytes(), e.bytes());
            s.poke(in.rtt(), e.rttNs());
            s.poke(in.ecn(), e.ecn());
            s.poke(in.lastHop(), e.lastHop());
            s.poke(in.rcvWndPen(), (long) e.rcvWndPen());
            s.poke(in.inFlight(), e.inFlight());
        }, s -> {
            var u = sim.dut().io().update().payload();
            return new Update((int) s.peek(u.flow()), s.peek(u.cwnd()), NsccRule.values()[(int) s.peek(u.rule())],
                    s.peekBool(u.fulfilled()));
        });
        this.cfg = sim.dut().cfg();
        Csrs reset = resetCsrs(cfg);
        this.model = new NsccFixedModel(cfg.flows(), reset.p(), reset.initBaseRtt(), reset.initCwnd());
        sim.reset(16);
        waitStatus(NsccCsr.STATUS, 1, 1, cfg.flows(), "INIT_DONE");
    }

    private static final long MASK24 = (1L << 24) - 1;

    /** The event as the ports carry it (each field cut to its port's width). */
    public static Event cut(NsccConfig cfg, Event e) {
        return new Event(e.flow() & ((1 << cfg.flowIdWidth()) - 1), e.kind(), e.bytes() & MASK24, e.rttNs() & MASK24, e.ecn(),
                e.lastHop(), e.rcvWndPen() & 0xFF, e.inFlight() & MASK24, e.now() & 0xFFFF_FFFFL);
    }

    @Override
    protected void taken(Event taken, long sampledNow) {
        Event e = cut(cfg, new Event(taken.flow(), taken.kind(), taken.bytes(), taken.rttNs(), taken.ecn(), taken.lastHop(),
                taken.rcvWndPen(), taken.inFlight(), sampledNow));
        model.apply(e);
        if (e.flow() >= cfg.flows()) {
            return; // counted by the model, ignored by the unit
        }
        NsccFixedModel.State s = model.state(e.flow());
        updates.expect(new Update(e.flow(), s.cwnd, s.rule, s.fulfilled));
        if (e.kind() == Kind.NACK || e.kind() == Kind.TIMEOUT) {
            retransmits.expect(new Retransmit(e.flow(), e.kind() == Kind.TIMEOUT));
        }
    }

    /** Every count register against the model's counters. */
    public void assertCounters() {
        CounterCheck.assertRegisters("nscc", NsccCsr.ADDRESSES, NsccCsr.COUNTERS, this::counter, model.counters.snapshot(), Set.of());
    }

    /** The CSR image of a parameter set: address -> value, as writeCsrs writes them. */
    public static Map<Integer, Long> csrImage(Csrs c) {
        NsccFixedParams p = c.p();
        Map<Integer, Long> image = new LinkedHashMap<>();
        image.put(NsccCsr.CONTROL, (p.receiverCc() ? 1L : 0L) | (p.baseRttOnNack() ? 2L : 0L));
        image.put(NsccCsr.MTU, p.mtu());
        image.put(NsccCsr.TARGET, p.target());
        image.put(NsccCsr.QA_THRESHOLD, p.qaThresholdNs());
        image.put(NsccCsr.QA_GATE, (long) p.qaGate());
        image.put(NsccCsr.NETWORK_RTT, p.networkRtt());
        image.put(NsccCsr.ADJUST_BYTES, p.adjustBytes());
        image.put(NsccCsr.ALPHA, p.alpha());
        image.put(NsccCsr.FI, p.fi());
        image.put(NsccCsr.ETA, p.eta());
        image.put(NsccCsr.FI_SCALE, p.fiScale());
        image.put(NsccCsr.GAMMA, p.gamma());
        image.put(NsccCsr.DELAY_ALPHA, p.delayAlpha());
        image.put(NsccCsr.BYTES_PER_NS, p.bytesPerNs());
        image.put(NsccCsr.FAST_DELAY, p.fastDelayNs());
        image.put(NsccCsr.INIT_BASE_RTT, c.initBaseRtt());
        image.put(NsccCsr.INIT_CWND, c.initCwnd());
        return image;
    }

    /** The parameters of a CSR image (csrImage's inverse). */
    public static Csrs fromImage(Map<Integer, Long> m) {
        long control = m.get(NsccCsr.CONTROL);
        NsccFixedParams p = new NsccFixedParams(m.get(NsccCsr.MTU), m.get(NsccCsr.TARGET), m.get(NsccCsr.QA_THRESHOLD),
                (int) (long) m.get(NsccCsr.QA_GATE), m.get(NsccCsr.NETWORK_RTT), m.get(NsccCsr.ADJUST_BYTES), m.get(NsccCsr.ALPHA),
                m.get(NsccCsr.FI), m.get(NsccCsr.ETA), m.get(NsccCsr.FI_SCALE), m.get(NsccCsr.GAMMA), m.get(NsccCsr.DELAY_ALPHA),
                m.get(NsccCsr.BYTES_PER_NS), m.get(NsccCsr.FAST_DELAY), (control & 1) != 0, (control & 2) != 0);
        return new Csrs(p, m.get(NsccCsr.INIT_BASE_RTT), m.get(NsccCsr.INIT_CWND));
    }

    public Csrs csrs() {
        return new Csrs(model.p, model.initBaseRtt, model.initCwnd);
    }

    private void take(Csrs c) {
        model.p = c.p();
        model.initBaseRtt = c.initBaseRtt();
        model.initCwnd = c.initCwnd();
    }

    /**
     * docs/nscc.md, "CSR writes": an event accepted at edge k that waited w clocks in stage 0 reads
     * the old value in every stage when k + w <= h - 44, the new one in every stage when k >= h + 2.
     */
    public static final int CSR_OLD_UP_TO = 44;
    public static final int CSR_NEW_FROM = 2;
    /** No event accepted from edge h - 79 to h (one accepted at h - 80 may wait L - 1 = 36 clocks and read at k + w + 44 = h). */
    public static final int CSR_QUIET = CSR_OLD_UP_TO + Nscc.sameFlowSpacing() - 2;

    /** One register written among the events (WindowUnitBench.writeAmongEvents), its value taken from {@code from}. */
    public void writeRegisterAmongEvents(java.util.Random random, int address, Csrs from) {
        Map<Integer, Long> image = csrImage(csrs());
        long value = csrImage(from).get(address);
        image.put(address, value);
        Csrs next = fromImage(image);
        writeAmongEvents(random, CSR_QUIET, address, value, CSR_NEW_FROM, () -> take(next));
    }

    /** Every CSR written (events drained), then the derived values settled. */
    public void writeCsrs(Csrs c) {
        csrImage(c).forEach(csr::write);
        for (int i = 0; i < CSR_NEW_FROM; i++) {
            step();
        }
        take(c);
    }
}
