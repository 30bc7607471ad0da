// SPDX-License-Identifier: Apache-2.0
package uehw.netsim.rtl;

import java.util.ArrayList;
import java.util.List;

import uehw.bench.Axi4StreamPackets;
import uehw.bench.AxiLite4Master;
import uehw.bench.Simulation;
import uehw.bench.csr.NicCcCsr;
import uehw.bench.facade.Sim;
import uehw.bench.facade.SpinalSimFacade;
import uehw.hw.nic.NicCc;
import uehw.hw.nic.NicCcArray;
import uehw.hw.nic.NicCcConfig;
import uehw.hw.nic.NicCcIo;
import uehw.model.nic.NicEngineModel;
import uehw.netsim.NicEngine;

/**
 * Hardware in the loop: the network's NIC engines from the Verilated RTL, one `nic-cc` a host side by
 * side on one clock (NicCcArray). Each edge pokes every engine's inputs, steps, and reads what the
 * edge sampled. After reset the RTO is written, the sweeps finish, and the engines are clocked idle
 * until their timeout scans read flow 0 at the next edge: the model's group starts there too
 * ({@link #models}).
 */
public final class NicCcRtlEngines implements NicEngine.Group {
    private final Sim<NicCcArray> sim;
    private final List<Engine> engines = new ArrayList<>();
    public long clocks;

    /** The Verilated engines of {@code cfg}, {@code count} of them, compiled once a configuration (build/sim/NicCcRtlEngines/). */
    public static Simulation<NicCcArray> simulation(NicCcConfig cfg, int count) {
        // every parameter the scenarios vary is in the name (a build is reused by name)
        String name = "x" + count + "_f" + cfg.flows() + "_" + cfg.law() + "_" + cfg.linkGbps() + "g_" + cfg.mtu() + "_" + cfg.networkRttPs()
                + (cfg.credit() ? "_credit" : "") + (cfg.withLb() ? "_" + cfg.lb() : "") + (cfg.paced() ? "_" + cfg.pacing() : "");
        return Simulation.compile(NicCcRtlEngines.class, name, () -> {
            NicCcArray a = new NicCcArray(cfg, count);
            for (int i = 0; i < count; i++) {
                SpinalSimFacade.exposeToSim(a.engines().apply(i).flows().io().timeoutScan());
            }
            return a;
        });
    }

    /** The model's group the RTL's must equal: {@code count} engines with the RTO, their scans aligned as the RTL's. */
    public static NicEngine.Group models(NicCcConfig cfg, int count, long rtoNs) {
        List<NicEngineModel> models = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            NicEngineModel m = uehw.bench.nic.NicCcModels.model(cfg, rtoNs);
            m.setTimeoutScan(0);
            models.add(m);
        }
        return NicEngine.Group.of(models);
    }

    private final class Engine implements NicEngine {
        private final NicCcIo io;
        private final NicCc dut;
        private Sampled sampled;

        Engine(NicCc dut, NicCcIo io) {
            this.dut = dut;
            this.io = io;
        }

        @Override
        public void drive(byte[] frame, NicEngineModel.Doorbell doorbell, boolean grantReady, long nowNs) {
            sim.poke(io.s_axis().valid(), frame != null);
            if (frame != null) {
                Axi4StreamPackets.poke(sim, io.s_axis().payload(), Axi4StreamPackets.beats(new Axi4StreamPackets.Packet(frame, 0),
                        dut.cfg().dataBytes()).get(0));
            }
            sim.poke(io.doorbell().valid(), doorbell != null);
            if (doorbell != null) {
                sim.poke(io.doorbell().payload().flow(), doorbell.flow());
                sim.poke(io.doorbell().payload().bytes(), doorbell.bytes());
                sim.poke(io.doorbell().payload().start(), doorbell.start());
                if (dut.cfg().messages()) {
                    sim.poke(io.doorbell().payload().last(), doorbell.last());
                }
            }
            sim.poke(io.grant().ready(), grantReady);
            sim.poke(io.now(), nowNs & 0xFFFF_FFFFL);
        }

        void read() {
            NicEngineModel.Grant g = sim.peekBool(io.grant().valid()) ? new NicEngineModel.Grant((int) sim.peek(io.grant().payload().flow()),
                    sim.peek(io.grant().payload().psn()), (int) sim.peek(io.grant().payload().bytes()), sim.peekBool(io.grant().payload().resend()),
                    dut.cfg().withLb() ? (int) sim.peek(io.grant().payload().entropy()) : -1,
                    dut.cfg().messages() && sim.peekBool(io.grant().payload().last())) : null;
            NicEngineModel.Retransmit r = sim.peekBool(io.retransmit().valid()) ? new NicEngineModel.Retransmit((int) sim.peek(io.retransmit().payload().flow()),
                    sim.peek(io.retransmit().payload().psn()), sim.peekBool(io.retransmit().payload().timeout())) : null;
            sampled = new Sampled(g, sim.peekBool(io.doorbell().ready()), r);
        }

        @Override
        public Sampled sampled() {
            return sampled;
        }
    }

    /** Resets the engines, writes the RTO, waits for the sweeps and aligns the timeout scans (flow 0 read at the first edge). */
    public NicCcRtlEngines(Sim<NicCcArray> sim, long rtoNs) {
        this.sim = sim;
        NicCcArray top = sim.dut();
        int n = top.cfg().flows();
        List<AxiLite4Master> csrs = new ArrayList<>();
        for (int i = 0; i < top.count(); i++) {
            NicCcIo io = top.io().engine().apply(i);
            engines.add(new Engine(top.engines().apply(i), io));
            sim.poke(io.s_axis().valid(), false);
            sim.poke(io.doorbell().valid(), false);
            sim.poke(io.grant().ready(), false);
            sim.poke(io.now(), 0);
            csrs.add(new AxiLite4Master(sim, io.ctrl()));
        }
        sim.reset(4);
        for (AxiLite4Master csr : csrs) {
            csr.write(NicCcCsr.RTO, rtoNs);
        }
        for (int c = 0; !allInitDone(top); c++) {
            if (c > 8 * n + 100) {
                throw new IllegalStateException("the engines' sweeps never finished");
            }
            sim.step();
        }
        // the scan read flow N - 1 at the last edge: the next reads flow 0 (as the model's group starts)
        for (int c = 0; sim.peek(top.engines().apply(0).flows().io().timeoutScan()) != n - 1; c++) {
            if (c > n) {
                throw new IllegalStateException("the timeout scan does not turn");
            }
            sim.step();
        }
        for (int i = 1; i < top.count(); i++) {
            if (sim.peek(top.engines().apply(i).flows().io().timeoutScan()) != n - 1) {
                throw new IllegalStateException("engine " + i + "'s timeout scan is not engine 0's");
            }
        }
    }

    private boolean allInitDone(NicCcArray top) {
        for (int i = 0; i < top.count(); i++) {
            if (!sim.peekBool(top.io().engine().apply(i).initDone())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<? extends NicEngine> engines() {
        return engines;
    }

    @Override
    public void step() {
        sim.step();
        clocks++;
        for (Engine e : engines) {
            e.read();
        }
    }
}
