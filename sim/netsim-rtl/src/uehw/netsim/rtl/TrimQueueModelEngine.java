// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import uehw.bench.trim.TrimQueueTiming;
import uehw.hw.trim.TrimQueueConfig;
import uehw.model.trim.TrimQueueModel;

/**
 * The trimming queue without the RTL: TrimQueueModel decides each frame (admission, trim, RED,
 * mark) at the edges TrimQueueTiming gives, which TrimQueueTest checks clock for clock against
 * the RTL.
 */
public final class TrimQueueModelEngine extends TrimQueueEngine {
    private final TrimQueueTiming timing;
    private boolean outputValid;

    public TrimQueueModelEngine(TrimQueueConfig cfg) {
        super(cfg);
        this.timing = new TrimQueueTiming(cfg.dataBytes()).settled();
    }

    @Override
    public Departure clock(byte[] frame, int beat, boolean ready) {
        if (frame != null && (beat + 1) * cfg.dataBytes() >= frame.length) {
            tookLast(frame, edge);
        }
        TrimQueueTiming.Clock c = timing.decide(ready);
        TrimQueueModel.Outcome o = modelClock(c.dequeue(), edge);
        timing.edge(c.dataStart() && model.lastDequeueDropped, model, o);
        edge++;
        outputValid = c.outputValid();
        if (c.outputTaken() && c.outputLast()) {
            byte[] f = nextOf(c.outputQueue());
            return new Departure(f, f.length);
        }
        return null;
    }

    @Override
    public boolean outputValid() {
        return outputValid;
    }

    /** Nothing admitted is inside (a check on the port's rule for going quiet). */
    public boolean idle() {
        return timing.idle();
    }
}
