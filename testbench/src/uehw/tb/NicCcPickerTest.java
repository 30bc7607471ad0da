// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import uehw.bench.Simulation;
import uehw.bench.facade.Sim;
import uehw.hw.nic.NicCcPicker;
import uehw.hw.nic.NicCcPickerConfig;
import uehw.hw.nic.NicCcPickerIo;
import uehw.model.nic.GrantPicker;

/**
 * The NIC engine's grant picker alone (docs/nic-engine.md, "Picking the next flow"): the offer
 * at every clock equals GrantPicker's under random updates and backpressure; independently of the
 * model, every taken grant was eligible (the test's own bits: set and cleared by the updates,
 * cleared by the grant, an update winning at the same edge) and no flow waits longer than the
 * documented bound; and with the flows re-set a few clocks after each grant, as the engine does,
 * it grants on every clock.
 */
@Tag("rtl")
@ExtendWith(BenchExtension.class)
class NicCcPickerTest {
    static final NicCcPickerConfig CFG = new NicCcPickerConfig(256, 2, 5);

    @Test
    void theOfferIsTheModelsUnderRandomUpdatesAndBackpressure() {
        long seed = BenchExtension.seed();
        Simulation<NicCcPicker> build = Simulation.compile(NicCcPickerTest.class, "f256", () -> new NicCcPicker(CFG));
        build.run("random", seed, sim -> random(sim, CFG, new Random(seed), 20000 * Seeds.scale()));
    }

    /** The largest picker (4096 flows: 128 words, the scanner's prefix ORs over 128 summary bits) against the model. */
    @Test
    void atFourThousandFlowsTheOfferIsStillTheModels() {
        long seed = BenchExtension.seed();
        NicCcPickerConfig cfg = new NicCcPickerConfig(4096, 2, 5);
        Simulation<NicCcPicker> build = Simulation.compile(NicCcPickerTest.class, "f4096", () -> new NicCcPicker(cfg));
        build.run("random", seed, sim -> random(sim, cfg, new Random(seed), 8000 * Seeds.scale()));
    }

    @Test
    void flowsReSetAfterTheirGrantGetAGrantEveryClock() {
        long seed = BenchExtension.seed();
        Simulation<NicCcPicker> build = Simulation.compile(NicCcPickerTest.class, "f256", () -> new NicCcPicker(CFG));
        build.run("line-rate", seed, sim -> lineRate(sim, 1, 8, 3000));
    }

    /** One eligible flow a word: every snapshot gives one grant, so the scanner must take a word a clock. */
    @Test
    void oneFlowAWordStillGetsAGrantEveryClock() {
        long seed = BenchExtension.seed();
        Simulation<NicCcPicker> build = Simulation.compile(NicCcPickerTest.class, "f256", () -> new NicCcPicker(CFG));
        build.run("sparse", seed, sim -> lineRate(sim, 32, 1, 3000));
    }

    /** docs/nic-engine.md: a flow set at edge e (the queue empty) is offered after edge e + 6, and a clear holds at once. */
    @Test
    void aFlowSetAtAnEdgeIsOfferedSixEdgesLater() {
        long seed = BenchExtension.seed();
        Simulation<NicCcPicker> build = Simulation.compile(NicCcPickerTest.class, "f256", () -> new NicCcPicker(CFG));
        build.run("latency", seed, sim -> {
            NicCcPickerIo io = start(sim);
            sim.step(3);
            int flow = 77;
            sim.poke(io.updateFlows().apply(1), flow); // the flow one edge before its update
            sim.step();
            update(sim, 1, true, true);
            sim.step();
            long e = sim.cycle();
            update(sim, 1, false, false);
            long offered = -1;
            for (int i = 0; i < 12 && offered < 0; i++) {
                sim.step();
                if (sim.peekBool(io.grant().valid())) {
                    offered = sim.cycle();
                    assertEquals(flow, sim.peek(io.grant().payload()));
                }
            }
            // valid sampled at edge e + 7 is what the registers hold after edge e + 6
            assertEquals(e + 7, offered, "the first edge that samples the offer");
            // cleared at edge c: the edge after c samples no offer
            sim.poke(io.updateFlows().apply(0), flow);
            sim.step();
            update(sim, 0, true, false);
            sim.step();
            update(sim, 0, false, false);
            sim.step();
            assertEquals(false, sim.peekBool(io.grant().valid()), "offered after its clear");
        });
    }

