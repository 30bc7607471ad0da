// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import uehw.experiments.UetReference;
import uehw.experiments.UetReference.Result;
import uehw.experiments.UetReference.Scenario;
import uehw.netsim.EventLoop;
import uehw.netsim.Node;
import uehw.netsim.Packet;
import uehw.netsim.Port;

/**
 * The network simulator in the UEC reference simulator's setting (issue 33 deliverable 4): its
 * validation runs against the figures uet-htsim 40ccb05 prints for them (tail FCT within 3 %, ACK
 * and NACK counts within 10 %), on NSCC's exact model and on the nscc block's fixed-point law;
 * packet conservation in each run; the composite queue's trim rule on a directed burst.
 */
@Tag("netsim")
class UetReferenceTest {
    private static void assertMatches(Result r, String law) {
        Scenario s = r.scenario();
        String what = law + " " + s.name() + ": " + UetReference.row(r);
        assertEquals(0, r.unfinished(), what);
        assertTrue(Math.abs(r.tailError()) <= 0.03, what + ": tail FCT off by more than 3 %");
        assertTrue(Math.abs(r.acks() - s.acks()) <= 0.10 * s.acks(), what + ": ACKs off by more than 10 %");
        assertTrue(Math.abs(r.nacks() - s.nacks()) <= Math.max(1, 0.10 * s.nacks()), what + ": NACKs off by more than 10 %");
        assertTrue(Math.abs(r.pulls() - s.pulls()) <= Math.max(1, 0.10 * s.pulls()), what + ": pulls off by more than 10 %");
        // Conservation, independent of the reference: every byte goes once as a new packet of at
        // most MSS payload, and every NACKed packet goes again; a timed-out one too unless an ACK
        // comes for it before its retransmission.
        long packets = s.connections().stream().mapToLong(c -> (c.bytes() + 4085) / 4086).sum();
        assertEquals(packets, r.newPackets(), what);
        assertEquals(s.newPackets(), r.newPackets(), what);
        if (r.timeouts() == 0) {
            assertEquals(r.nacks(), r.rtx(), what + ": a retransmission per NACK");
        } else {
            assertTrue(r.rtx() >= r.nacks() && r.rtx() <= r.nacks() + r.timeouts(), what + ": " + r.timeouts() + " timeouts");
        }
        assertTrue(r.acks() <= r.newPackets() + r.rtx(), what + ": at most one ACK per delivered packet");
    }

    @Test
    void theValidationRunsMatchTheReferenceOnTheExactLaw() {
        for (Scenario s : UetReference.defaults()) {
            assertMatches(UetReference.run(s, UetReference.exact()), "exact");
        }
    }

    @Test
    void theValidationRunsMatchTheReferenceOnTheFixedLaw() {
        for (Scenario s : UetReference.defaults()) {
            assertMatches(UetReference.run(s, UetReference.fixed()), "fixed");
        }
    }

    /**
     * Issue 34's rows: incast15 under RCCC alone and NSCC + RCCC (the receiver's pull pacer, the
     * sender's credit), on the reference's pacer and on the rccc-pacer block's model at 250 MHz
     * (ClockedPullPacer; RcccPacerTest runs the RTL in its place and compares the traces).
     */
    @Test
    void theRcccRowsMatchTheReference() {
        for (Scenario s : UetReference.rccc()) {
            assertMatches(UetReference.run(s, UetReference.exact()), "exact");
            if (s.senderCc()) {
                assertMatches(UetReference.run(s, UetReference.fixed()), "fixed");
            }
            Result block = UetReference.run(s, UetReference.exact(), uehw.netsim.ClockedPullPacer.models(1024, 4000), net -> { });
            System.out.println("the rccc-pacer block's model at 250 MHz: " + UetReference.row(block));
            assertMatches(block, "the block's pacer");
            assertEquals(0, block.timeouts(), s.name() + ": nothing times out in these runs");
        }
    }

