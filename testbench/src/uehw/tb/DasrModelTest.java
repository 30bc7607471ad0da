// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import uehw.experiments.DasrIncast;
import uehw.model.dart.DasrModel;
import uehw.model.dart.DasrModel.State;

/**
 * Dart's receiver half (DASR, dart.txt Sec. III) at model level: the paper's scenarios on the
 * model, and the Sec. V-B incast on the network simulator with and without DASR (issue 16's model
 * part; the hardware block is not built yet).
 */
@Tag("model")
@ExtendWith(BenchExtension.class)
class DasrModelTest {
    private static final long WINDOW = 10_000;
    private static final long LINE = 11_875; // 95% of 100 Gb/s x 10 us

    private static DasrModel model() {
        return new DasrModel(4, 3, 2_000_000L, WINDOW, LINE);
    }

    /** Fig. 2: a long sender alone sees n = 1; the first packet of a second sender's message makes both ACKs carry n = 2. */
    @Test
    void secondLongSenderHalvesBothRatesWithinOneAck() {
        DasrModel m = model();
        assertEquals(1, m.packet(7, true, false, false, false, 4160, 0).n());
        assertEquals(1, m.packet(7, false, false, false, false, 4160, 100).n());
        assertEquals(2, m.packet(9, true, false, false, false, 4160, 200).n(), "the new sender's first ACK");
        assertEquals(2, m.packet(7, false, false, false, false, 4160, 300).n(), "the long sender's next ACK");
        assertEquals(1, m.packet(9, false, true, false, false, 4160, 400).n(), "its message ended: back to one");
    }

    /** Sec. III-B: a sender in two overlapping incasts (two messages in flight) is counted once, and leaves after both end. */
    @Test
    void senderInTwoIncastsCountedOnce() {
        DasrModel m = model();
        m.packet(1, true, false, false, false, 1000, 0);
        m.packet(5, true, false, false, false, 1000, 10);
        assertEquals(2, m.packet(5, true, false, false, false, 1000, 20).n(), "sender 5's second message: still 2 senders");
        assertEquals(2, m.packet(5, false, true, false, false, 1000, 30).n(), "one of its messages ended: still in the set");
        assertTrue(m.contains(5));
        assertEquals(1, m.packet(5, false, true, false, false, 1000, 40).n(), "both ended: it leaves");
        assertFalse(m.contains(5));
        assertEquals(2, m.counters.get("ADDS"));
        assertEquals(1, m.counters.get("REMOVES"));
    }

    /**
     * Sec. III-B soft state: a sender that never ends its message is evicted once idle longer than
     * the timeout, by the sweep that looks at one of the 4 slots a packet: never before, and at
     * most 4 packets after.
     */
    @Test
    void crashedSenderIsEvictedAfterTheIdleTimeout() {
        DasrModel m = model();
        m.packet(3, true, false, false, false, 1000, 0);   // slot 0 (the sweep looks at slot 0), then it crashes
        m.packet(4, true, false, false, false, 1000, 10);  // slot 1 (the sweep: slot 1)
        for (int k = 0; k < 8; k++) {                      // the sweep passes slot 0 twice: idle 1 ms, kept
            assertEquals(2, m.packet(4, false, false, false, false, 1000, 1_000_000 + k).n());
        }
        m.packet(4, false, false, false, false, 1000, 2_000_000);  // slots 2, 3
        m.packet(4, false, false, false, false, 1000, 2_000_000);
        assertEquals(2, m.packet(4, false, false, false, false, 1000, 2_000_000).n(), "slot 0 idle for exactly the timeout: kept");
        int packets = 0;
        while (m.contains(3) && packets < 2 * 4) {
            m.packet(4, false, false, false, false, 1000, 2_000_001 + packets);
            packets++;
        }
        assertEquals(4, packets, "evicted when the sweep comes back to slot 0");
        assertEquals(1, m.counters.get("EVICTIONS"));
        assertEquals(1, m.packet(4, false, false, false, false, 1000, 2_100_000).n());
    }

    /** A sender id wider than the id width is ignored by the set and counted; its bytes still count. */
    @Test
    void senderIdOutOfRangeIsIgnoredAndCounted() {
        DasrModel m = new DasrModel(4, 3, 2_000_000L, WINDOW, LINE, 8);
        assertEquals(1, m.packet(255, true, false, false, false, 1000, 0).n());
        assertEquals(1, m.packet(256, true, false, false, false, 1000, 10).n(), "id 256 does not fit 8 bits: n stays 1");
        m.lookAhead(7, new int[] {1, 300}, 20);
        assertEquals(2, m.activeSenders(), "the look-ahead adds sender 1 only");
        assertEquals(2, m.counters.get("SENDER_OUT_OF_RANGE"));
    }