    /**
     * Drives one edge: the model and the test's own bits follow; returns the flow taken or -1.
     * `next` are the next edge's updates: their flows are driven one edge ahead (the port's rule).
     */
    private static int edge(Sim<NicCcPicker> sim, GrantPicker model, boolean[] eligible, boolean ready,
                            List<GrantPicker.Update> updates, List<GrantPicker.Update> next) {
        NicCcPickerIo io = sim.dut().io();
        int offer = model.offer();
        sim.poke(io.grant().ready(), ready);
        for (int p = 0; p < CFG.updatePorts(); p++) {
            boolean on = p < updates.size();
            update(sim, p, on, on && updates.get(p).eligible());
            // a port idle at the next edge gets a flow all the same: the picker must ignore it
            sim.poke(io.updateFlows().apply(p), p < next.size() ? next.get(p).flow() : (offer & 0xff) ^ 0x55);
        }
        sim.step();
        // read after the step: what the edge sampled (registers before it)
        assertEquals(offer >= 0, sim.peekBool(io.grant().valid()), "grant valid at edge " + sim.cycle());
        if (offer >= 0) {
            assertEquals(offer, sim.peek(io.grant().payload()), "grant flow at edge " + sim.cycle());
        }
        boolean taken = ready && offer >= 0;
        if (taken) {
            assertTrue(eligible[offer], "flow " + offer + " was granted but not eligible, edge " + sim.cycle());
            eligible[offer] = false;
        }
        for (GrantPicker.Update u : updates) {
            eligible[u.flow()] = u.eligible();
        }
        model.edge(ready, updates);
        return taken ? offer : -1;
    }

    /** Ports idle, then reset. */
    /** Port p's update at the next edge: valid, eligible, and its clear (valid and not eligible) as the source registers it. */
    private static void update(Sim<NicCcPicker> sim, int p, boolean valid, boolean eligible) {
        NicCcPickerIo io = sim.dut().io();
        sim.poke(io.updates().apply(p).valid(), valid);
        sim.poke(io.updates().apply(p).payload().eligible(), eligible);
        sim.poke(io.updateClears().apply(p), valid && !eligible);
    }

    private static NicCcPickerIo start(Sim<NicCcPicker> sim) {
        NicCcPickerIo io = sim.dut().io();
        sim.poke(io.grant().ready(), false);
        for (int p = 0; p < CFG.updatePorts(); p++) {
            update(sim, p, false, false);
        }
        sim.reset(4);
        return io;
    }

    private static void random(Sim<NicCcPicker> sim, NicCcPickerConfig cfg, Random r, int clocks) {
        start(sim);
        GrantPicker model = new GrantPicker(cfg.flows(), cfg.depth());
        boolean[] eligible = new boolean[cfg.flows()];
        long[] since = new long[cfg.flows()]; // grants to others since the flow became eligible
        long worst = 0;
        int grants = 0;
        List<GrantPicker.Update> updates = List.of();
        for (int c = 0; c < clocks; c++) {
            // phases: sparse or dense sets of flows, a few words or all of them, with or without backpressure
            int phase = c / 2000 % 4;
            List<GrantPicker.Update> next = randomUpdates(cfg, r, (c + 1) / 2000 % 4);
            boolean ready = phase == 2 ? r.nextInt(3) == 0 : r.nextInt(10) > 0;
            boolean[] before = eligible.clone();
            int taken = edge(sim, model, eligible, ready, updates, next);
            updates = next;
            if (taken >= 0) {
                grants++;
                since[taken] = 0;
                for (int f = 0; f < cfg.flows(); f++) {
                    if (f != taken && before[f] && eligible[f]) {
                        worst = Math.max(worst, ++since[f]);
                    }
                }
            }
            for (int f = 0; f < cfg.flows(); f++) {
                if (!eligible[f]) {
                    since[f] = 0;
                }
            }
        }
        assertTrue(grants > clocks / 4, "grants " + grants);
        // the bound (docs): the other flows of one round, and the depth's snapshots of 32 bits ahead
        long bound = cfg.flows() + 32L * cfg.depth();
        assertTrue(worst <= bound, "a flow waited " + worst + " grants to others, above " + bound);
    }