    /**
     * RCCC's oversubscription controller forced on in incast15 (oversubscribed_cc.cpp on its exact
     * model at the receiver, uec.cpp:3132-3139 dividing the pacer's time per quantum): the row within
     * the bounds; without the controller the run is the plain RCCC row's, so the controller is what
     * moves the tail by about 180 us (the start's trims cut the pull rate to its floor).
     */
    @Test
    void theOversubscriptionControllersRowMatchesTheReference() {
        Result r = UetReference.run(UetReference.rcccOversubscribed(), UetReference.exact());
        System.out.println("oversubscribed cc: " + UetReference.row(r) + ", " + r.timeouts() + " timeouts");
        assertMatches(r, "exact");
        Result without = UetReference.run(UetReference.rccc().get(0), UetReference.exact());
        assertTrue(r.tailUs() > without.tailUs() + 100, "the controller slows the incast: " + r.tailUs() + " vs " + without.tailUs());
    }

    /**
     * The rccc-pacer block's list rule (each connection on the idle list at most once, docs/rccc.md)
     * in the reference's pacer: the RCCC rows stay within the bounds, and how far they move from the
     * reference's own rule is printed (docs/rccc.md, "Decisions"). The rule must change something in
     * the incast (the reference lists idle connections twice there), or this test measures nothing.
     */
    @Test
    void theBlocksListRuleKeepsTheRcccRowsWithinBounds() {
        for (Scenario s : UetReference.rccc()) {
            Result reference = UetReference.run(s, UetReference.exact());
            Result block = UetReference.run(s, UetReference.exact(), uehw.netsim.UecPullPacer.factory(true), net -> { });
            System.out.printf("%s: the reference's list rule %s; each list once %s%n", s.name(), UetReference.row(reference),
                    UetReference.row(block));
            assertMatches(block, "each list once");
            assertTrue(block.pulls() != reference.pulls() || block.tailUs() != reference.tailUs(),
                    s.name() + ": the rule changed nothing, so nothing was measured");
        }
    }

    /**
     * The pacer alone (uec.cpp:3061-3130): a connection whose target stays ahead is granted 64
     * quanta an event, one event every 64 x 20,686 ps: over 10 ms the granted bytes are the
     * configured rate's (0.99 x 100 Gb/s, the time per quantum truncated to ps) within 0.1 %; then,
     * its target met, it gets slow pulls of 64 quanta while no connection is active until its
     * excess reaches the configured maxwnd, and the pacer stops.
     */
    @Test
    void thePullPacerGrantsAtItsConfiguredRateThenSlowPullsUpToMaxwnd() {
        EventLoop loop = new EventLoop();
        List<Long> grants = new ArrayList<>();
        List<Boolean> slow = new ArrayList<>();
        uehw.netsim.UecPullPacer pacer = new uehw.netsim.UecPullPacer(loop, UetReference.PS_PER_QUANTUM,
                UetReference.CREDIT_PER_PULL, UetReference.configuredMaxwnd(), (sink, isSlow) -> {
                    grants.add(sink.latestPull);
                    slow.add(isSlow);
                });
        uehw.netsim.UecPullPacer.Sink sink = pacer.sink(7);
        long horizon = 10_000_000_000L; // 10 ms
        long target = uehw.netsim.UecPullPacer.INIT_PULL + horizon / UetReference.PS_PER_QUANTUM + 1000;
        pacer.pullTarget(sink, target);
        loop.run(horizon);
        long granted = grants.get(grants.size() - 1) - uehw.netsim.UecPullPacer.INIT_PULL;
        double rateBytesPerPs = granted * 256.0 / horizon;
        double configured = 0.99 * 100e9 / 8 / 1e12;
        assertTrue(Math.abs(rateBytesPerPs / configured - 1) < 0.001, "granted " + rateBytesPerPs + " B/ps");
        assertEquals(20_686, UetReference.PS_PER_QUANTUM);
        assertEquals(64, UetReference.CREDIT_PER_PULL);
        for (int i = 1; i < grants.size(); i++) {
            assertEquals(64, grants.get(i) - grants.get(i - 1), "a full grant each event, never backwards");
        }
        // The target met: the rest up to it, then slow pulls to the configured maxwnd (1027 quanta).
        loop.run(Long.MAX_VALUE);
        assertEquals(target, sink.highestPullTarget);
        int firstSlow = slow.indexOf(true);
        assertEquals(target, (long) grants.get(firstSlow - 1));
        long slowQuanta = grants.get(grants.size() - 1) - target;
        assertEquals(17, slow.size() - firstSlow, "slow pulls of 64 until the excess reaches 262,926 B >> 8 = 1027 quanta");
        assertEquals(17 * 64, slowQuanta);
        assertTrue(slow.subList(firstSlow, slow.size()).stream().allMatch(b -> b));
    }

