// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

/**
 * Swift (swift-excerpt.txt Alg. 1, Sec. 3.2-3.5) in double precision, per flow: the exact
 * reference of the law. Two windows as in Sec. 3.3, the fabric window on the fabric delay
 * (rtt - endpoint delay) against the scaled fabric target, the endpoint window on an EWMA of the
 * endpoint delay against its own target; the effective window is the smaller. Below one packet the
 * flow is paced at rtt / cwnd (lines 29-32).
 */
public final class SwiftExactModel {
    /** One window of Alg. 1 with its own last-decrease time. */
    public static final class Window {
        public double cwnd;
        public long tLastDecrease = Long.MIN_VALUE / 2;

        public void set(double w) {
            cwnd = w;
        }
    }

    /** A flow's state. */
    public static final class Flow {
        public final Window fabric = new Window();
        public final Window endpoint = new Window();
        public int retransmitCount;
        public double endpointDelayNs;
        public double rttNs;
        /** The fabric window the last event read (SwiftParams.hardwareLag scales the target by it). */
        public double fsWindow;

        public double cwnd() {
            return Math.min(fabric.cwnd, endpoint.cwnd);
        }
    }

    public final SwiftParams p;
    private final Flow[] flows;

    public SwiftExactModel(int flows, SwiftParams p) {
        this.p = p;
        this.flows = new Flow[flows];
        for (int i = 0; i < flows; i++) {
            init(i);
        }
    }

    public Flow flow(int i) {
        return flows[i];
    }

    public void init(int i) {
        Flow f = new Flow();
        f.fabric.set(p.initCwnd);
        f.endpoint.set(p.initCwnd);
        f.fsWindow = p.initCwnd;
        flows[i] = f;
    }

    private enum Event { ACK, TIMEOUT, FAST_RECOVERY }

    /** Alg. 1 on one window; returns the new window (line 26 clamps; line 27 records a decrease). */
    private double step(Window w, Event e, boolean resetToMin, double delayNs, double targetNs, double rttNs, double numAcked,
                        long nowNs) {
        double prev = w.cwnd;                                    // line 2
        boolean canDecrease = nowNs - w.tLastDecrease >= rttNs; // line 3
        double cwnd = prev;
        switch (e) {
            case ACK -> {
                if (delayNs < targetNs) {                        // lines 6-10: AI
                    cwnd = cwnd >= 1 ? cwnd + p.ai / cwnd * numAcked : cwnd + p.ai * numAcked;
                } else if (canDecrease) {                        // lines 11-14: MD, once per RTT
                    cwnd = Math.max(1 - p.beta * (delayNs - targetNs) / delayNs, 1 - p.maxMdf) * cwnd;
                }
            }
            case TIMEOUT -> {                                    // lines 15-21
                if (resetToMin) {
                    cwnd = p.minCwnd;
                } else if (canDecrease) {
                    cwnd = (1 - p.maxMdf) * cwnd;
                }
            }
            case FAST_RECOVERY -> {                              // lines 22-25
                if (canDecrease) {
                    cwnd = (1 - p.maxMdf) * cwnd;
                }
            }
        }
        cwnd = Math.max(p.minCwnd, Math.min(cwnd, p.maxCwnd)); // line 26
        if (p.line27AsPrinted ? cwnd <= prev : cwnd < prev) {   // line 27 (SwiftParams.line27AsPrinted)
            w.tLastDecrease = nowNs;
        }
        w.cwnd = cwnd;
        return cwnd;
    }

    /** An ACK of numAcked packets: the measured RTT, the endpoint delay it carried, the forward hops. */
    public double ack(int i, double rttNs, double endpointDelayNs, int hops, double numAcked, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount = 0;                                   // line 4
        f.rttNs = rttNs;
        f.endpointDelayNs = f.endpointDelayNs + p.endpointEwma * (endpointDelayNs - f.endpointDelayNs); // Sec. 3.3
        double fabricDelay = rttNs - endpointDelayNs;
        double target = p.fabricTargetNs(hops, p.hardwareLag ? f.fsWindow : f.fabric.cwnd);
        f.fsWindow = f.fabric.cwnd;
        step(f.fabric, Event.ACK, false, fabricDelay, target, rttNs, numAcked, nowNs);
        step(f.endpoint, Event.ACK, false, f.endpointDelayNs, p.endpointTargetNs, rttNs, numAcked, nowNs);
        return f.cwnd();
    }

    /** A retransmission timeout (lines 15-21), on both windows. */
    public double timeout(int i, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount++;
        boolean reset = f.retransmitCount >= p.retxResetThreshold;
        double rtt = f.rttNs;
        f.fsWindow = f.fabric.cwnd;
        step(f.fabric, Event.TIMEOUT, reset, 0, 0, rtt, 0, nowNs);
        step(f.endpoint, Event.TIMEOUT, reset, 0, 0, rtt, 0, nowNs);
        return f.cwnd();
    }

    /** Fast recovery (lines 22-25): here a NACK of a trimmed packet. */
    public double fastRecovery(int i, long nowNs) {
        Flow f = flows[i];
        f.retransmitCount = 0;
        double rtt = f.rttNs;
        f.fsWindow = f.fabric.cwnd;
        step(f.fabric, Event.FAST_RECOVERY, false, 0, 0, rtt, 0, nowNs);
        step(f.endpoint, Event.FAST_RECOVERY, false, 0, 0, rtt, 0, nowNs);
        return f.cwnd();
    }

    /** Lines 29-32: the inter-packet gap rtt / cwnd below one packet, else 0. */
    public double pacingDelayNs(int i) {
        Flow f = flows[i];
        return f.cwnd() < 1 ? f.rttNs / f.cwnd() : 0;
    }
}
