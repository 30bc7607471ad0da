// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

/**
 * NSCC as the UEC reference simulator runs it (uet-htsim 40ccb05, htsim/sim/uec.cpp), per flow, in
 * the reference's arithmetic: int64 windows, uint64 times in ps, the gains in double with each
 * double update truncated toward zero on assignment, the same order of operations. The pending
 * increase is int64 unless {@link NsccParams#wrapIncBytes} asks for the reference's uint32
 * (uec.h:413), which wraps at 800 Gb/s. The event carries what the sender's bookkeeping around the
 * law supplies (newly received bytes, the RTT sample when it is valid, the bytes in flight).
 */
public final class NsccExactModel {
    /** A flow's state, named as in uec.h:324-420. */
    public static final class Flow {
        public long cwnd;
        public long maxwnd;
        public long baseRttPs;
        public long bdp;
        public long avgDelayPs;
        public long achievedBytes;
        public long receivedBytes;
        /** uint32 in the reference (held in the low 32 bits when wrapping), int64 otherwise. */
        public long incBytes;
        public long bytesToIgnore;  // uint32
        public long bytesIgnored;   // uint32
        public boolean triggerQa;
        public long qaEndtimePs;
        public long fiCount;        // uint32
        public boolean increase;
        public long lastAdjustTimePs;
        public long lastDecTimePs;
        /** The last event's rule, whether it fulfilled and the pending increase it fulfilled (-1: none). */
        public NsccRule lastRule;
        public boolean lastFulfilled;
        public long lastFulfilledIncBytes = -1;
        /** The sum of the last event's window steps, |each change| (the penalty, the rule, the bounds, fulfill, eta). */
        public long lastMovement;
        /** The delay the last ACK's case decision used (ps). */
        public long lastDelayPs;
    }

    private static final long U32 = 0xFFFF_FFFFL;

    public final NsccParams p;
    private final Flow[] flows;

    public NsccExactModel(int flows, NsccParams p) {
        this.p = p;
        this.flows = new Flow[flows];
    }

    public Flow flow(int i) {
        return flows[i];
    }

    /**
     * initNscc (uec.cpp:161-184): base RTT, its BDP at the link speed, maxwnd = 1.5 BDP and the
     * window ({@code cwnd} 0 gives maxwnd, as the reference's -cwnd default).
     */
    public void init(int i, long baseRttPs, long cwnd) {
        Flow f = new Flow();
        f.baseRttPs = baseRttPs;
        f.bdp = p.baseBdp(baseRttPs);
        f.maxwnd = NsccParams.maxWindow(f.bdp);
        f.cwnd = cwnd == 0 ? f.maxwnd : cwnd;
        f.lastRule = NsccRule.INIT;
        flows[i] = f;
    }

    /**
     * An ACK (uec.cpp:904-1059 processAck, then 1310-1357 updateCwndOnAck_NSCC).
     *
     * @param newly newly received bytes (the ACK's cumulative recvd_bytes less the last seen)
     * @param rawRttPs the RTT sample, 0 when the ACK has no valid one (uec.cpp:891-902)
     * @param ecn the ACK's ECN echo
     * @param rcvWndPen the receiver's window penalty, 255 = none (uec.cpp:933-936)
     * @param inFlight the sender's bytes in flight after this ACK's bookkeeping
     */
    public void ack(int i, long nowPs, long newly, long rawRttPs, boolean ecn, int rcvWndPen, long inFlight) {
        Flow f = flows[i];
        f.lastFulfilled = false;
        f.lastFulfilledIncBytes = -1;
        f.lastMovement = 0;
        if (newly > 0) { // :910-917
            f.achievedBytes += newly;
            f.receivedBytes += newly;
            f.bytesIgnored = (f.bytesIgnored + newly) & U32;
        }
        if (rcvWndPen < 255) { // :933-936
            long decrease = newly - newly * rcvWndPen / 255;
            move(f, Math.max(f.cwnd - decrease, p.mtu()));
        }
        long delay;
        if (rawRttPs > 0) { // :958-973
            updateBaseRtt(f, rawRttPs);
            if (rawRttPs >= f.baseRttPs) {
                updateDelay(f, rawRttPs, ecn);
                delay = rawRttPs - f.baseRttPs;
            } else {
                delay = f.avgDelayPs;
            }
        } else {
            delay = f.avgDelayPs; // :1003
        }
        f.lastDelayPs = delay;
        if (quickAdapt(f, nowPs, false, ecn, delay, inFlight)) { // :1314
            return;
        }
        if (!ecn && delay >= p.targetQdelayPs()) { // :1317
            fairIncrease(f, newly);
            f.lastRule = NsccRule.FAIR_INCREASE;
        } else if (!ecn) { // :1323
            f.lastRule = proportionalIncrease(f, newly, delay) ? NsccRule.FAST_INCREASE : NsccRule.PROPORTIONAL_INCREASE;
        } else if (delay >= p.targetQdelayPs()) { // :1328
            f.lastRule = multiplicativeDecrease(f, nowPs) ? NsccRule.MULTIPLICATIVE_DECREASE : NsccRule.DECREASE_HELD;
        } else {
            f.lastRule = NsccRule.NOOP; // :1333
        }
        setCwndBounds(f); // :1338
        if (f.receivedBytes > p.adjustBytesThreshold() || nowPs - f.lastAdjustTimePs > p.networkRttPs()) { // :1341
            f.lastFulfilled = true;
            f.lastFulfilledIncBytes = f.incBytes;
            fulfillAdjustment(f, nowPs);
        }
        setCwndBounds(f); // :1353
    }

