// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;

import uehw.bench.Axi4StreamPackets;
import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.trim.TrimQueue;
import uehw.hw.trim.TrimQueueConfig;
import uehw.hw.trim.TrimQueueIo;
import uehw.model.trim.TrimQueueModel;
import uehw.netsim.Packet;
import uehw.netsim.Port;

/**
 * Hardware in the loop: the Verilated trimming queue behind a clocked Port, fed real frames on
 * s_axis a beat a clock, its m_axis ready driven by the port's link pacing. What leaves is what
 * the RTL sent, at the clock it sent it; the engine's TrimQueueModel follows the RTL's io_dequeue
 * (checking its occupancy, mark and drop at every data dequeue) and every departing frame must be
 * the next one of a model queue, first bytes and length.
 */
public final class TrimQueueRtlEngine extends TrimQueueEngine {
    /** Bytes of a departing frame the port reads (every header; a trimmed frame keeps 64). */
    private static final int HEAD_BYTES = 64;
    private final Sim<TrimQueue> sim;
    private final TrimQueueIo io;
    private byte[] inFrame;
    private List<Axi4StreamPackets.Beat> inBeats;
    private boolean outputValid;
    private final byte[] outHead = new byte[HEAD_BYTES];
    private int outLength;
    public long clocks, framesChecked;

    /** The Verilated trimming queue of {@code cfg}, compiled once a configuration (build/sim/TrimQueueRtlEngine/). */
    public static Simulation<TrimQueue> simulation(TrimQueueConfig cfg) {
        String name = "w" + cfg.dataBytes() + "_c" + cfg.capacityBytes() + "_k" + cfg.controlBytes() + "_t" + cfg.trimEntries()
                + "x" + cfg.trimBytes() + "_s" + Long.toHexString(cfg.prngSeed());
        return Simulation.compile(TrimQueueRtlEngine.class, name, () -> new TrimQueue(cfg));
    }

    /** {@code sim} just reset; the engine lets its RED thresholds be drawn first. */
    public TrimQueueRtlEngine(Sim<TrimQueue> sim) {
        super(sim.dut().cfg());
        this.sim = sim;
        this.io = sim.dut().io();
        sim.poke(io.s_axis().valid(), false);
        sim.poke(io.m_axis().ready(), false);
        sim.poke(io.s_axis().payload().user(), 0L);
        sim.step(16);
    }

    @Override
    public Departure clock(byte[] frame, int beat, boolean ready) {
        boolean last = false;
        if (frame != null) {
            if (frame != inFrame) {
                inFrame = frame;
                inBeats = Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(frame, 0), cfg.dataBytes());
            }
            Axi4StreamPackets.Beat b = inBeats.get(beat);
            var p = io.s_axis().payload();
            sim.poke(p.data(), b.data());
            sim.poke(p.keep(), b.keep());
            sim.poke(p.last(), b.last());
            last = b.last();
        }
        sim.poke(io.s_axis().valid(), frame != null);
        sim.poke(io.m_axis().ready(), ready);
        sim.step();
        clocks++;
        // Peeks now show this clock; io_dequeue (registered) the previous edge's events.
        TrimQueueModel.Dequeue d = null;
        if (sim.peekBool(io.dequeue().valid())) {
            var p = io.dequeue().payload();
            d = new TrimQueueModel.Dequeue(sim.peekBool(p.start()), (int) sim.peek(p.queue()), sim.peek(p.occupancy()),
                    sim.peekBool(p.marked()), sim.peekBool(p.dropped()), sim.peekBool(p.trimPop()));
        }
        modelClock(d, edge - 1);
        if (last) {
            tookLast(frame, edge);
        }
        edge++;
        outputValid = sim.peekBool(io.m_axis().valid());
        if (!outputValid || !ready) {
            return null;
        }
        var m = io.m_axis().payload();
        int bytes = Long.bitCount(sim.peek(m.keep()));
        if (outLength < HEAD_BYTES) {
            BigInteger data = sim.peekBig(m.data());
            for (int i = 0; i < bytes && outLength + i < HEAD_BYTES; i++) {
                outHead[outLength + i] = (byte) data.shiftRight(8 * i).intValue();
            }
        }
        outLength += bytes;
        if (!sim.peekBool(m.last())) {
            return null;
        }
        Departure out = new Departure(Arrays.copyOf(outHead, Math.min(outLength, HEAD_BYTES)), outLength);
        outLength = 0;
        check(out);
        return out;
    }

    /** The frame must be the next of one of the model's queues (strict priority decides which). */
    private void check(Departure out) {
        for (int q : new int[] {TrimQueueModel.QUEUE_CONTROL, 1, TrimQueueModel.QUEUE_DATA}) {
            byte[] next = switch (q) {
                case TrimQueueModel.QUEUE_CONTROL -> model.expectedControl.peek();
                case 1 -> model.expectedTrimmed.peek();
                default -> model.expectedData.peek();
            };
            if (next != null && next.length == out.length()
                    && Arrays.equals(next, 0, out.bytes().length, out.bytes(), 0, out.bytes().length)) {
                nextOf(q);
                framesChecked++;
                return;
            }
        }
        throw new AssertionError("edge " + (edge - 1) + ": the RTL sent a frame of " + out.length()
                + " bytes that is no model queue's next");
    }

    @Override
    public boolean outputValid() {
        return outputValid;
    }
}
