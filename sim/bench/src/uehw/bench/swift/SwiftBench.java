// SPDX-License-Identifier: Apache-2.0
package uehw.bench.swift;

import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import uehw.bench.CounterCheck;
import uehw.bench.WindowUnitBench;
import uehw.bench.csr.SwiftCsr;
import uehw.bench.facade.Sim;
import uehw.hw.swift.Swift;
import uehw.hw.swift.SwiftConfig;
import uehw.hw.swift.SwiftEvent;
import uehw.hw.swift.SwiftUpdate;
import uehw.model.swift.SwiftFixedModel;
import uehw.model.swift.SwiftFixedParams;
import uehw.model.swift.SwiftFixedModel.Change;
import uehw.model.swift.SwiftFixedModel.Event;
import uehw.model.swift.SwiftFixedModel.Kind;
import uehw.model.swift.SwiftFixedModel.Update;
import uehw.model.swift.SwiftParams;

/**
 * Drives a Swift DUT next to a SwiftFixedModel: each event the DUT accepts goes to the model with
 * the `now` the DUT sampled (fields cut to the port widths), and every update and retransmit
 * request the DUT emits is checked against the model's, in order; the model counts what the
 * count registers should show.
 */
public final class SwiftBench extends WindowUnitBench<Event, SwiftEvent, SwiftUpdate, Update> {
    public final SwiftConfig cfg;
    public final SwiftFixedModel model;
    /** The CSRs' reset values as model parameters. */
    public static SwiftFixedParams resetParams() {
        return SwiftFixedParams.of(new SwiftParams());
    }

    public SwiftBench(Sim<Swift> sim) {
        super(sim, "swift", Swift.latency(), (s, event) -> {
            var in = sim.dut().io().event().payload();
            Event e = cut(sim.dut().cfg(), event);
            s.poke(in.flow(), (long) e.flow());
            s.poke(in.kind(), (long) e.kind().ordinal());
            s.poke(in.rtt(), e.rttNs());
            s.poke(in.endpointDelay(), e.endpointDelayNs());
            s.poke(in.hops(), (long) e.hops());
            s.poke(in.acked(), e.acked());
        }, s -> {
            var u = sim.dut().io().update().payload();
            int rule = (int) s.peek(u.rule());
            return new Update((int) s.peek(u.flow()), s.peek(u.cwnd()), s.peek(u.fabricCwnd()), s.peek(u.endpointCwnd()),
                    Change.values()[rule & 3], Change.values()[rule >> 2], s.peek(u.pacing()));
        });
        this.cfg = sim.dut().cfg();
        this.model = new SwiftFixedModel(cfg.flows(), resetParams());
        sim.reset(16);
        waitReady();
    }

    /** The event as the ports carry it (each field cut to its port's width). */
    public static Event cut(SwiftConfig cfg, Event e) {
        long delayMask = (1L << cfg.delayWidth()) - 1;
        return new Event(e.flow() & ((1 << cfg.flowIdWidth()) - 1), e.kind(), e.rttNs() & delayMask,
                e.endpointDelayNs() & delayMask, e.hops() & 0xFF, e.acked() & 0x1FFF, e.nowNs());
    }


    @Override
    protected void taken(Event taken, long sampledNow) {
        Event e = cut(cfg, new Event(taken.flow(), taken.kind(), taken.rttNs(), taken.endpointDelayNs(), taken.hops(), taken.acked(),
                sampledNow));
        Update u = model.apply(e);
        if (u == null) {
            return; // a flow id >= N: counted by the model, ignored by the unit
        }
        updates.expect(u);
        if (e.kind() == Kind.NACK || e.kind() == Kind.TIMEOUT) {
            retransmits.expect(new Retransmit(e.flow(), e.kind() == Kind.TIMEOUT));
        }
    }

    /** Waits for the reset sweep. */
    public void waitReady() {
        waitStatus(SwiftCsr.STATUS, 1, 1, cfg.flows(), "INIT_DONE");
    }

    /** Every count register against the model's counters. */
    public void assertCounters() {
        CounterCheck.assertRegisters("swift", SwiftCsr.ADDRESSES, SwiftCsr.COUNTERS, this::counter, model.counters.snapshot(), Set.of());
    }