    /**
     * A NACK (uec.cpp:1524-1573 processNack, then 1359-1384 updateCwndOnNack_NSCC).
     *
     * @param nackedBytes the trimmed packet's wire size
     * @param rawRttPs the NACK's RTT (now - the packet's send time), which lowers the base RTT
     *     (update_base_rtt_on_nack, uec.cpp:76); 0 = none
     * @param inFlight the bytes in flight before this NACK takes its packet out (:1588)
     */
    public void nack(int i, long nowPs, long nackedBytes, long rawRttPs, boolean lastHop, long inFlight) {
        Flow f = flows[i];
        f.lastFulfilled = false;
        f.lastFulfilledIncBytes = -1;
        f.lastMovement = 0;
        if (rawRttPs > 0) {
            updateBaseRtt(f, rawRttPs); // :1568-1570
        }
        f.bytesIgnored = (f.bytesIgnored + nackedBytes) & U32; // :1362
        updateDelay(f, f.baseRttPs + p.networkRttPs(), true); // :1369, a delay sample of network_rtt
        f.triggerQa = true; // :1375
        if (quickAdapt(f, nowPs, true, true, 0, inFlight)) {
            return;
        }
        if (!p.receiverCc() || !lastHop) { // :1380
            move(f, f.cwnd - nackedBytes);
            setCwndBounds(f);
            f.lastRule = NsccRule.NACK_DECREASE;
        } else {
            f.lastRule = NsccRule.NACK_LAST_HOP;
        }
    }

    /** A retransmission timeout (uec.cpp:2398 -> 1297-1304): the packet's bytes off, floor MTU. */
    public void timeout(int i, long packetBytes) {
        Flow f = flows[i];
        f.lastFulfilled = false;
        f.lastFulfilledIncBytes = -1;
        f.lastMovement = 0;
        move(f, Math.max(f.cwnd - packetBytes, p.mtu()));
        f.lastRule = NsccRule.TIMEOUT_DECREASE;
    }

    private static void move(Flow f, long cwnd) {
        f.lastMovement += Math.abs(cwnd - f.cwnd);
        f.cwnd = cwnd;
    }

    /** uec.cpp:1389-1400: a lower RTT lowers the base RTT and with it BDP and maxwnd. */
    private void updateBaseRtt(Flow f, long rawRttPs) {
        if (Long.compareUnsigned(f.baseRttPs, rawRttPs) > 0) {
            f.baseRttPs = rawRttPs;
            f.bdp = (long) (rawRttPs / 1_000_000.0 * (double) p.linkspeedBps() / 8_000_000);
            f.maxwnd = NsccParams.maxWindow(f.bdp);
        }
    }

    /**
     * uec.cpp:1402-1423 update_delay with update_avg: a high sample without a mark enters as
     * base RTT / 4; otherwise the sample (both of the reference's branches weigh it 0.0125).
     */
    private void updateDelay(Flow f, long rawRttPs, boolean skip) {
        long delay = rawRttPs - f.baseRttPs;
        double avg;
        if (!skip && delay > p.targetQdelayPs()) {
            avg = p.delayAlpha() * f.baseRttPs * 0.25 + (1 - p.delayAlpha()) * f.avgDelayPs;
        } else {
            avg = p.delayAlpha() * delay + (1 - p.delayAlpha()) * f.avgDelayPs;
        }
        f.avgDelayPs = (long) avg;
    }

