// SPDX-License-Identifier: Apache-2.0
package uehw.bench;

import spinal.lib.bus.amba4.axilite.AxiLite4;
import uehw.bench.facade.Sim;

/**
 * Blocking AXI4-Lite master for CSR access: each call steps the clock until the response.
 * A beat is taken at an edge when valid && ready were sampled there (read right after the step).
 *
 * <p>The clock it steps is the bench's: a bench passes its own one-clock step, so that its stream
 * drivers, monitors and model keep running while a CSR access is under way (an access made during
 * traffic neither takes an input twice nor misses an output).
 */
public final class AxiLite4Master {
    private static final int TIMEOUT = 1000;
    private final Sim<?> sim;
    private final AxiLite4 bus;
    private final Runnable clock;
    private long lastResponse;
    // A posted write (postWrite): its beats still to be taken, the edge that took the later one, its B still due.
    private boolean postedAw;
    private boolean postedW;
    private boolean postedB;
    private long postedEdge = -1;

    /** Drives the bus idle at once: create it before reset, so no phantom beat is taken. Steps the bare clock. */
    public AxiLite4Master(Sim<?> sim, AxiLite4 bus) {
        this(sim, bus, sim::step);
    }

    /** As above; {@code clock} is the bench's one-clock step (it must call {@code sim.step()} once). */
    public AxiLite4Master(Sim<?> sim, AxiLite4 bus, Runnable clock) {
        this.sim = sim;
        this.bus = bus;
        this.clock = clock;
        sim.poke(bus.aw().valid(), false);
        sim.poke(bus.w().valid(), false);
        sim.poke(bus.b().ready(), true);
        sim.poke(bus.ar().valid(), false);
        sim.poke(bus.r().ready(), true);
        sim.poke(bus.aw().payload().prot(), 0L);
        sim.poke(bus.ar().payload().prot(), 0L);
    }

    /**
     * Presents a write without waiting: AW and W go valid now, to be taken at the coming edge or a
     * later one. The bench calls {@link #afterEdge()} after every edge until {@link #postedDone()};
     * {@link #postedEdge()} is then the edge that took the later of the two beats (the regif register
     * holds the new value from the edge after it). Lets a test put a write at an exact edge of its traffic.
     */
    public void postWrite(long address, long data) {
        if (postedPending()) {
            throw new IllegalStateException("a posted write is still under way");
        }
        sim.poke(bus.aw().payload().addr(), address);
        sim.poke(bus.w().payload().data(), data & 0xFFFFFFFFL);
        sim.poke(bus.w().payload().strb(), 0xFL);
        sim.poke(bus.aw().valid(), true);
        sim.poke(bus.w().valid(), true);
        postedAw = true;
        postedW = true;
        postedB = true;
        postedEdge = -1;
    }

    /** Tracks a posted write after an edge (a no-op without one): beats taken, then its B response. */
    public void afterEdge() {
        if (!postedPending()) {
            return;
        }
        if (postedB && !postedAw && !postedW && sim.peekBool(bus.b().valid())) {
            lastResponse = sim.peek(bus.b().payload().resp());
            postedB = false;
            return;
        }
        if (postedAw && sim.peekBool(bus.aw().valid()) && sim.peekBool(bus.aw().ready())) {
            postedAw = false;
            sim.poke(bus.aw().valid(), false);
        }
        if (postedW && sim.peekBool(bus.w().valid()) && sim.peekBool(bus.w().ready())) {
            postedW = false;
            sim.poke(bus.w().valid(), false);
        }
        if (!postedAw && !postedW && postedEdge < 0) {
            postedEdge = sim.cycle();
        }
    }

    private boolean postedPending() {
        return postedAw || postedW || postedB;
    }

    /** True once the posted write's beats were taken and its B response came (true when none was posted). */
    public boolean postedDone() {
        return !postedPending();
    }

    /** The edge that took the later of the posted write's AW and W beats, or -1 while they wait. */
    public long postedEdge() {
        return postedEdge;
    }

    public void write(long address, long data) {
        requireNoPosted();
        sim.poke(bus.aw().payload().addr(), address);
        sim.poke(bus.w().payload().data(), data & 0xFFFFFFFFL);
        sim.poke(bus.w().payload().strb(), 0xFL);
        sim.poke(bus.aw().valid(), true);
        sim.poke(bus.w().valid(), true);
        boolean awDone = false;
        boolean wDone = false;
        for (int i = 0; i < TIMEOUT; i++) {
            clock.run(); // values read now are those sampled at this edge
            awDone |= sim.peekBool(bus.aw().valid()) && sim.peekBool(bus.aw().ready());
            wDone |= sim.peekBool(bus.w().valid()) && sim.peekBool(bus.w().ready());
            if (sim.peekBool(bus.b().valid())) {
                if (!awDone || !wDone) {
                    throw new AssertionError("AXI4-Lite B response before AW and W were taken");
                }
                lastResponse = sim.peek(bus.b().payload().resp());
                return;
            }
            sim.poke(bus.aw().valid(), !awDone);
            sim.poke(bus.w().valid(), !wDone);
        }
        throw new AssertionError("AXI4-Lite write to 0x" + Long.toHexString(address) + " got no response");
    }

    private void requireNoPosted() {
        if (postedPending()) {
            throw new IllegalStateException("a blocking CSR access while a posted write is under way");
        }
    }

    /** BRESP or RRESP of the last access: 0 OKAY, 2 SLVERR, 3 DECERR. */
    public long lastResponse() {
        return lastResponse;
    }

    public long read(long address) {
        requireNoPosted();
        sim.poke(bus.ar().payload().addr(), address);
        sim.poke(bus.ar().valid(), true);
        boolean arDone = false;
        for (int i = 0; i < TIMEOUT; i++) {
            clock.run();
            arDone |= sim.peekBool(bus.ar().valid()) && sim.peekBool(bus.ar().ready());
            if (sim.peekBool(bus.r().valid())) {
                lastResponse = sim.peek(bus.r().payload().resp());
                return sim.peek(bus.r().payload().data());
            }
            sim.poke(bus.ar().valid(), !arDone);
        }
        throw new AssertionError("AXI4-Lite read of 0x" + Long.toHexString(address) + " got no response");
    }
}
