// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

import uehw.bench.AxiLite4Master;
import uehw.bench.InOrderScoreboard;
import uehw.bench.StreamMonitor;
import uehw.bench.TimedEventBench;
import uehw.bench.csr.DasrLimiterCsr;
import uehw.bench.facade.Sim;
import uehw.hw.dart.DasrLimiter;
import uehw.hw.dart.DasrLimiterConfig;
import uehw.hw.dart.DasrLimiterIo;
import uehw.model.dart.DasrLimiterModel;

/**
 * Drives a DasrLimiter DUT next to a DasrLimiterModel: each event the DUT accepts goes to the
 * model with the {@code now} the DUT sampled; every answer is checked against the model's, in order.
 */
public final class DasrLimiterBench extends TimedEventBench<DasrLimiterBench.Event> {
    /** An event: kind 0 ACK (n), 1 sent (bytes), 2 query, 3 not a kind. */
    public record Event(int kind, int flow, int n, int bytes) {
        public static Event ack(int flow, int n) {
            return new Event(0, flow, n, 0);
        }

        public static Event sent(int flow, int bytes) {
            return new Event(1, flow, 0, bytes);
        }

        public static Event query(int flow) {
            return new Event(2, flow, 0, 0);
        }

        /** Applies the event to the model; the answer of a sent packet or a query, else null. */
        public DasrLimiterModel.Answer applyTo(DasrLimiterModel m, long nowNs) {
            return switch (kind) {
                case 0 -> {
                    m.ack(flow, n);
                    yield null;
                }
                case 1 -> m.sent(flow, bytes, nowNs);
                case 2 -> m.query(flow, nowNs);
                default -> {
                    m.badKind();
                    yield null;
                }
            };
        }
    }

    public final DasrLimiterIo io;
    public final DasrLimiterConfig cfg;
    public final DasrLimiterModel model;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<DasrLimiterModel.Answer> answers = new InOrderScoreboard<>("limiter answers");
    public DasrLimiterModel.Answer lastAnswer;
    private final StreamMonitor<DasrLimiterModel.Answer> monitor;

    public DasrLimiterBench(Sim<DasrLimiter> sim) {
        super(sim, sim.dut().io().event().valid(), sim.dut().io().event().ready(), (s, e) -> {
            var in = sim.dut().io().event().payload();
            s.poke(in.kind(), (long) e.kind());
            s.poke(in.flow(), (long) e.flow());
            s.poke(in.n(), (long) e.n());
            s.poke(in.bytes(), (long) e.bytes());
        }, sim.dut().io().now());
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = new DasrLimiterModel(cfg.flows(), cfg.byteTime());
        var a = io.answer().payload();
        monitor = StreamMonitor.passive(sim, io.answer().valid(), null,
                s -> new DasrLimiterModel.Answer((int) s.peek(a.flow()), s.peekBool(a.eligible()), s.peek(a.nextNs())), seen -> {
                    lastAnswer = seen;
                    answers.actual(seen);
                });
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        followCsr(csr);
        sim.reset(16);
        stepUntil(io.initDone(), cfg.flows() + 16, "initDone");
    }

    @Override
    protected void taken(Event e, long sampledNow) {
        DasrLimiterModel.Answer a = e.applyTo(model, sampledNow);
        if (a != null) {
            answers.expect(a);
        }
    }

    @Override
    protected void afterEdge() {
        monitor.afterEdge();
    }

    @Override
    protected long pending() {
        return answers.pending();
    }

    /** Clocks until every pushed event was taken and answered; returns the clocks. */
    public long drain() {
        return drain(DasrLimiter.latency());
    }

    public long read(int address) {
        return csr.read(address);
    }

    public void byteTime(long value) {
        csr.write(DasrLimiterCsr.BYTE_TIME, value);
        model.byteTime = value;
    }

    /** BYTE_TIME taken at edge h while events flow: the events accepted at h - 1 or later use it (docs/dasr-limiter.md). */
    public void byteTimeAt(long h, long value) {
        actions().writeAt(h, DasrLimiterCsr.BYTE_TIME, value, h - 1, () -> model.byteTime = value);
    }
}
