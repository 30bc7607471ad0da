// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.ArrayDeque;

import uehw.hw.trim.TrimQueue;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.trim.TrimQueueModel;
import uehw.netsim.Port;

/**
 * A trimming queue at the clock, behind a clocked {@link Port}: the Verilated RTL
 * ({@link TrimQueueRtlEngine}) or what predicts it without the RTL, {@link TrimQueueModel} with
 * uehw.bench.trim.TrimQueueTiming ({@link TrimQueueModelEngine}). Both keep a TrimQueueModel that
 * applies each frame's admission at the RTL's admission edge, so the port's counters (trims,
 * marks, drops) and its occupancy are the model's in both; the RTL engine checks the model's RED
 * decisions and every frame it sends against the RTL.
 */
public abstract class TrimQueueEngine {
    /** A frame whose last beat m_axis took: its bytes (the first beat's at least) and its length. */
    public record Departure(byte[] bytes, int length) {
    }

    protected final TrimQueueConfig cfg;
    public final TrimQueueModel model;
    private final ArrayDeque<Object[]> admissions = new ArrayDeque<>(); // {edge, frame}
    /** The edge the next {@link #clock} ends with. */
    protected long edge;

    protected TrimQueueEngine(TrimQueueConfig cfg) {
        this.cfg = cfg;
        this.model = new TrimQueueModel(cfg.dataBytes(), cfg.capacityBytes(), cfg.controlBytes(), cfg.trimEntries(),
                cfg.trimBytes(), cfg.maxFrameBytes(), cfg.maxControlBytes(), cfg.udpPort(), cfg.trimDscp(), cfg.prngSeed());
    }

    /** The queue a port of this spec needs, with {@code bytesPerBeat} on its AXI4-Stream buses. */
    public static TrimQueueConfig configFor(Port.Spec spec, int bytesPerBeat) {
        if (!spec.trimming() || spec.kMin() != spec.capacityBytes() / 5 || spec.kMax() != spec.capacityBytes() * 4 / 5) {
            throw new IllegalArgumentException("a clocked port needs trimming and RED at 20% / 80% of the capacity (the"
                    + " queue's reset values): " + spec);
        }
        return new TrimQueueConfig(bytesPerBeat, (int) spec.capacityBytes(), (int) spec.controlBytes(), spec.trimEntries(),
                spec.trimBytes(), 9216, 256, uehw.model.packet.PacketFormat.TransportUdpPort, 46, spec.seed());
    }

    public int bytesPerBeat() {
        return cfg.dataBytes();
    }

    /**
     * One clock: beat {@code beat} of {@code frame} on s_axis (frame null: tvalid low), m_axis ready
     * as given. Returns the frame whose last beat m_axis took at this clock's edge, or null.
     */
    public abstract Departure clock(byte[] frame, int beat, boolean ready);

    /** m_axis valid during the last clock. */
    public abstract boolean outputValid();

    /** The frame whose last beat was taken at {@code tlastEdge} is admitted TrimQueue.admissionClocks later. */
    protected void tookLast(byte[] frame, long tlastEdge) {
        admissions.add(new Object[] {tlastEdge + TrimQueue.admissionClocks(), frame});
    }

    /** The model's clock for edge {@code at}: that edge's admission (if any) with the dequeue given. */
    protected TrimQueueModel.Outcome modelClock(TrimQueueModel.Dequeue d, long at) {
        byte[] frame = !admissions.isEmpty() && (long) admissions.peek()[0] == at ? (byte[]) admissions.poll()[1] : null;
        return frame == null ? model.clock(d, null, false, false, 0) : model.clock(d, frame, false, false, frame.length);
    }

    /** The next frame the model says queue {@code queue} sends (0 control, 1 trimmed, 2 data). */
    protected byte[] nextOf(int queue) {
        byte[] f = switch (queue) {
            case TrimQueueModel.QUEUE_CONTROL -> model.expectedControl.poll();
            case 1 -> model.expectedTrimmed.poll();
            default -> model.expectedData.poll();
        };
        if (f == null) {
            throw new AssertionError("a frame left queue " + queue + " where the model has none");
        }
        return f;
    }
}