    /** Fig. 5: ECN with the receiver at line rate is receiver congestion (n carried, ECN echoes held back); below it, non-receiver (n = 1, echoes pass). */
    @Test
    void congestionStateMachine() {
        DasrModel m = model();
        m.packet(1, true, false, false, true, (int) LINE, 0);            // window 0: line rate and a mark
        m.packet(2, true, false, false, false, 1000, 100);
        DasrModel.Reply r = m.packet(1, false, false, false, false, 1000, WINDOW);
        assertEquals(State.RECEIVER_CONGESTION, m.state());
        assertEquals(2, r.n());
        assertFalse(r.ecnPass(), "receiver congestion: ECN echoes suppressed");
        m.packet(1, false, false, false, true, 1000, WINDOW + 10);       // window 1: a mark, far below line rate
        r = m.packet(1, false, false, false, false, 1000, 2 * WINDOW);
        assertEquals(State.NON_RECEIVER_CONGESTION, m.state());
        assertEquals(1, r.n(), "non-receiver congestion: n = 1 (DCQCN's fall-back acts)");
        assertTrue(r.ecnPass());
        r = m.packet(1, false, false, false, false, 1000, 3 * WINDOW);    // window 2: no mark
        assertEquals(State.NO_CONGESTION, m.state());
        assertEquals(2, r.n());
        assertEquals(3, m.counters.get("STATE_CHANGES"));
        m.packet(1, false, false, false, true, (int) LINE, 3 * WINDOW + 1);
        m.packet(1, false, false, false, false, 1, 10 * WINDOW);           // windows 3..9 closed at once
        assertEquals(State.NO_CONGESTION, m.state(), "the empty windows after the marked one end it");
        assertEquals(5, m.counters.get("STATE_CHANGES"));
    }

    /** The set's capacity: a sender that finds it full is counted (and still in n); its end takes it off; an end with nothing started is counted. */
    @Test
    void fullSetOverflowsIntoACountedExtra() {
        DasrModel m = model();
        for (int s = 0; s < 4; s++) {
            m.packet(s, true, false, false, false, 100, s);
        }
        assertEquals(5, m.packet(99, true, false, false, false, 100, 10).n(), "the fifth sender still counts");
        assertEquals(1, m.counters.get("OVERFLOWED"));
        assertEquals(4, m.packet(99, false, true, false, false, 100, 20).n());
        m.packet(77, false, true, false, false, 100, 30);
        assertEquals(1, m.counters.get("ENDS_WITHOUT_START"));
        for (int i = 0; i < 5; i++) {
            m.packet(0, true, false, false, false, 100, 40 + i);
        }
        assertEquals(3, m.counters.get("MESSAGE_COUNT_SATURATED"), "six starts of one sender: its count stops at its maximum (3), three counted");
    }

    /** Sec. III-D: a look-ahead counts its group's senders at once; their announced first packets do not count them again; a repeat is ignored. */
    @Test
    void lookAheadCountsTheGroupOnce() {
        DasrModel m = model();
        m.lookAhead(42, new int[] {1, 2, 3}, 0);
        assertEquals(3, m.activeSenders());
        m.lookAhead(42, new int[] {1, 2, 3}, 10);
        assertEquals(3, m.activeSenders(), "the same group again");
        assertEquals(3, m.packet(1, true, false, true, false, 100, 20).n());
        assertEquals(3, m.packet(2, true, true, true, false, 100, 30).n() + 1, "a one-packet message starts and ends");
        assertEquals(2, m.activeSenders());
        assertEquals(3, m.counters.get("LOOK_AHEAD_ADDS"));
    }

    /**
     * dart.txt Sec. V-B: a long flow and periodic 16-way incasts of 256 KB into one receiver, SMaRTT
     * at every sender, with and without DASR. DASR with the look-ahead throttles the long flow within
     * about one RTT of an incast's start; the incasts' p99 completion is lower with DASR; the long
     * flow keeps its throughput. Writes build/experiments/dasr-incast.csv.
     */
    @Tag("netsim")
    @Test
    void dasrShortensIncastsAndConvergesInAboutOneRtt() throws Exception {
        long seed = BenchExtension.seed();
        int rounds = 10;
        DasrIncast.Result[] r = new DasrIncast.Result[DasrIncast.Mode.values().length];
        Path csv = Path.of("build", "experiments", "dasr-incast.csv");
        Files.createDirectories(csv.getParent());
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
            out.println("mode,round,incast_completion_ns,convergence_ns");
            for (DasrIncast.Mode mode : DasrIncast.Mode.values()) {
                DasrIncast.Result x = DasrIncast.run(mode, rounds, seed);
                r[mode.ordinal()] = x;
                System.out.println("DASR incast (seed " + seed + "): " + x.line());
                for (int i = 0; i < rounds; i++) {
                    out.printf(Locale.ROOT, "%s,%d,%d,%d%n", mode, i, x.incastNs()[i], x.convergenceNs()[i]);
                    assertTrue(x.incastNs()[i] > 0 && x.incastNs()[i] < DasrIncast.PERIOD_NS, "seed " + seed + ": " + mode + " round " + i);
                }
            }
        }
        DasrIncast.Result smartt = r[0], dasr = r[1], lookAhead = r[2];
        double rtt = DasrIncast.BASE_RTT_NS;
        assertTrue(lookAhead.percentile(lookAhead.convergenceNs(), 50) <= 1.5 * rtt, "seed " + seed + ": look-ahead converges in about one RTT");
        assertTrue(dasr.percentile(dasr.convergenceNs(), 50) > lookAhead.percentile(lookAhead.convergenceNs(), 50),
                "seed " + seed + ": counting senders as their packets come takes longer than the look-ahead");
        for (DasrIncast.Result x : new DasrIncast.Result[] {dasr, lookAhead}) {
            assertTrue(x.percentile(x.incastNs(), 99) < smartt.percentile(smartt.incastNs(), 99),
                    "seed " + seed + ": " + x.mode() + " incast p99 below SMaRTT alone's");
            assertTrue(x.longFlowGbps() > 0.9 * smartt.longFlowGbps(), "seed " + seed + ": the long flow keeps its throughput");
        }
    }
}
