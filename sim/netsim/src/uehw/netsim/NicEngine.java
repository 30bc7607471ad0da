// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.ArrayList;
import java.util.List;

import uehw.model.nic.NicEngineModel;

/**
 * A host's NIC engine (`nic-cc`, docs/nic-engine.md) as the network drives it: each edge's inputs
 * are driven, the engine's group takes the edge ({@link Group#step}, every engine of the network on
 * one clock), and what the edge sampled is read back. Its model ({@link Group#of}) or its RTL
 * (uehw.netsim.rtl.NicCcRtlEngines) must sample the same at every edge.
 */
public interface NicEngine {
    /** What an edge sampled: the grant offered (null: none), the doorbell's ready, a retransmit request (null: none). */
    record Sampled(NicEngineModel.Grant grant, boolean doorbellReady, NicEngineModel.Retransmit retransmit) {
    }

    /** The next edge's inputs: the control frame whose (single) beat it takes or null, the doorbell offered or null, the grant port's ready, `io_now` in ns. */
    void drive(byte[] frame, NicEngineModel.Doorbell doorbell, boolean grantReady, long nowNs);

    /** What the last edge sampled. */
    Sampled sampled();

    /** The engines of a network, clocked together. */
    interface Group {
        /** The engines, by index. */
        List<? extends NicEngine> engines();

        default NicEngine engine(int index) {
            return engines().get(index);
        }

        default int size() {
            return engines().size();
        }

        /** Every engine takes one edge with its driven inputs. */
        void step();

        /** The engines' models as a group. */
        static Group of(List<NicEngineModel> models) {
            List<ModelEngine> engines = new ArrayList<>();
            for (NicEngineModel m : models) {
                engines.add(new ModelEngine(m));
            }
            return new Group() {
                @Override
                public List<ModelEngine> engines() {
                    return engines;
                }

                @Override
                public void step() {
                    for (ModelEngine e : engines) {
                        e.step();
                    }
                }
            };
        }
    }

    /** The engine's model: the outputs before the edge are what the edge samples. */
    final class ModelEngine implements NicEngine {
        private final NicEngineModel model;
        private byte[] frame;
        private NicEngineModel.Doorbell doorbell;
        private boolean ready;
        private long now;
        private Sampled sampled;

        ModelEngine(NicEngineModel model) {
            this.model = model;
        }

        @Override
        public void drive(byte[] frame, NicEngineModel.Doorbell doorbell, boolean grantReady, long nowNs) {
            this.frame = frame;
            this.doorbell = doorbell;
            this.ready = grantReady;
            this.now = nowNs;
            sampled = new Sampled(model.grant(), model.doorbellReady(doorbell), model.retransmit());
        }

        @Override
        public Sampled sampled() {
            return sampled;
        }

        void step() {
            model.edge(frame, false, false, doorbell, ready, now);
        }
    }
}