    @Test
    void theExperimentWritesTheSummaryAndTheIncastsWindows(@TempDir Path out) throws Exception {
        List<Result> results = UetReference.write(out, UetReference.defaults(), UetReference.exact(),
                uehw.bench.Simulation.projectRoot().resolve("testbench/resources/uet-htsim/nscc-incast15-100g.csv.gz"));
        List<String> lines = Files.readAllLines(out.resolve("summary.csv"));
        assertTrue(lines.get(0).startsWith("scenario,tail_fct_us,acks,nacks,pulls,new,rtx,"), lines.get(0));
        assertEquals(List.of("one", "incast3", "incast15", "perm16"),
                lines.subList(1, lines.size()).stream().map(l -> l.substring(0, l.indexOf(','))).toList());
        for (Result r : results) {
            assertTrue(UetReference.withinBounds(r), UetReference.row(r));
        }
        for (String f : List.of("incast15-windows.csv", "incast15-windows.png", "incast15-reference-windows.png")) {
            assertTrue(Files.size(out.resolve(f)) > 1000, f);
        }
    }

    @Test
    void aRunIsDeterministic() {
        Scenario s = UetReference.defaults().get(2);
        List<uehw.netsim.Network> nets = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            UetReference.run(s, UetReference.exact(), nets::add);
        }
        assertEquals(nets.get(0).traceDigest(), nets.get(1).traceDigest());
        assertEquals(nets.get(0).loop.executed(), nets.get(1).loop.executed());
    }

        /** {@code n} data packets of 4150 B (seq 0..n-1) into a composite port of {@code capacity} bytes at once; what left it, in order. */
    private static List<Packet> burst(long capacity, long seed, int n, Port[] port) {
        EventLoop loop = new EventLoop();
        port[0] = new Port("p", loop, Port.Spec.composite(capacity, 64, 1L << 40, 1L << 41, seed), 100, 1000);
        List<Packet> out = new ArrayList<>();
        port[0].connect(new Node() {
            @Override
            public String name() {
                return "sink";
            }

            @Override
            public void receive(Packet p, Port from) {
                out.add(p);
            }
        });
        for (int i = 0; i < n; i++) {
            port[0].send(new Packet(Packet.Kind.DATA, 0, 0, 1, i, 4086, 0, 0, 4150, false));
        }
        loop.run(1L << 40);
        return out;
    }

    /**
     * compositequeue.cpp:162-262 on a burst: ten 4150 B packets into a port of four packets' data
     * (the first in service counts): four leave as data in their order, six as 64 B headers ahead
     * of them, each packet once; a full queue trims the arrival or the packet queued last, both
     * seen over the burst. With a capacity of one packet nothing is queued to trim: the arrival is.
     */
    @Test
    void theCompositeQueueTrimsTheArrivalOrTheLastQueued() {
        boolean sawBooted = false, sawArrivalTrimmed = false;
        Port[] port = new Port[1];
        for (long seed = 1; seed <= 20; seed++) {
            List<Packet> out = burst(4 * 4150, seed, 10, port);
            List<Long> data = out.stream().filter(p -> !p.trimmed).map(p -> p.seq).toList();
            List<Long> headers = out.stream().filter(p -> p.trimmed).map(p -> p.seq).toList();
            assertEquals(4, data.size(), "seed " + seed + ": " + data);
            assertEquals(6, headers.size());
            assertEquals(data.stream().sorted().toList(), data, "data leave in order");
            assertEquals(0L, data.get(0), "the packet in service is never trimmed");
            assertTrue(out.stream().allMatch(p -> p.bytes == (p.trimmed ? 64 : 4150)));
            assertEquals(45L, out.stream().mapToLong(p -> p.seq).sum(), "each packet once");
            assertTrue(out.subList(1, 7).stream().allMatch(p -> p.trimmed), "headers go first");
            assertEquals(6, port[0].trims);
            sawBooted |= headers.stream().anyMatch(h -> h < data.get(3));
            sawArrivalTrimmed |= headers.contains(9L);
        }
        assertTrue(sawBooted && sawArrivalTrimmed);
        assertEquals(List.of(false, true, true), burst(4150, 1, 3, port).stream().map(p -> p.trimmed).toList());
    }
}
