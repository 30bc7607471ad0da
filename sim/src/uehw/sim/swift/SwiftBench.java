// SPDX-License-Identifier: Apache-2.0
package uehw.sim.swift;

import uehw.hw.swift.Swift;
import uehw.hw.swift.SwiftConfig;
import uehw.hw.swift.SwiftEvent;
import uehw.hw.swift.SwiftUpdate;
import uehw.sim.WindowUnitBench;
import uehw.sim.facade.Sim;
import uehw.sim.swift.SwiftFixedModel.Change;
import uehw.sim.swift.SwiftFixedModel.Event;
import uehw.sim.swift.SwiftFixedModel.Kind;
import uehw.sim.swift.SwiftFixedModel.Update;

/**
 * Drives a Swift DUT next to a SwiftFixedModel: each event the DUT accepts goes to the model with
 * the `now` the DUT sampled (fields cut to the port widths), and every update and retransmit
 * request the DUT emits is checked against the model's, in order. The bench counts what the
 * counters should show from the model's updates.
 */
public final class SwiftBench extends WindowUnitBench<Event, SwiftEvent, SwiftUpdate, Update> {
    public final SwiftConfig cfg;
    public final SwiftFixedModel model;
    /** What the counters should show, from the model's updates. */
    public final long[] expected = new long[0x100 / 4];

    /** The CSRs' reset values as model parameters. */
    public static SwiftFixedModel.Params resetParams() {
        return SwiftFixedModel.Params.of(new SwiftParams());
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
        sim.reset(2);
        waitReady();
    }

    /** The event as the ports carry it (each field cut to its port's width). */
    public static Event cut(SwiftConfig cfg, Event e) {
        long delayMask = (1L << cfg.delayWidth()) - 1;
        return new Event(e.flow() & ((1 << cfg.flowIdWidth()) - 1), e.kind(), e.rttNs() & delayMask,
                e.endpointDelayNs() & delayMask, e.hops() & 0xFF, e.acked() & 0x1FFF, e.nowNs());
    }

    private void count(int address) {
        expected[address / 4]++;
    }

    @Override
    protected void taken(Event taken, long sampledNow) {
        Event e = cut(cfg, new Event(taken.flow(), taken.kind(), taken.rttNs(), taken.endpointDelayNs(), taken.hops(), taken.acked(),
                sampledNow));
        if (e.flow() >= cfg.flows()) {
            count(SwiftCsr.OUT_OF_RANGE);
            return;
        }
        Update u = model.apply(e);
        updates.expect(u);
        count(SwiftCsr.EVENTS);
        count(switch (e.kind()) {
            case ACK -> SwiftCsr.ACKS;
            case NACK -> SwiftCsr.NACKS;
            case TIMEOUT -> SwiftCsr.TIMEOUTS;
            case INIT -> SwiftCsr.INITS;
        });
        if (e.kind() == Kind.NACK || e.kind() == Kind.TIMEOUT) {
            retransmits.expect(new Retransmit(e.flow(), e.kind() == Kind.TIMEOUT));
        }
        if (e.kind() != Kind.INIT) {
            if (u.fabric() == Change.INCREASE) count(SwiftCsr.FABRIC_INCREASES);
            if (u.fabric() == Change.DECREASE) count(SwiftCsr.FABRIC_DECREASES);
            if (u.endpoint() == Change.INCREASE) count(SwiftCsr.ENDPOINT_INCREASES);
            if (u.endpoint() == Change.DECREASE) count(SwiftCsr.ENDPOINT_DECREASES);
            if (u.fabric() == Change.NONE || u.endpoint() == Change.NONE) count(SwiftCsr.HELD);
            if (u.fabric() == Change.RESET) count(SwiftCsr.RESETS);
        }
        if (u.pacingNs() != 0) count(SwiftCsr.PACED);
    }

    /** Waits for the reset sweep. */
    public void waitReady() {
        waitStatus(SwiftCsr.STATUS, 1, 1, cfg.flows(), "INIT_DONE");
    }

    /** Every counter against what the model's updates and counts give. */
    public void assertCounters() {
        long[] e = expected.clone();
        e[SwiftCsr.RTT_ZERO / 4] = model.rttZero;
        e[SwiftCsr.ENDPOINT_ABOVE_RTT / 4] = model.endpointAboveRtt;
        e[SwiftCsr.HOPS_CLAMPED / 4] = model.hopsClamped;
        e[SwiftCsr.CLAMPED_MAX / 4] = model.clampedMax;
        e[SwiftCsr.CLAMPED_MIN / 4] = model.clampedMin;
        e[SwiftCsr.PACING_SATURATED / 4] = model.pacingSaturated;
        for (int a = SwiftCsr.EVENTS; a <= SwiftCsr.PACING_SATURATED; a += 4) {
            if (counter(a) != (e[a / 4] & 0xFFFF_FFFFL)) {
                throw new AssertionError(String.format("counter at 0x%02X: RTL %d, expected %d", a, counter(a), e[a / 4]));
            }
        }
    }

    /** Writes the CSRs from model parameters (pipeline drained). */
    public void writeParams(SwiftFixedModel.Params p) {
        csr.write(SwiftCsr.CONTROL, p.line27AsPrinted() ? 1 : 0);
        csr.write(SwiftCsr.AI, p.ai());
        csr.write(SwiftCsr.BETA, p.beta());
        csr.write(SwiftCsr.MAX_MDF, p.maxMdf());
        csr.write(SwiftCsr.MIN_CWND, p.minCwnd());
        csr.write(SwiftCsr.MAX_CWND, p.maxCwnd());
        csr.write(SwiftCsr.INIT_CWND, p.initCwnd());
        csr.write(SwiftCsr.RETX_RESET_THRESHOLD, p.retxResetThreshold());
        csr.write(SwiftCsr.BASE_TARGET, p.baseTargetNs());
        csr.write(SwiftCsr.PER_HOP, p.perHopNs());
        csr.write(SwiftCsr.FS_RANGE, p.fsRangeNs());
        csr.write(SwiftCsr.FS_ALPHA, p.fsAlpha());
        csr.write(SwiftCsr.FS_BETA, p.fsBeta() & 0xFFFFF);
        csr.write(SwiftCsr.ENDPOINT_TARGET, p.endpointTargetNs());
        csr.write(SwiftCsr.ENDPOINT_EWMA_SHIFT, p.endpointEwmaShift());
        for (int i = 0; i < 8; i++) {
            step(); // the derived values (the initial window's leading one among them) are registered
        }
        model.p = p;
    }
}
