// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

/**
 * NSCC's global parameters as the UEC reference simulator derives them (uet-htsim 40ccb05,
 * htsim/sim/uec.cpp:86-159 initNsccParams), in its own types and order of operations: times in ps
 * (uint64 there), bytes in int64, the gains in double. {@link #reference} is that derivation from the
 * link speed, the MTU and the network RTT; {@link #networkMaxUnloadedRtt} the network RTT the
 * reference's main computes for a fat tree (datacenter/main_uec.cpp:51-60).
 *
 * @param mtu wire MTU, header included (main_uec.cpp:531, default 4150)
 * @param mss MTU less the 64 B header (main_uec.cpp:532)
 * @param linkspeedBps NIC and network link speed
 * @param networkRttPs network_max_unloaded_rtt, also the fulfill period (uec.cpp:98, :134)
 * @param networkBdp network_rtt x link speed / 8, truncated (uec.cpp:99)
 * @param targetQdelayPs T: 0.75 x network RTT with trimming, 1.0 without (uec.cpp:104-112)
 * @param qaGate QuickAdapt fires only while achieved < maxwnd >> qaGate (uec.cpp:114-118)
 * @param qaThreshold 4 T, as the double the reference compares with (uec.cpp:119)
 * @param alpha proportional increase gain, bytes per acked byte per ps below T (uec.cpp:124)
 * @param fi fair increase gain, bytes x bytes per acked byte (uec.cpp:125)
 * @param eta bytes added at most once a network RTT (uec.cpp:126)
 * @param fiScale FastIncrease's bytes per acked byte (uec.cpp:130)
 * @param gamma multiplicative decrease gain (uec.cpp:129)
 * @param delayAlpha the average delay's EWMA weight (uec.cpp:132)
 * @param adjustBytesThreshold fulfill after more than this many acked bytes (uec.cpp:135)
 * @param wrapIncBytes true: the pending increase is the reference's uint32 (uec.h:413), which wraps
 *     at 800 Gb/s; false (our default): it does not wrap
 * @param receiverCc RCCC runs beside NSCC: last-hop NACKs leave the window (uec.cpp:1380)
 */
