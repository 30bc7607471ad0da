// SPDX-License-Identifier: Apache-2.0
package uehw.sim;

import spinal.lib.bus.amba4.axilite.AxiLite4;
import uehw.sim.facade.Sim;

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

    public void write(long address, long data) {
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

    /** BRESP or RRESP of the last access: 0 OKAY, 2 SLVERR, 3 DECERR. */
    public long lastResponse() {
        return lastResponse;
    }

    public long read(long address) {
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
