// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import uehw.bench.CounterCheck;
import uehw.bench.Simulation;
import uehw.bench.csr.RepsCsr;
import uehw.bench.reps.RepsBench;
import uehw.hw.reps.Reps;
import uehw.hw.reps.RepsConfig;
import uehw.model.reps.RepsModel;
import uehw.model.reps.RepsModel.Ctrl;
import uehw.model.reps.RepsModel.Mode;
import uehw.model.reps.RepsModel.SendResult;

/** REPS entropy cache: RTL against the golden model, the paper's scenarios, line rate, bad input. */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class RepsTest {

    static RepsConfig config(String mode, int connections, int timeout, int bdp) {
        return new RepsConfig(mode, connections, 8, 16, 16, 32, 8, timeout, bdp, 0, 0x2545F491L);
    }

    static Simulation<Reps> compile(RepsConfig cfg) {
        String name = cfg.mode() + "_n" + cfg.connections() + "_t" + cfg.freezingTimeout() + "_b" + cfg.numPktsBdp()
                + (cfg.equals(config(cfg.mode(), cfg.connections(), (int) cfg.freezingTimeout(), cfg.numPktsBdp())) ? ""
                : "_B" + cfg.bufferEntries() + "e" + cfg.evWidth() + "i" + cfg.connIdWidth() + "t" + cfg.timeWidth() + "x" + cfg.exploreWidth());
        return Simulation.compile(RepsTest.class, name, () -> new Reps(cfg));
    }

    /** The body of a test that runs against a fresh bench (DUT after reset next to a fresh model). */
    @FunctionalInterface
    interface BenchBody {
        void run(RepsBench bench, long seed) throws Exception;
    }

    /** Compiles (once) and runs {@code body} with a new seed on a bench of {@code cfg}. */
    static void withBench(RepsConfig cfg, String testName, BenchBody body) {
        BenchExtension.bench(compile(cfg), testName, sim -> new RepsBench(sim, model(cfg)), body::run);
    }

    static RepsModel model(RepsConfig cfg) {
        return new RepsModel(Mode.of(cfg.mode()), cfg.connections(), cfg.bufferEntries(), cfg.evWidth(),
                cfg.timeWidth(), cfg.exploreWidth(), cfg.freezingTimeout(), cfg.numPktsBdp(), cfg.evsSizeDefault(),
                cfg.prngSeed());
    }

    // ------------------------------------------------------------ randomized equivalence

    static Stream<Arguments> randomConfigs() {
        int scale = Seeds.scale();
        return Stream.of(
                Arguments.of("reps", 1024, 1_000_000 * scale),
                Arguments.of("reps-lite", 256, 150_000 * scale),
                Arguments.of("ops", 64, 100_000 * scale));
    }

    /**
     * Random mixed traffic: ACKs carrying EVs the connection really sent (or junk), ECN and trim
     * marks, failures, out-of-range ids, a hot set of connections that collide on consecutive
     * clocks and within one clock, idle gaps, time jumps through the freezing timeout, `now` crossing
     * its 2^32 wrap, and CSR writes (INIT_CONN, SEED, NUM_PKTS_BDP, FREEZING_TIMEOUT, EVS_SIZE from 1 to 6 among them) at random
     * edges while the ports keep being driven, the model taking each at its documented edge. Every result and every counter must
     * equal the model's.
     */
    @ParameterizedTest(name = "{0} N={1} ops={2}")
    @Tag("soak")
    @MethodSource("randomConfigs")
    void randomOperationsMatchModel(String mode, int connections, int operations) {
        randomRun(config(mode, connections, 400, 6), "random_" + mode, operations);
    }

    static Stream<Arguments> limitConfigs() {
        int scale = Seeds.scale();
        return Stream.of(
                // every generation parameter at its smallest: two connections behind a 1-bit id, B = 2, e = 1, an
                // 8-bit `now`, a 1-bit explore counter
                Arguments.of("smallest reps", new RepsConfig("reps", 2, 2, 1, 1, 8, 1, 20, 1, 0, 1), 20_000 * scale),
                Arguments.of("smallest reps-lite", new RepsConfig("reps-lite", 2, 2, 1, 1, 8, 1, 20, 1, 0, 1), 20_000 * scale),
                // and at its largest: 65536 connections behind 24-bit ids, B = 32, e = 16, 32-bit time, a 16-bit counter
                Arguments.of("largest reps", new RepsConfig("reps", 65536, 32, 16, 24, 32, 16, 400, 40, 0, 0xFFFFFFFFL),
                        20_000 * scale),
                Arguments.of("largest ops", new RepsConfig("ops", 65536, 32, 16, 24, 32, 16, 400, 40, 0, 0xFFFFFFFFL),
                        20_000 * scale));
    }

    /** The random run of randomOperationsMatchModel with every generation parameter at its smallest, then its largest. */
    @ParameterizedTest(name = "{0}")
    @Tag("soak")
    @MethodSource("limitConfigs")
    void generationLimitsMatchModel(String label, RepsConfig cfg, int operations) {
        randomRun(cfg, "limits_" + label.replace(' ', '_'), operations);
    }

    static void randomRun(RepsConfig cfg, String testName, int operations) {
        String mode = cfg.mode();
        int connections = cfg.connections();
        withBench(cfg, testName, (bench, seed) -> {
            Random rnd = new Random(seed);
            Map<Long, List<Long>> sentEvs = new HashMap<>();
            long[] hot = {rnd.nextInt(connections), rnd.nextInt(connections), rnd.nextInt(connections)};
            long ops = 0;
            int csrWrites = 0;
            // About 7 ns a clock: `now` crosses its 2^32 wrap early in the run (freezing deadlines across it).
            bench.setNow((1L << 32) - 200_000 - rnd.nextInt(100_000));
            while (ops < operations) {
                if (rnd.nextInt(500) == 0 && bench.actions.csrIdle()) {
                    csrChange(bench, rnd, cfg);
                    csrWrites++;
                }
                if (rnd.nextInt(3000) == 0 && bench.actions.csrIdle()) {
                    bench.counter(RepsCsr.SENDS);   // a CSR read with results in flight: each is still seen and checked
                }
                bench.setNow(bench.now() + (rnd.nextInt(50) == 0 ? rnd.nextInt(600) : rnd.nextInt(3)));
                Ctrl ack = null;
                Ctrl failure = null;
                long send = -1;
                int shape = rnd.nextInt(10);
                if (shape < 8) {
                    send = pickConn(rnd, hot, connections, cfg.connIdWidth());
                }
                if (shape >= 1) {
                    long conn = rnd.nextInt(4) == 0 && send >= 0 ? send : pickConn(rnd, hot, connections, cfg.connIdWidth());
                    if (rnd.nextInt(40) == 0) {
                        failure = Ctrl.failure(conn);
                    }
                    if (rnd.nextInt(10) < 8) {
                        List<Long> evs = sentEvs.get(conn);
                        long ev = evs != null && !evs.isEmpty() && rnd.nextInt(8) != 0
                                ? evs.remove(rnd.nextInt(evs.size())) : rnd.nextInt(1 << cfg.evWidth());
                        ack = Ctrl.ack(conn, ev, rnd.nextInt(6) == 0, rnd.nextInt(12) == 0);
                    }
                }
                int refused = bench.clock(ack, failure, send);
                ops += (ack != null && (refused & 1) == 0 ? 1 : 0) + (failure != null && (refused & 2) == 0 ? 1 : 0)
                        + (send >= 0 && (refused & 4) == 0 ? 1 : 0);
                SendResult sent = bench.lastExpected();
                if (sent != null && !sent.outOfRange()) {
                    // Later ACKs echo the EVs this connection really sent (checked equal to the RTL's).
                    List<Long> evs = sentEvs.computeIfAbsent(sent.conn(), k -> new ArrayList<>());
                    if (evs.size() < 32) {
                        evs.add(sent.ev());
                    }
                }
            }
            bench.drain();
            assertCountersMatch(bench);
            System.out.printf("reps random %s: seed %d, %d operations, %d results compared, %d cycles, %d CSR writes under traffic%n",
                    mode, seed, ops, bench.results.matched(), bench.sim.cycle(), csrWrites);
        });
    }

    private static long pickConn(Random rnd, long[] hot, int connections, int idWidth) {
        int r = rnd.nextInt(100);
        if (r < 45) {
            return hot[rnd.nextInt(hot.length)];
        }
        long ids = 1L << idWidth;
        if (r < 47 && ids > connections) {
            return connections + (long) rnd.nextInt((int) Math.min(1000, ids - connections)); // out of range
        }
        return rnd.nextInt(connections);
    }

    /** Where each CSR write takes effect: the first acceptance edge, relative to the write's edge h, whose operations see it. */
    static final int NUM_PKTS_BDP_FROM = 0;
    static final int FREEZING_TIMEOUT_FROM = 0;
    static final int EVS_SIZE_FROM = 1;
    static final int SEED_FROM = 1;

    /**
     * A CSR write (init, seed, NUM_PKTS_BDP, FREEZING_TIMEOUT, EVS_SIZE) taken at an edge h chosen
     * ahead while the ports keep being driven; the model takes it at the edge docs/reps.md gives
     * (operations accepted from h - 1 on see a new NUM_PKTS_BDP, FREEZING_TIMEOUT or EVS_SIZE; the
     * PRNG reloads for the exploring sends accepted from h on; an init owns the control port at h + 2).
     */
    private static void csrChange(RepsBench bench, Random rnd, RepsConfig cfg) {
        long h = bench.sim.cycle() + 3 + rnd.nextInt(3);
        RepsModel m = bench.model;
        int connections = cfg.connections();
        switch (rnd.nextInt(5)) {
            case 0 -> bench.initAt(h, rnd.nextInt(connections + 2));
            case 1 -> {
                if (m.mode != Mode.LITE) { // reps-lite has no PRNG and no SEED register
                    long seed = rnd.nextInt(5) == 0 ? 0 : rnd.nextLong() & 0xFFFFFFFFL;
                    bench.actions.writeAt(h, RepsCsr.SEED, seed, h + SEED_FROM, () -> m.reseed(seed));
                }
            }
            case 2 -> {
                int bdp = rnd.nextInt((int) Math.min(12, 1L << cfg.exploreWidth()));
                bench.actions.writeAt(h, RepsCsr.NUM_PKTS_BDP, bdp, h + NUM_PKTS_BDP_FROM, () -> m.setNumPktsBdp(bdp));
            }
            case 3 -> {
                long timeout = rnd.nextInt((int) Math.min(1050, 1L << (cfg.timeWidth() - 1))); // modular compare: below half the range
                bench.actions.writeAt(h, RepsCsr.FREEZING_TIMEOUT, timeout, h + FREEZING_TIMEOUT_FROM,
                        () -> m.setFreezingTimeout(timeout));
            }
            default -> {
                // 0 (read as 2^e), small spaces (the entropy wraps within a BDP) and large ones
                long size = rnd.nextInt(6) == 0 ? 0 : rnd.nextInt(2) == 0 ? 1 + rnd.nextInt(6) : 1 + rnd.nextInt(1 << cfg.evWidth());
                bench.actions.writeAt(h, RepsCsr.EVS_SIZE, size, h + EVS_SIZE_FROM, () -> m.setEvsSize(size));
            }
        }
    }

    static void assertCountersMatch(RepsBench b) {
        // INIT_OVERRUN counts CSR inits written while one is pending: initWriteWhileInitPendingIsCounted's
        CounterCheck.assertRegisters("reps", RepsCsr.ADDRESSES, RepsCsr.COUNTERS, b::counter, b.model.counters.snapshot(),
                Set.of("INIT_OVERRUN"));
        // Conservation, independent of the model: every in-range send explored or reused.
        assertEquals(b.counter(RepsCsr.SENDS),
                b.counter(RepsCsr.SENDS_EXPLORED) + b.counter(RepsCsr.SENDS_RECYCLED), "SENDS = EXPLORED + RECYCLED");
    }

    // ------------------------------------------------------- the paper's scenarios (reps.txt Sec. 3)

    /** (a) + (d): clean ACKs are reused oldest-first; 10 ACKs into 8 entries keep the newest 8. */
    @Test
    void cleanAckBurstIsReusedOldestFirstAndKeepsNewestEight() {
        RepsConfig cfg = config("reps", 16, 1000, 0);
        withBench(cfg, "oldest_first", (bench, seed) -> {
            bench.keepResults(true);
            long conn = 5;
            for (int i = 0; i < 10; i++) {
                bench.clock(Ctrl.ack(conn, 1000 + i, false, false), -1);
            }
            for (int i = 0; i < 8; i++) {
                bench.clock(null, conn);
            }
            bench.drain();
            List<Long> evs = bench.seen.stream().map(SendResult::ev).toList();
            // Paper expectation, independent of the model: ACKs 1002..1009 in arrival order.
            assertEquals(List.of(1002L, 1003L, 1004L, 1005L, 1006L, 1007L, 1008L, 1009L), evs);
            assertTrue(bench.seen.stream().noneMatch(SendResult::explored));
            // The buffer is now drained and not freezing: the next send explores.
            bench.clock(null, conn);
            bench.drain();
            assertTrue(bench.seen.get(8).explored());
        });
    }

    /**
     * reps-lite (smartt-reps.txt Alg. 4) at the entropy space's end: a marked ACK and an exploring
     * send of one connection in one clock advance next_entropy twice, and the second step must wrap
     * at EVS_SIZE too. For EVS_SIZE 1 to 5, a fresh connection gets such a pair every clock, so
     * every start value of the double step meets the wrap; every result against the model, and
     * every explored EV inside [0, EVS_SIZE).
     */
    @Test
    void liteDoubleStepsWrapAtTheEntropySpacesEnd() {
        RepsConfig cfg = config("reps-lite", 16, 1000, 12);
        withBench(cfg, "lite_double_step", (bench, seed) -> {
            bench.keepResults(true);
            for (int size = 1; size <= 5; size++) {
                bench.csr.write(RepsCsr.EVS_SIZE, size);
                bench.model.setEvsSize(size);
                long conn = size;
                for (int i = 0; i < 8; i++) {
                    bench.clock(Ctrl.ack(conn, 0, i % 2 == 0, i % 2 == 1), conn);
                }
                bench.drain();
                int evs = size;
                assertTrue(bench.seen.stream().filter(r -> r.conn() == conn && r.explored()).allMatch(r -> r.ev() < evs),
                        "an explored EV outside [0, EVS_SIZE = " + size + ")");
            }
            assertCountersMatch(bench);
        });
    }

    /** (b): ECN-marked and trimmed ACKs are never recycled. */
    @Test
    void markedAcksAreNeverRecycled() {
        RepsConfig cfg = config("reps", 16, 1000, 0);
        withBench(cfg, "ecn_never_recycled", (bench, seed) -> {
            Random rnd = new Random(seed);
            bench.keepResults(true);
            bench.csr.write(RepsCsr.EVS_SIZE, 256);
            bench.model.setEvsSize(256);
            Set<Long> marked = new HashSet<>();
            for (int i = 0; i < 2000; i++) {
                long ev = 300 + rnd.nextInt(1000); // outside the explored space [0, 256)
                boolean ecn = rnd.nextBoolean();
                bench.clock(Ctrl.ack(3, ev, ecn, !ecn), rnd.nextBoolean() ? 3 : -1);
                marked.add(ev);
            }
            bench.drain();
            assertTrue(bench.seen.stream().allMatch(r -> r.explored() && r.ev() < 256), "a marked EV was reused");
            assertEquals(2000, bench.counter(RepsCsr.ACKS_MARKED));
            assertEquals(0, bench.counter(RepsCsr.ACKS_RECYCLED));
        });
    }

    /**
     * (c): after a failure with a buffer of good EVs, no send leaves the buffer until the freezing
     * timeout has passed and an ACK arrives; then NUM_PKTS_BDP sends explore again.
     */
    @Test
    void freezingKeepsSendsInsideTheBufferUntilTimeout() {
        int timeout = 5000;
        int bdp = 4;
        RepsConfig cfg = config("reps", 16, timeout, bdp);
        withBench(cfg, "freezing", (bench, seed) -> {
            bench.keepResults(true);
            bench.csr.write(RepsCsr.EVS_SIZE, 256);
            bench.model.setEvsSize(256);
            long conn = 9;
            for (int i = 0; i < bdp; i++) {
                bench.clock(null, conn); // the first BDP explores
            }
            Set<Long> good = new HashSet<>();
            for (int i = 0; i < 8; i++) {
                good.add(5000L + i);
                bench.clock(Ctrl.ack(conn, 5000 + i, false, false), -1);
            }
            bench.setNow(100);
            bench.clock(Ctrl.failure(conn), -1);
            bench.drain();
            int before = bench.seen.size();
            for (int t = 0; t < 200; t++) {
                bench.setNow(100 + t * 20); // stays below 100 + timeout
                Ctrl ack = t % 3 == 0 ? Ctrl.ack(conn, 7000 + t, true, false) : null; // marked ACKs only
                bench.clock(ack, conn);
            }
            bench.drain();
            for (SendResult r : bench.seen.subList(before, bench.seen.size())) {
                assertFalse(r.explored(), "explored while freezing: " + r);
                assertTrue(good.contains(r.ev()), "EV outside the buffer while freezing: " + r);
            }
            assertEquals(1, bench.counter(RepsCsr.FREEZE_ENTER));
            // A clean ACK after the timeout leaves freezing; the next BDP of sends explores.
            bench.setNow(100 + timeout + 1);
            bench.clock(Ctrl.ack(conn, 5100, false, false), -1);
            int mark = bench.seen.size();
            for (int i = 0; i < bdp + 1; i++) {
                bench.clock(null, conn);
            }
            bench.drain();
            List<SendResult> after = bench.seen.subList(mark, bench.seen.size());
            for (int i = 0; i < bdp; i++) {
                assertTrue(after.get(i).explored(), "send " + i + " after freezing should explore");
            }
            assertEquals(1, bench.counter(RepsCsr.FREEZE_EXIT));
        });
    }

    /** Connection ids >= N touch nothing, never alias, and are counted. */
    @Test
    void outOfRangeIdsAreCountedAndIgnored() {
        RepsConfig cfg = config("reps", 10, 1000, 0);
        withBench(cfg, "out_of_range", (bench, seed) -> {
            bench.keepResults(true);
            // Id 18 would alias connection 2 if the 4-bit RAM address were simply truncated.
            bench.clock(Ctrl.ack(2, 4242, false, false), -1);
            bench.clock(Ctrl.ack(18, 999, false, false), 18);
            bench.clock(Ctrl.failure(65535), 65535);
            bench.clock(null, 2);
            bench.drain();
            assertTrue(bench.seen.get(0).outOfRange() && bench.seen.get(0).ev() == 0);
            assertTrue(bench.seen.get(1).outOfRange());
            assertEquals(4242, bench.seen.get(2).ev());
            assertEquals(2, bench.counter(RepsCsr.OOR_SEND));
            assertEquals(2, bench.counter(RepsCsr.OOR_CTRL));
        });
    }

    /**
     * INIT_CONN takes the whole 32-bit word: an id with bits above conn-id-width (0x10006 with
     * 16-bit ids) is out of range, counted in OOR_CTRL, and leaves connection 6 alone.
     */
    @Test
    void initConnAboveTheIdWidthIsCountedAndDoesNotAlias() {
        RepsConfig cfg = config("reps", 16, 1000, 0);
        withBench(cfg, "init_alias", (bench, seed) -> {
            bench.keepResults(true);
            bench.clock(Ctrl.ack(6, 4242, false, false), -1);
            bench.init(0x10006L);
            bench.init(16); // = N: the first id out of range
            bench.clock(null, 6);
            bench.drain();
            assertEquals(4242, bench.seen.get(0).ev(), "connection 6 kept its cached EV");
            assertEquals(2, bench.counter(RepsCsr.OOR_CTRL));
            assertEquals(0, bench.counter(RepsCsr.INITS));
        });
    }

    /**
     * Two INIT_CONN writes as close as the AXI4-Lite port takes them (AW and W held valid, the next
     * pair presented on the edge after the first is taken): each connection is re-initialised (its
     * cached EV forgotten, so its next send explores), and neither counts as an overrun.
     */
    @Test
    void backToBackInitWritesEachInitialiseTheirConnection() {
        RepsConfig cfg = config("reps", 16, 1000, 0);
        withBench(cfg, "init_back_to_back", (bench, seed) -> {
            bench.keepResults(true);
            bench.clock(Ctrl.ack(3, 111, false, false), -1);
            bench.clock(Ctrl.ack(5, 222, false, false), -1);
            bench.drain();
            var ctrl = bench.io.ctrl();
            var sim = bench.sim;
            long[] conns = {3, 5};
            long[] taken = new long[2];
            int next = 0;
            sim.poke(ctrl.aw().payload().addr(), (long) RepsCsr.INIT_CONN);
            sim.poke(ctrl.w().payload().strb(), 0xFL);
            sim.poke(ctrl.w().payload().data(), conns[0]);
            sim.poke(ctrl.aw().valid(), true);
            sim.poke(ctrl.w().valid(), true);
            boolean aw = false;
            boolean w = false;
            for (int edge = 0; edge < 40 && next < 2; edge++) {
                bench.step();
                aw |= sim.peekBool(ctrl.aw().valid()) && sim.peekBool(ctrl.aw().ready());
                w |= sim.peekBool(ctrl.w().valid()) && sim.peekBool(ctrl.w().ready());
                if (aw && w) {
                    taken[next++] = sim.cycle();
                    aw = false;
                    w = false;
                    if (next < 2) {
                        sim.poke(ctrl.w().payload().data(), conns[next]);
                    }
                }
                sim.poke(ctrl.aw().valid(), next < 2 && !aw);
                sim.poke(ctrl.w().valid(), next < 2 && !w);
            }
            assertEquals(2, next, "both writes taken");
            for (int i = 0; i < 8; i++) {
                bench.step();
            }
            bench.model.clock(Ctrl.init(3), -1, bench.now());
            bench.model.clock(Ctrl.init(5), -1, bench.now());
            int mark = bench.seen.size();
            bench.clock(null, 3);
            bench.clock(null, 5);
            bench.drain();
            System.out.printf("reps: INIT_CONN writes taken at edges %d and %d%n", taken[0], taken[1]);
            assertTrue(bench.seen.get(mark).explored(), "connection 3 was re-initialised");
            assertTrue(bench.seen.get(mark + 1).explored(), "connection 5 was re-initialised");
            assertEquals(2, bench.counter(RepsCsr.INITS));
            assertEquals(0, bench.counter(RepsCsr.INIT_OVERRUN));
            assertCountersMatch(bench);
        });
    }

    /**
     * A failure on every clock cannot hold an ACK back: failure and ACK alternate when both wait,
     * so each ACK of a steady stream waits at most one clock, and failures still get every other clock.
     */
    @Test
    void failureStormDoesNotStarveAcks() {
        RepsConfig cfg = config("reps", 64, 1000, 0);
        withBench(cfg, "failure_storm", (bench, seed) -> {
            int acksTaken = 0;
            int failuresTaken = 0;
            int longestAckWait = 0;
            int waited = 0;
            for (int i = 0; i < 400; i++) {
                Ctrl ack = Ctrl.ack(i % 32, 100 + acksTaken, false, false);
                int refused = bench.clock(ack, Ctrl.failure(32 + i % 32), -1);
                if ((refused & 1) == 0) {
                    acksTaken++;
                    waited = 0;
                } else {
                    waited++;
                    longestAckWait = Math.max(longestAckWait, waited);
                }
                if ((refused & 2) == 0) {
                    failuresTaken++;
                }
            }
            bench.drain();
            assertEquals(400, acksTaken + failuresTaken, "one control event per clock");
            assertEquals(200, acksTaken);
            assertTrue(longestAckWait <= 1, "an ACK waited " + longestAckWait + " clocks");
            assertEquals(200, bench.counter(RepsCsr.FAILURES));
            assertEquals(200, bench.counter(RepsCsr.ACKS));
        });
    }

    // ----------------------------------------------------------------------- line rate

    /**
     * One send and one ACK every clock for the same connection back to back, the same connection
     * in both ports of a clock, and alternating pairs: all accepted, every result out in order,
     * the last exactly Reps.latency clocks after the last acceptance.
     */
    @Test
    void oneSendAndOneAckPerClock() {
        RepsConfig cfg = config("reps", 64, 1000, 2);
        withBench(cfg, "line_rate", (bench, seed) -> {
            Random rnd = new Random(seed);
            int perPattern = 2000;
            long start = bench.sim.cycle();
            long accepted = 0;
            for (int pattern = 0; pattern < 3; pattern++) {
                for (int i = 0; i < perPattern; i++) {
                    long sendConn = switch (pattern) {
                        case 0 -> 7;
                        case 1 -> i % 64;
                        default -> (i & 1) == 0 ? 3 : 4;
                    };
                    long ackConn = switch (pattern) {
                        case 0 -> 7;
                        case 1 -> i % 64;
                        default -> (i & 1) == 0 ? 4 : 3;
                    };
                    int refused = bench.clock(Ctrl.ack(ackConn, rnd.nextInt(1 << 16), rnd.nextInt(5) == 0, false),
                            null, sendConn);
                    assertEquals(0, refused, "refused at clock " + i + " of pattern " + pattern);
                    accepted += 2;
                }
            }
            long cycles = bench.sim.cycle() - start;
            int latency = bench.clocksUntilResultsDrained();
            assertEquals(3 * perPattern, cycles, "one clock per send+ACK pair");
            assertEquals(Reps.latency(), latency, "clocks from the last acceptance to its result");
            assertEquals(3 * perPattern, bench.results.matched());
            System.out.printf("reps line rate: %d operations (sends + ACKs) in %d clocks + %d clocks latency%n",
                    accepted, cycles, latency);
        });
    }

    // ------------------------------------------------------------------------ PRNG

    /**
     * Chi-square of 2^20 explored EVs drawn by the RTL (ops mode, 256 bins). The PRNG seed is the
     * test's random seed, so the limit is the p = 1e-6 critical value: a fair generator fails one
     * run in a million, while one bin 10% over its share (4096 draws each) adds about 41.
     */
    @Test
    void prngIsUniform() {
        RepsConfig cfg = config("ops", 4, 1000, 0);
        int draws = 1 << 20;
        withBench(cfg, "prng_chi_square", (bench, seed) -> {
            bench.csr.write(RepsCsr.EVS_SIZE, 256);
            bench.model.setEvsSize(256);
            long drawSeed = 1 + (seed & 0x7FFFFFF);
            bench.csr.write(RepsCsr.SEED, drawSeed);
            bench.model.reseed(drawSeed);
            bench.keepResults(true);
            for (int i = 0; i < draws; i++) {
                bench.clock(null, i & 3);
            }
            bench.drain();
            long[] bins = new long[256];
            for (SendResult r : bench.seen) {
                bins[(int) r.ev()]++;
            }
            double expected = draws / 256.0;
            double chi = 0;
            for (long b : bins) {
                chi += (b - expected) * (b - expected) / expected;
            }
            // 255 degrees of freedom: the 1e-6 upper tail starts at 377.1 (the 0.1% tail at 330.5).
            System.out.printf("reps PRNG chi-square over %d draws into 256 bins: %.1f (df 255, p=1e-6 limit 377.1)%n",
                    draws, chi);
            assertTrue(chi < 377.1, "seed " + seed + ": chi-square " + chi);
        });
    }
}
