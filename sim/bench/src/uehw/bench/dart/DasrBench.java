// SPDX-License-Identifier: Apache-2.0
package uehw.bench.dart;

import uehw.bench.AxiLite4Master;
import uehw.bench.InOrderScoreboard;
import uehw.bench.StreamMonitor;
import uehw.bench.TimedEventBench;
import uehw.bench.csr.DartDasrCsr;
import uehw.bench.facade.Sim;
import uehw.hw.dart.DartDasr;
import uehw.hw.dart.DartDasrConfig;
import uehw.hw.dart.DartDasrIo;
import uehw.model.dart.DasrEvent;
import uehw.model.dart.DasrModel;

/**
 * Drives a DartDasr DUT next to a DasrModel: each event the DUT accepts goes to the model with the
 * {@code now} the DUT sampled, and every reply the DUT emits is checked against the model's, in
 * order. {@code now} advances each clock by a caller-chosen step.
 */
public final class DasrBench extends TimedEventBench<DasrEvent> {
    /** A reply as the DUT gives it. */
    public record Reply(int n, boolean ecnPass, int state) {
    }

    public final DartDasrIo io;
    public final DartDasrConfig cfg;
    public final DasrModel model;
    public final AxiLite4Master csr;
    public final InOrderScoreboard<Reply> replies = new InOrderScoreboard<>("dasr replies");
    /** The last reply the DUT gave. */
    public Reply lastReply;
    private final StreamMonitor<Reply> monitor;

    public static DasrModel modelOf(DartDasrConfig cfg) {
        return new DasrModel(cfg.capacity(), cfg.maxMessages(), cfg.idleTimeoutNs(), cfg.windowNs(), cfg.lineRateBytes(),
                cfg.senderIdBits());
    }

    public DasrBench(Sim<DartDasr> sim) {
        super(sim, sim.dut().io().event().valid(), sim.dut().io().event().ready(), (s, e) -> {
            var in = sim.dut().io().event().payload();
            s.poke(in.lookAhead(), e.lookAhead());
            s.poke(in.sender(), e.sender() & 0xFFFF_FFFFL);
            s.poke(in.first(), e.first());
            s.poke(in.last(), e.last());
            s.poke(in.announced(), e.announced());
            s.poke(in.ecn(), e.ecn());
            s.poke(in.bytes(), (long) e.bytes());
            s.poke(in.group(), (long) e.group());
        }, sim.dut().io().now());
        this.io = sim.dut().io();
        this.cfg = sim.dut().cfg();
        this.model = modelOf(cfg);
        clock(t -> t + 3);
        var r = io.reply().payload();
        monitor = StreamMonitor.passive(sim, io.reply().valid(), null,
                s -> new Reply((int) s.peek(r.n()), s.peekBool(r.ecnPass()), (int) s.peek(r.state())), seen -> {
                    lastReply = seen;
                    replies.actual(seen);
                });
        this.csr = new AxiLite4Master(sim, io.ctrl(), this::step);
        followCsr(csr);
        sim.reset(16);
        stepUntil(io.initDone(), cfg.capacity() + 16, "initDone");
    }

    @Override
    protected void taken(DasrEvent e, long sampledNow) {
        DasrModel.Reply r = e.applyTo(model, sampledNow);
        if (r != null) {
            replies.expect(new Reply(r.n(), r.ecnPass(), model.state().ordinal()));
        }
    }

    @Override
    protected void afterEdge() {
        monitor.afterEdge();
    }

    @Override
    protected long pending() {
        return replies.pending();
    }

    /** Clocks until every pushed event was taken and its reply came out; returns the clocks. */
    public long drain() {
        return drain(DartDasr.latency());
    }

    public long read(int address) {
        return csr.read(address);
    }

    /** Writes the run-time CSRs, in the model too (drain first). */
    public void idleTimeout(long ns) {
        csr.write(DartDasrCsr.IDLE_TIMEOUT, ns);
        model.idleTimeoutNs = ns;
    }

    public void window(long ns) {
        csr.write(DartDasrCsr.WINDOW, ns);
        model.windowNs = ns;
    }

    public void lineRateBytes(long bytes) {
        csr.write(DartDasrCsr.LINE_RATE_BYTES, bytes);
        model.lineRateBytes = bytes;
    }

    /**
     * The same writes taken at edge h while events flow, the model following at the edges of
     * docs/dart-dasr.md ("CSR writes"): IDLE_TIMEOUT and WINDOW for the events accepted at h or
     * later, LINE_RATE_BYTES for those accepted at h - 1 or later.
     */
    public void idleTimeoutAt(long h, long ns) {
        actions().writeAt(h, DartDasrCsr.IDLE_TIMEOUT, ns, h, () -> model.idleTimeoutNs = ns);
    }

    public void windowAt(long h, long ns) {
        actions().writeAt(h, DartDasrCsr.WINDOW, ns, h, () -> model.windowNs = ns);
    }

    public void lineRateBytesAt(long h, long bytes) {
        actions().writeAt(h, DartDasrCsr.LINE_RATE_BYTES, bytes, h - 1, () -> model.lineRateBytes = bytes);
    }
}