    /** Random updates of a phase (random's): up to one a port, sometimes the same flow on both. */
    private static List<GrantPicker.Update> randomUpdates(NicCcPickerConfig cfg, Random r, int phase) {
        int span = phase == 0 ? 40 : cfg.flows();
        List<GrantPicker.Update> updates = new ArrayList<>();
        for (int p = 0; p < cfg.updatePorts(); p++) {
            if (r.nextInt(3) > 0) {
                updates.add(new GrantPicker.Update(r.nextInt(span), r.nextInt(phase == 3 ? 2 : 5) > 0));
            }
        }
        if (r.nextInt(20) == 0 && updates.size() == 2) {
            updates.set(1, new GrantPicker.Update(updates.get(0).flow(), !updates.get(0).eligible())); // same flow on both ports
        }
        return updates;
    }

    /** Flows 0, step, 2 x step ... eligible, each set again `delay` clocks after its grant; counts the grants. */
    private static void lineRate(Sim<NicCcPicker> sim, int step, int delay, int clocks) {
        start(sim);
        GrantPicker model = new GrantPicker(CFG.flows(), CFG.depth());
        boolean[] eligible = new boolean[CFG.flows()];
        // the flows eligible, then each set again `delay` clocks after its grant (the engine's state loop)
        List<Integer> first = new ArrayList<>();
        for (int f = 0; f < CFG.flows(); f += step) {
            first.add(f);
        }
        edge(sim, model, eligible, false, List.of(), List.of(new GrantPicker.Update(first.get(0), true))); // the first flow ahead
        for (int i = 0; i < first.size(); i++) {
            List<GrantPicker.Update> next = i + 1 < first.size() ? List.of(new GrantPicker.Update(first.get(i + 1), true)) : List.of();
            edge(sim, model, eligible, false, List.of(new GrantPicker.Update(first.get(i), true)), next);
        }
        Deque<long[]> reSet = new ArrayDeque<>();
        int grants = 0;
        int[] perFlow = new int[CFG.flows()];
        for (int c = 0; c < clocks + 8; c++) { // the first 8 clocks fill the pipeline
            List<GrantPicker.Update> updates = new ArrayList<>();
            if (!reSet.isEmpty() && reSet.peek()[0] <= c) {
                updates.add(new GrantPicker.Update((int) reSet.poll()[1], true));
            }
            // ready is high: the model's offer is taken, and its set-again is known before the edge
            int offer = model.offer();
            if (offer >= 0) {
                reSet.add(new long[] {c + delay, offer});
            }
            List<GrantPicker.Update> next = !reSet.isEmpty() && reSet.peek()[0] <= c + 1
                    ? List.of(new GrantPicker.Update((int) reSet.peek()[1], true)) : List.of();
            int taken = edge(sim, model, eligible, true, updates, next);
            assertEquals(offer, taken, "the offer taken with ready high");
            if (taken >= 0 && c >= 8) {
                grants++;
                perFlow[taken]++;
            }
        }
        System.out.printf("NicCcPickerTest line rate: every %d-th flow eligible, set again %d clocks after its grant: %d grants in %d clocks%n",
                step, delay, grants, clocks);
        // a snapshot's flag "more than one bit" ignores clears that came after it: such a snapshot, at its last bit, costs a clock
        assertTrue(grants >= clocks * 99 / 100, grants + " grants in " + clocks + " clocks");
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int f = 0; f < CFG.flows(); f += step) {
            int n = perFlow[f];
            min = Math.min(min, n);
            max = Math.max(max, n);
        }
        assertTrue(max - min <= 1, "round robin: grants per flow from " + min + " to " + max);
    }
}