public record NsccParams(int mtu, int mss, long linkspeedBps, long networkRttPs, long networkBdp,
        long targetQdelayPs, int qaGate, double qaThreshold, double alpha, double fi, double eta,
        double fiScale, double gamma, double delayAlpha, long adjustBytesThreshold, boolean wrapIncBytes,
        boolean receiverCc) {
    /** The reference's header size, MTU less MSS (uec.cpp:28, main_uec.cpp:532). */
    public static final int HEADER_BYTES = 64;
    /** The reference's reference network: 100 Gb/s and 12 us (uec.cpp:93-95). */
    public static final long REFERENCE_LINKSPEED_BPS = 100_000_000_000L;
    public static final long REFERENCE_RTT_PS = 12_000_000L;
    /** FastIncrease's delay bound, absolute: timeFromUs(1u) (uec.cpp:1222). */
    public static final long FAST_INCREASE_DELAY_PS = 1_000_000L;

    public NsccParams {
        if (mtu <= HEADER_BYTES || mss != mtu - HEADER_BYTES) {
            throw new IllegalArgumentException("mtu " + mtu + " / mss " + mss + ": mss must be mtu - " + HEADER_BYTES);
        }
        if (linkspeedBps <= 0 || networkRttPs <= 0 || targetQdelayPs <= 0) {
            throw new IllegalArgumentException("linkspeedBps, networkRttPs and targetQdelayPs must be positive");
        }
        if (qaGate < 0 || qaGate > 31) {
            throw new IllegalArgumentException("qaGate " + qaGate + " must be 0..31");
        }
    }

    /** timeAsSec (config.cpp:75): ps as seconds. */
    static double timeAsSec(long ps) {
        return (double) ps / 1_000_000_000_000.0;
    }

    /**
     * The reference's derivation (uec.cpp:86-159) with its defaults: target_Qdelay and qa_gate
     * automatic, trimming on.
     */
    public static NsccParams reference(long linkspeedBps, int mtu, long networkRttPs) {
        return reference(linkspeedBps, mtu, networkRttPs, 0, -1, true);
    }

    /**
     * initNsccParams line by line: targetQdelayPs 0 and qaGate &lt; 0 select the automatic values,
     * as the reference's CLI does.
     */
    public static NsccParams reference(long linkspeedBps, int mtu, long networkRttPs, long targetQdelayPs,
            int qaGate, boolean trimming) {
        int mss = mtu - HEADER_BYTES;
        long referenceBdp = (long) (timeAsSec(REFERENCE_RTT_PS) * (double) (REFERENCE_LINKSPEED_BPS / 8)); // :95
        long networkBdp = (long) (timeAsSec(networkRttPs) * (double) (linkspeedBps / 8));                // :99
        long target = targetQdelayPs > 0 ? targetQdelayPs                                                 // :104-112
                : trimming ? (long) (networkRttPs * 0.75) : networkRttPs;
        int gate = qaGate < 0 ? 3 : qaGate;                                                                // :114-118
        double qaThreshold = (double) (4 * target);                                                        // :119
        double a = (double) networkBdp / (double) referenceBdp;                                            // :121
        double b = (double) target / (double) REFERENCE_RTT_PS;                                            // :122
        double alpha = 4.0 * mss * a * b / target;                                                         // :124
        double fi = 5 * mss * a;                                                                           // :125
        double eta = 0.15 * mss * a;                                                                       // :126
        double fiScale = .25 * a;                                                                          // :130
        return new NsccParams(mtu, mss, linkspeedBps, networkRttPs, networkBdp, target, gate, qaThreshold,
                alpha, fi, eta, fiScale, 0.8, 0.0125, 8L * mtu, false, false);
    }

    /**
     * network_max_unloaded_rtt (main_uec.cpp:51-60 calculate_rtt) for a fat tree of {@code tiers}
     * tiers: 2 x diameter latency + diameter x (MTU and a 64 B ACK serialised), diameter 2 x tiers
     * hops and diameter latency hop x 2 tiers + switch x (2 tiers - 1)
     * (datacenter/fat_tree_topology.cpp:149-152).
     */
    public static long networkMaxUnloadedRtt(int tiers, long hopLatencyPs, long switchLatencyPs, int mtu,
            long linkspeedBps) {
        long diameter = 2L * tiers;
        long diameterLatency = hopLatencyPs * diameter + switchLatencyPs * (diameter - 1);
        double gbps = (double) linkspeedBps / 1_000_000_000.0; // config.cpp:118 speedAsGbps
        return (long) (2 * diameterLatency + (mtu * 8 / gbps * diameter * 1000)
                + (HEADER_BYTES * 8 / gbps * diameter * 1000));
    }

    /** initNscc (uec.cpp:161-184): a flow's BDP for its base RTT at the NIC's link speed. */
    public long baseBdp(long baseRttPs) {
        return (long) (timeAsSec(baseRttPs) * (double) (linkspeedBps / 8));
    }

    /** 1.5 x BDP, the window's bound (uec.cpp:166, :1397). */
    public static long maxWindow(long bdp) {
        return (long) (1.5 * bdp);
    }

    public NsccParams withWrapIncBytes(boolean wrap) {
        return new NsccParams(mtu, mss, linkspeedBps, networkRttPs, networkBdp, targetQdelayPs, qaGate,
                qaThreshold, alpha, fi, eta, fiScale, gamma, delayAlpha, adjustBytesThreshold, wrap, receiverCc);
    }

    public NsccParams withReceiverCc(boolean on) {
        return new NsccParams(mtu, mss, linkspeedBps, networkRttPs, networkBdp, targetQdelayPs, qaGate,
                qaThreshold, alpha, fi, eta, fiScale, gamma, delayAlpha, adjustBytesThreshold, wrapIncBytes, on);
    }
}
