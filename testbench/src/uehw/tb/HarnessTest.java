// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import uehw.bench.Axi4StreamPackets;
import uehw.bench.Axi4StreamPackets.Packet;
import uehw.bench.InOrderScoreboard;
import uehw.bench.OutOfOrderScoreboard;
import uehw.bench.Simulation;
import uehw.bench.StreamMonitor;
import uehw.bench.facade.AxisFifoFixture;

/** The harness itself: AXI4-Stream driver/monitor, Flow monitor and scoreboards. */
@ExtendWith(BenchExtension.class)
class HarnessTest {

    /** Random packets through spinal.lib's StreamFifo, idle on the input, backpressure on the output. */
    @Tag("rtl")
    @ParameterizedTest(name = "{0} bytes/beat, idle {1}, backpressure {2}")
    @CsvSource({"8, 0.0, 0.0", "8, 0.3, 0.5", "64, 0.1, 0.7"})
    void axiStreamPacketsSurviveIdleAndBackpressure(int bytes, double idle, double backpressure) {
        long seed = BenchExtension.seed();
        Simulation.compile(HarnessTest.class, "axis_fifo_" + bytes, () -> new AxisFifoFixture(bytes))
                .run("axis_" + bytes + "_" + (int) (idle * 10) + "_" + (int) (backpressure * 10), seed, sim -> {
                    Random rnd = new Random(seed);
                    var io = sim.dut().io();
                    InOrderScoreboard<Packet> board = new InOrderScoreboard<>("axis packets");
                    var driver = new Axi4StreamPackets.Driver(sim, io.input(), rnd, idle);
                    var monitor = new Axi4StreamPackets.Monitor(sim, io.output(), board::actual, rnd, backpressure);
                    // The occupancy output is a Flow-like value sampled every clock.
                    long[] maxOccupancy = {0};
                    var occupancy = StreamMonitor.passive(sim, io.output().valid(), null,
                            s -> s.peek(io.occupancy()), v -> maxOccupancy[0] = Math.max(maxOccupancy[0], v));
                    sim.reset(16);
                    int packets = 300;
                    for (int i = 0; i < packets; i++) {
                        byte[] data = new byte[1 + rnd.nextInt(4 * bytes)];
                        rnd.nextBytes(data);
                        Packet p = new Packet(data, rnd.nextInt(2));
                        board.expect(p);
                        driver.send(p);
                    }
                    int guard = 0;
                    while (monitor.packets() < packets) {
                        driver.beforeEdge();
                        monitor.beforeEdge();
                        sim.step();
                        driver.afterEdge();
                        monitor.afterEdge();
                        occupancy.afterEdge();
                        if (++guard > 200_000) {
                            throw new AssertionError("stalled after " + monitor.packets() + " packets");
                        }
                    }
                    board.assertEmpty();
                    assertTrue(driver.idle());
                    assertTrue(maxOccupancy[0] <= 16, "fifo occupancy " + maxOccupancy[0]);
                    if (backpressure > 0.4) {
                        assertTrue(maxOccupancy[0] > 1, "backpressure never filled the fifo");
                    }
                });
    }

    /** fork/join: a forked thread drives the packets while the main thread monitors. */
    @Tag("rtl")
    @Test
    void forkedDriverAndJoin() {
        long seed = BenchExtension.seed();
        Simulation.compile(HarnessTest.class, "axis_fifo_8", () -> new AxisFifoFixture(8))
                .run("axis_fork_join", seed, sim -> {
                    Random rnd = new Random(seed);
                    var io = sim.dut().io();
                    InOrderScoreboard<Packet> board = new InOrderScoreboard<>("forked axis packets");
                    var driver = new Axi4StreamPackets.Driver(sim, io.input(), new Random(seed + 1), 0.2);
                    var monitor = new Axi4StreamPackets.Monitor(sim, io.output(), board::actual, rnd, 0.3);
                    sim.reset(16);
                    for (int i = 0; i < 50; i++) {
                        byte[] data = new byte[1 + rnd.nextInt(40)];
                        rnd.nextBytes(data);
                        Packet p = new Packet(data, 0);
                        board.expect(p);
                        driver.send(p);
                    }
                    var thread = sim.fork(() -> {
                        while (!driver.idle()) {
                            driver.beforeEdge();
                            sim.waitSampling();
                            driver.afterEdge();
                        }
                        sim.poke(io.input().valid(), false);
                    });
                    while (monitor.packets() < 50) {
                        monitor.beforeEdge();
                        sim.step();
                        monitor.afterEdge();
                        if (sim.cycle() > 20_000) {
                            throw new AssertionError("stalled");
                        }
                    }
                    sim.join(thread);
                    board.assertEmpty();
                });
    }

    @Tag("model")
    @Test
    void scoreboardsCatchMismatches() {
        InOrderScoreboard<Integer> inOrder = new InOrderScoreboard<>("in-order");
        inOrder.expect(1);
        inOrder.expect(2);
        assertThrows(AssertionError.class, () -> inOrder.actual(2));
        OutOfOrderScoreboard<Integer, int[]> ooo = new OutOfOrderScoreboard<>("by key", a -> a[0]);
        int[] a1 = {1, 10};
        int[] b1 = {2, 20};
        ooo.expect(a1);
        ooo.expect(b1);
        ooo.actual(b1); // another key may overtake
        ooo.actual(a1);
        ooo.assertEmpty();
        assertEquals(2, ooo.matched());
        assertThrows(AssertionError.class, () -> ooo.actual(new int[] {3, 0}));
    }
}
