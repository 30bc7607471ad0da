// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.nscc.NsccFixedModel.Event;
import uehw.model.nscc.NsccFixedModel.Kind;
import uehw.model.nscc.NsccFixedModel.State;
import uehw.model.nscc.NsccFixedParams;
import uehw.model.nscc.NsccParams;
import uehw.model.nscc.NsccRule;

/**
 * The fixed-point NSCC law's directed cases: the reference's worked numbers, and the defined
 * behaviour of bad input and of the formats' edges (docs/nscc.md "The fixed model").
 */
@Tag("model")
class NsccFixedModelTest {
    private static final NsccParams P = NsccParams.reference(100_000_000_000L, 4150, 14_022_720);
    private static final NsccFixedParams Q = NsccFixedParams.of(P);

    private static NsccFixedModel model(long initCwnd) {
        NsccFixedModel m = new NsccFixedModel(4, Q, 14_022, initCwnd);
        m.apply(new Event(0, Kind.INIT, 0, 0, false, false, 255, 0, 0));
        return m;
    }

    private static Event ack(long bytes, long rttNs, boolean ecn, long now) {
        return new Event(0, Kind.ACK, bytes, rttNs, ecn, false, 255, 174_300, now);
    }

    /**
     * The fact sheet's worked check (uet-nscc-rccc.md 1.10; the reference's incast3 run, flow
     * Uec_127_0, -cwnd 50): 207 500 B; ACK1 of 4150 B at one network RTT, no fulfill (the test is
     * strict); ACK2 of 16 600 B 1.328 us later fulfills by time, +1673 and eta 716: 209 889 B; ACKs 3
     * and 4 wait; ACK5 fulfills by bytes, +3971: 213 860 B. The table's division may be a byte off.
     */
    @Test
    void theReferencesWorkedNumbers() {
        NsccFixedModel m = model(207_500);
        m.apply(ack(4150, 14_022, false, 14_022));
        assertEquals(207_500, m.state(0).cwnd);
        assertTrue(!m.state(0).fulfilled);
        m.apply(ack(16_600, 14_022, false, 15_350));
        assertTrue(m.state(0).fulfilled);
        assertEquals(209_889, m.state(0).cwnd, 1);
        long after2 = m.state(0).cwnd;
        m.apply(ack(16_600, 14_022, false, 16_678));
        m.apply(ack(16_600, 14_022, false, 18_006));
        assertEquals(after2, m.state(0).cwnd, "no fulfill: 33 200 B acked is not above 8 MTU");
        m.apply(ack(16_600, 14_022, false, 19_334));
        assertEquals(213_860, m.state(0).cwnd, 2);
        assertEquals(NsccRule.PROPORTIONAL_INCREASE, m.state(0).rule);
        assertEquals(2, m.counters.get("FULFILLS"));
        assertEquals(1, m.counters.get("ETAS"));
    }

    @Test
    void anOutOfRangeFlowIsCountedAndChangesNothing() {
        NsccFixedModel m = model(0);
        State before = m.state(0).clone();
        m.apply(new Event(4, Kind.ACK, 4150, 14_022, false, false, 255, 0, 100));
        m.apply(new Event(1 << 20, Kind.NACK, 4150, 14_022, false, false, 255, 0, 100));
        assertEquals(2, m.counters.get("OUT_OF_RANGE"));
        assertEquals(1, m.counters.get("EVENTS"), "EVENTS counts flows < N only: the INIT");
        assertEquals(0, m.counters.get("ACKS") + m.counters.get("NACKS"));
        assertEquals(before.cwnd, m.state(0).cwnd);
    }

    @Test
    void aNackAboveMtuCountsAsMtuAndZeroBytesAreCounted() {
        NsccFixedModel m = model(100_000);
        m.apply(new Event(0, Kind.NACK, 9000, 0, false, false, 255, 50_000, 100));
        // the first NACK starts QuickAdapt's window (it fires only from the second window on): a decrease of MTU
        assertEquals(NsccRule.NACK_DECREASE, m.state(0).rule);
        assertEquals(100_000 - 4150, m.state(0).cwnd);
        assertEquals(1, m.counters.get("OVER_MTU"));
        m.apply(new Event(0, Kind.TIMEOUT, 0, 0, false, false, 255, 0, 200));
        assertEquals(1, m.counters.get("ZERO_BYTES"));
        assertEquals(100_000 - 4150, m.state(0).cwnd, "a timeout of 0 bytes takes nothing");
    }

    @Test
    void initSetsTheStateAndItsTimesToNow() {
        NsccFixedModel m = model(0);
        m.apply(ack(16_600, 30_000, true, 50_000));
        m.apply(new Event(0, Kind.INIT, 0, 0, false, false, 255, 0, 4_000_000_000L));
        State s = m.state(0);
        assertEquals(m.maxWindowOf(14_022), s.cwnd, "maxwnd: 1.5 BDP of the base RTT");
        assertEquals(4_000_000_000L, s.lastAdjust);
        assertEquals(4_000_000_000L, s.lastDec);
        assertEquals(0, s.avgDelay);
        assertTrue(!s.qaStarted && s.inc == 0);
        assertEquals(NsccRule.INIT, s.rule);
    }

    /** Times are ns modulo 2^32: QuickAdapt's window that ends just before the wrap has ended just after it. */
    @Test
    void timesWrapAt2To32() {
        NsccFixedModel m = model(0);
        long late = (1L << 32) - 10_000;
        m.apply(ack(4150, 14_022, false, late));                 // starts the window: ends at late + base + T, past 2^32
        long end = m.state(0).qaEnd;
        assertEquals((late + 14_022 + Q.targetNs()) & 0xFFFF_FFFFL, end);
        m.apply(new Event(0, Kind.NACK, 4150, 0, false, false, 255, 20_000, late + 5_000)); // before the wrap: the window runs
        assertEquals(NsccRule.NACK_DECREASE, m.state(0).rule);
        m.apply(new Event(0, Kind.NACK, 4150, 0, false, false, 255, 20_000, end));      // not later: the window runs
        assertEquals(NsccRule.NACK_DECREASE, m.state(0).rule);
        m.apply(new Event(0, Kind.NACK, 4150, 0, false, false, 255, 20_000, end + 1));  // later, across the wrap: QuickAdapt
        assertEquals(NsccRule.QUICK_ADAPT, m.state(0).rule);
        assertEquals(4150, m.state(0).cwnd, "nothing acked in the window: cwnd = max(achieved, MTU)");
    }

    /** The pending increase stops at 2^44 - 1 and counts; the reference's uint32 would have wrapped. */
    @Test
    void thePendingIncreaseSaturates() {
        NsccFixedModel m = model(0);
        State s = m.state(0).clone();
        s.inc = (1L << 44) - 1_000;
        s.lastAdjust = 0;
        m.setState(0, s);
        m.apply(ack(16_600, 30_000, false, 1_000));          // fair increase, no fulfill (1 us after the last eta)
        assertEquals(NsccRule.FAIR_INCREASE, m.state(0).rule);
        assertEquals((1L << 44) - 1, m.state(0).inc);
        assertEquals(1, m.counters.get("INC_SATURATED"));
    }
}