    /** The parameter registers, in the order of Params' components. */
    private static final int[] PARAM_REGISTERS = {SwiftCsr.AI, SwiftCsr.BETA, SwiftCsr.MAX_MDF, SwiftCsr.MIN_CWND,
        SwiftCsr.MAX_CWND, SwiftCsr.INIT_CWND, SwiftCsr.RETX_RESET_THRESHOLD, SwiftCsr.BASE_TARGET, SwiftCsr.PER_HOP,
        SwiftCsr.FS_RANGE, SwiftCsr.FS_ALPHA, SwiftCsr.FS_BETA, SwiftCsr.ENDPOINT_TARGET, SwiftCsr.ENDPOINT_EWMA_SHIFT,
        SwiftCsr.CONTROL};

    /** The CSR image of a parameter set: address -> value, CONTROL first, as writeParams writes them. */
    public static Map<Integer, Long> csrImage(SwiftFixedParams p) {
        Map<Integer, Long> image = new LinkedHashMap<>();
        image.put(SwiftCsr.CONTROL, p.line27AsPrinted() ? 1L : 0L);
        image.put(SwiftCsr.AI, p.ai());
        image.put(SwiftCsr.BETA, p.beta());
        image.put(SwiftCsr.MAX_MDF, p.maxMdf());
        image.put(SwiftCsr.MIN_CWND, p.minCwnd());
        image.put(SwiftCsr.MAX_CWND, p.maxCwnd());
        image.put(SwiftCsr.INIT_CWND, p.initCwnd());
        image.put(SwiftCsr.RETX_RESET_THRESHOLD, (long) p.retxResetThreshold());
        image.put(SwiftCsr.BASE_TARGET, p.baseTargetNs());
        image.put(SwiftCsr.PER_HOP, p.perHopNs());
        image.put(SwiftCsr.FS_RANGE, p.fsRangeNs());
        image.put(SwiftCsr.FS_ALPHA, p.fsAlpha());
        image.put(SwiftCsr.FS_BETA, p.fsBeta() & 0xFFFFF);
        image.put(SwiftCsr.ENDPOINT_TARGET, p.endpointTargetNs());
        image.put(SwiftCsr.ENDPOINT_EWMA_SHIFT, (long) p.endpointEwmaShift());
        return image;
    }

    /** The model side of one CSR write: {@code m} with the field behind {@code address} taken from {@code from}. */
    static SwiftFixedParams takeRegister(SwiftFixedParams m, int address, SwiftFixedParams from) {
        RecordComponent[] fields = SwiftFixedParams.class.getRecordComponents();
        Object[] values = new Object[fields.length];
        Class<?>[] types = new Class<?>[fields.length];
        try {
            for (int i = 0; i < fields.length; i++) {
                values[i] = fields[i].getAccessor().invoke(PARAM_REGISTERS[i] == address ? from : m);
                types[i] = fields[i].getType();
            }
            return SwiftFixedParams.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * docs/swift.md, "CSR writes": an event accepted at edge k that waited w clocks in stage 0 reads
     * the old value in every stage when k + w <= h - 18, the new one in every stage when k >= h + 1.
     */
    public static final int CSR_OLD_UP_TO = 18;
    public static final int CSR_NEW_FROM = 1;

    /**
     * One parameter register written among the events (WindowUnitBench.writeAmongEvents), its value
     * taken from {@code from}: no event accepted from h - 22 to h (one accepted before waits at
     * most L - 1 = 5 clocks).
     */
    public void writeRegisterAmongEvents(java.util.Random random, int address, SwiftFixedParams from) {
        writeAmongEvents(random, CSR_OLD_UP_TO + Swift.sameFlowSpacing() - 2, address, csrImage(from).get(address), CSR_NEW_FROM,
                () -> model.p = takeRegister(model.p, address, from));
    }

    /** The same at the shortest quiet span: the last event accepted at h - 23 may have waited 5 clocks. */
    public void writeRegisterAfterShortestQuiet(int address, SwiftFixedParams from) {
        writeAfterQuiet(CSR_OLD_UP_TO + Swift.sameFlowSpacing() - 2, address, csrImage(from).get(address), CSR_NEW_FROM,
                () -> model.p = takeRegister(model.p, address, from));
    }

    public void writeParams(SwiftFixedParams p) {
        csrImage(p).forEach(csr::write);
        for (int i = 0; i < 8; i++) {
            step(); // the derived values (the initial window's leading one among them) are registered
        }
        model.p = p;
    }
}
