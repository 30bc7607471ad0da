// SPDX-License-Identifier: Apache-2.0
package uehw.bench.nic;

import uehw.bench.nscc.NsccBench;
import uehw.bench.smartt.SmarttBench;
import uehw.bench.swift.SwiftBench;
import uehw.hw.nic.NicCcConfig;
import uehw.hw.reps.RepsConfig;
import uehw.hw.nscc.Nscc;
import uehw.hw.smartt.Smartt;
import uehw.hw.swift.Swift;
import uehw.model.dart.DasrLimiterModel;
import uehw.model.nic.NicEngineLaws;
import uehw.model.nic.NicEngineModel;
import uehw.model.nscc.NsccFixedModel;
import uehw.model.reps.RepsModel;
import uehw.model.swift.SwiftFixedModel;

/**
 * The engine's model for a generated configuration: {@link NicEngineModel} with the law's fixed model
 * at its CSR reset values and the law's widths and timing from the RTL's constants.
 */
public final class NicCcModels {
    private NicCcModels() {
    }

    /** The law of `cfg` for the engine's model. */
    public static NicEngineModel.Law law(NicCcConfig cfg) {
        int n = cfg.flows();
        switch (cfg.law()) {
            case "nscc": {
                NsccBench.Csrs csrs = NsccBench.resetCsrs(cfg.nscc());
                return NicEngineLaws.nscc(new NsccFixedModel(n, csrs.p(), csrs.initBaseRtt(), csrs.initCwnd()), Nscc.windowBits(),
                        new NicEngineLaws.Timing(Nscc.sameFlowSpacing(), Nscc.latency() - 1 + NicCcConfig.windowToOp()));
            }
            case "smartt":
                return NicEngineLaws.smartt(SmarttBench.modelOf(cfg.smartt()), cfg.smartt().rttWidth(), cfg.smartt().byteWidth(),
                        new NicEngineLaws.Timing(cfg.smartt().sameFlowSpacing(), Smartt.latency() - 1 + NicCcConfig.windowToOp()));
            case "swift":
                return NicEngineLaws.swift(new SwiftFixedModel(n, SwiftBench.resetParams()), cfg.swift().delayWidth(), cfg.packetsCapBits(),
                        cfg.packetsRecip(), cfg.packetsShift(), cfg.mtu(), Swift.cwndFrac(),
                        new NicEngineLaws.Timing(Swift.sameFlowSpacing(), Swift.latency() - 1 + 2 + NicCcConfig.windowToOp()));
            default:
                throw new IllegalArgumentException("law " + cfg.law());
        }
    }

    /** The engine's model with MSS, OVERHEAD, UDP_PORT and PACE_LEAD at their reset values and the given RTO (ns of `io_now`). */
    public static NicEngineModel model(NicCcConfig cfg, long rto) {
        NicEngineModel m = new NicEngineModel(new NicEngineModel.Config(cfg.flows(), cfg.credit(), cfg.flowState().pickerDepth(), cfg.flowState().grantFifo(),
                cfg.lawFifo(), cfg.pullBytes(), cfg.mtu() - 64, 64, uehw.hw.common.PacketFormat.TransportUdpPort(), rto, cfg.messageEnds()), law(cfg), reps(cfg),
                pacer(cfg));
        m.setPaceLead(NicCcConfig.paceLeadResetNs());
        return m;
    }

    /** DASR's limiter of `cfg` at its CSRs' reset values, or null without pacing. */
    public static DasrLimiterModel pacer(NicCcConfig cfg) {
        return cfg.paced() ? new DasrLimiterModel(cfg.flows(), cfg.dasr().byteTime()) : null;
    }

    /** REPS of `cfg` at its CSRs' reset values, or null without load balancing. */
    public static RepsModel reps(NicCcConfig cfg) {
        if (!cfg.withLb()) {
            return null;
        }
        RepsConfig r = cfg.reps();
        return new RepsModel(RepsModel.Mode.of(r.mode()), r.connections(), r.bufferEntries(), r.evWidth(), r.timeWidth(), r.exploreWidth(),
                r.freezingTimeout(), r.numPktsBdp(), r.evsSizeDefault(), r.prngSeed());
    }
}
