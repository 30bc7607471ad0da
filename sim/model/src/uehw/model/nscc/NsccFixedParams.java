// SPDX-License-Identifier: Apache-2.0
package uehw.model.nscc;

/**
 * NSCC's constants in the fixed formats of {@link NsccFixedModel}: the block's CSRs. Times in ns,
 * windows in bytes; {@link #of} derives each from the reference's double-precision value
 * ({@link NsccParams}, uec.cpp:86-159) by the formula docs/nscc.md gives for it.
 *
 * @param mtu MTU: the window's floor, QuickAdapt's floor, the NACK size cap (uec.cpp:102)
 * @param target T, the target queuing delay, u24.8 ns (uec.cpp:104-112)
 * @param qaThresholdNs QuickAdapt's delay trigger, 4 T (uec.cpp:119)
 * @param qaGate QuickAdapt fires only while achieved &lt; maxwnd &gt;&gt; qaGate (uec.cpp:114-118)
 * @param networkRtt the fulfill period and a NACK's delay sample, u24.8 ns (uec.cpp:98, :134, :1369)
 * @param adjustBytes fulfill after more than this many acked bytes, 8 MTU (uec.cpp:135)
 * @param alpha proportional increase gain, u5.20 bytes per ns below T per acked byte: round(alpha_ps x 1000 x 2^20)
 * @param fi fair increase gain, u18.8: round(fi x 2^8)
 * @param eta bytes added once a network RTT: floor(eta) (the reference adds it to an integer window and truncates)
 * @param fiScale FastIncrease's bytes per acked byte, u4.20: round(fi_scale x 2^20)
 * @param gamma multiplicative decrease gain, u1.16: round(gamma x 2^16)
 * @param delayAlpha the average delay's EWMA weight, u0.20: round(delay_alpha x 2^20)
 * @param bytesPerNs BDP per ns of base RTT, u10.16: round(link speed / 8e9 x 2^16) (uec.cpp:1392)
 * @param fastDelayNs FastIncrease's delay bound, 1 us absolute (uec.cpp:1222)
 * @param receiverCc RCCC beside NSCC: last-hop NACKs leave the window (uec.cpp:1380)
 * @param baseRttOnNack a NACK's RTT lowers the base RTT (update_base_rtt_on_nack, uec.cpp:76, :1568)
 */
public record NsccFixedParams(long mtu, long target, long qaThresholdNs, int qaGate, long networkRtt, long adjustBytes,
        long alpha, long fi, long eta, long fiScale, long gamma, long delayAlpha, long bytesPerNs, long fastDelayNs,
        boolean receiverCc, boolean baseRttOnNack) {
    /** The same with CONTROL.RECEIVER_CC set or cleared (RCCC beside NSCC). */
    public NsccFixedParams withReceiverCc(boolean on) {
        return new NsccFixedParams(mtu, target, qaThresholdNs, qaGate, networkRtt, adjustBytes, alpha, fi, eta, fiScale, gamma,
                delayAlpha, bytesPerNs, fastDelayNs, on, baseRttOnNack);
    }

    /** The fractional bits of T, the network RTT and the average delay (ns). */
    public static final int TIME_FRAC = 8;
    public static final int ALPHA_FRAC = 20;
    public static final int FI_FRAC = 8;
    public static final int FI_SCALE_FRAC = 20;
    public static final int GAMMA_FRAC = 16;
    public static final int DELAY_ALPHA_FRAC = 20;
    public static final int BYTES_PER_NS_FRAC = 16;

    /** T in whole ns, truncated: QuickAdapt's window end now + base RTT + T for whole-ns now and base. */
    public long targetNs() {
        return target >> TIME_FRAC;
    }

    /** The network RTT in whole ns, truncated. */
    public long networkRttNs() {
        return networkRtt >> TIME_FRAC;
    }

    public NsccFixedParams {
        check("mtu", mtu, 65, (1L << 16) - 1);
        check("target", target, 1 << TIME_FRAC, (1L << (24 + TIME_FRAC)) - 1);
        check("qaThresholdNs", qaThresholdNs, 1, (1L << 26) - 1);
        check("qaGate", qaGate, 0, 23);
        check("networkRtt", networkRtt, 1 << TIME_FRAC, (1L << (24 + TIME_FRAC)) - 1);
        check("adjustBytes", adjustBytes, 0, (1L << 24) - 1);
        check("alpha", alpha, 0, (1L << 25) - 1);
        check("fi", fi, 0, (1L << 26) - 1);
        check("eta", eta, 0, (1L << 16) - 1);
        check("fiScale", fiScale, 0, (1L << 24) - 1);
        check("gamma", gamma, 0, 1L << GAMMA_FRAC);
        check("delayAlpha", delayAlpha, 0, 1L << DELAY_ALPHA_FRAC);
        check("bytesPerNs", bytesPerNs, 0, (1L << 26) - 1);
        check("fastDelayNs", fastDelayNs, 0, (1L << 24) - 1);
    }

    private static void check(String name, long v, long min, long max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException("NSCC " + name + " = " + v + " is outside " + min + ".." + max);
        }
    }

    /** The reference's parameters in the block's formats (docs/nscc.md "CSRs and their derivation"). */
    public static NsccFixedParams of(NsccParams p) {
        return new NsccFixedParams(p.mtu(), Math.round(p.targetQdelayPs() / 1000.0 * (1 << TIME_FRAC)),
                Math.round(p.qaThreshold() / 1000.0), p.qaGate(), Math.round(p.networkRttPs() / 1000.0 * (1 << TIME_FRAC)),
                p.adjustBytesThreshold(),
                Math.round(p.alpha() * 1000 * (1L << ALPHA_FRAC)), Math.round(p.fi() * (1L << FI_FRAC)), (long) Math.floor(p.eta()),
                Math.round(p.fiScale() * (1L << FI_SCALE_FRAC)), Math.round(p.gamma() * (1L << GAMMA_FRAC)),
                Math.round(p.delayAlpha() * (1L << DELAY_ALPHA_FRAC)),
                Math.round(p.linkspeedBps() / 8e9 * (1L << BYTES_PER_NS_FRAC)),
                NsccParams.FAST_INCREASE_DELAY_PS / 1000, p.receiverCc(), true);
    }
}