    /** uec.cpp:1145-1200 quick_adapt: true when it fired or the event is ignored. */
    private boolean quickAdapt(Flow f, long nowPs, boolean isLoss, boolean skip, long delay, long inFlight) {
        boolean doneOrIgnore = false;
        if (f.bytesIgnored < f.bytesToIgnore && skip) { // :1157
            doneOrIgnore = true;
            f.lastRule = NsccRule.IGNORED;
        } else if (nowPs > f.qaEndtimePs) { // :1159
            if (f.qaEndtimePs != 0 && (f.triggerQa || isLoss || delay > p.qaThreshold())
                    && f.achievedBytes < (f.maxwnd >> p.qaGate())) {
                move(f, Math.max(f.achievedBytes, p.mtu())); // :1174
                f.bytesToIgnore = inFlight & U32;        // :1186
                f.bytesIgnored = 0;
                f.triggerQa = false;
                doneOrIgnore = true;
                f.lastRule = NsccRule.QUICK_ADAPT;
            }
            f.achievedBytes = 0; // :1192
            f.qaEndtimePs = nowPs + f.baseRttPs + p.targetQdelayPs();
        }
        if (doneOrIgnore) { // :1196
            f.incBytes = 0;
            f.receivedBytes = 0;
        }
        return doneOrIgnore;
    }

    private void addIncrease(Flow f, double increase) {
        double sum = f.incBytes + increase;
        f.incBytes = p.wrapIncBytes() ? (long) sum & U32 : (long) sum; // uint32 += double (uec.h:413)
    }

    /** uec.cpp:1202-1206. */
    private void fairIncrease(Flow f, long newly) {
        addIncrease(f, p.fi() * (newly & U32));
    }

    /** uec.cpp:1208-1219; true when FastIncrease latched instead. */
    private boolean proportionalIncrease(Flow f, long newly, long delay) {
        if (fastIncrease(f, newly, delay)) {
            return true;
        }
        addIncrease(f, p.alpha() * (newly & U32) * (double) (p.targetQdelayPs() - delay));
        return false;
    }

    /** uec.cpp:1221-1238: below 1 us for more than a window of bytes, grow by bytes x fi_scale per ACK. */
    private boolean fastIncrease(Flow f, long newly, long delay) {
        if (delay < NsccParams.FAST_INCREASE_DELAY_PS) {
            f.fiCount = (f.fiCount + newly) & U32;
            if (f.fiCount > f.cwnd || f.increase) {
                move(f, (long) (f.cwnd + (newly & U32) * p.fiScale()));
                f.increase = true;
                return true;
            }
        } else {
            f.fiCount = 0;
        }
        f.increase = false;
        return false;
    }

    /** uec.cpp:1240-1255: once a base RTT, x max(1 - gamma (avg - T) / avg, 0.5) while avg > T. */
    private boolean multiplicativeDecrease(Flow f, long nowPs) {
        f.increase = false;
        f.fiCount = 0;
        long avg = f.avgDelayPs;
        if (avg > p.targetQdelayPs() && nowPs - f.lastDecTimePs > f.baseRttPs) {
            double factor = Math.max(1 - p.gamma() * (avg - p.targetQdelayPs()) / avg, 0.5);
            move(f, (long) (f.cwnd * factor));
            move(f, Math.max(f.cwnd, p.mtu()));
            f.lastDecTimePs = nowPs;
            return true;
        }
        return false;
    }

    /** uec.cpp:1257-1295: the pending increase over the window, then eta once a network RTT. */
    private void fulfillAdjustment(Flow f, long nowPs) {
        move(f, f.cwnd + f.incBytes / f.cwnd);
        if (nowPs - f.lastAdjustTimePs >= p.networkRttPs()) {
            move(f, (long) (f.cwnd + p.eta()));
            f.lastAdjustTimePs = nowPs;
        }
        f.incBytes = 0;
        f.receivedBytes = 0;
    }

    /** uec.cpp:1137-1143: [MTU, maxwnd]. */
    private void setCwndBounds(Flow f) {
        if (f.cwnd < p.mtu()) {
            move(f, p.mtu());
        }
        if (f.cwnd > f.maxwnd) {
            move(f, f.maxwnd);
        }
    }
}
