// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

/**
 * SMaRTT's runtime parameters, i.e. the values of the CSRs, in the register formats: gains are
 * unsigned fixed point with {@link #GAIN_FRAC} fractional bits, bytes and nanoseconds are integers.
 * Defaults are smartt-reps.txt Sec. 3.5 for 100 Gb/s, 12 us base RTT, 4 KiB MTU (gamma = 1).
 */
public final class SmarttParams implements Cloneable {
    /** Fractional bits of every gain CSR (u5.11). */
    public static final int GAIN_FRAC = 11;
    /** Fractional bits of WTD_THRESHOLD (u0.10). */
    public static final int WTD_FRAC = 10;
    /** Fractional bits of the stored WTD average (u0.13): three below the threshold, with a rounded decay. */
    public static final int WTD_STATE_FRAC = 13;
    /** Smallest BDP and MTU the CSRs take; smaller values act as these. */
    public static final int MIN_BDP = 1024;
    public static final int MIN_MTU = 64;

    public boolean trimming = true;   // CONTROL.TRIMMING: 0 doubles md (Sec. 3.3, QuickAdapt without trimming)
    public boolean wtdEnable = true;  // CONTROL.WTD_ENABLE (Sec. 3.6.1)
    public boolean unackedFromWindow = false; // CONTROL.UNACKED_FROM_WINDOW: QuickAdapt ignores the window, not the event's unacked
    /**
     * CONTROL.REFERENCE_PROFILE: the rules of the authors' simulator where it differs from the paper
     * (docs/smartt.md, "The reference-code profile"); false is the paper's Alg. 1-3.
     */
    public boolean referenceProfile = false;
    /**
     * For the exact model only: in the reference profile, drop the case after a QuickAdapt on the
     * same ACK and divide MI's Fair Increase by the window before MI, as the fixed law does
     * (docs/smartt.md), so that the rest of the error is measured apart.
     */
    public boolean hardwareLag = false;
    public int mtu = 4096;
    public long bdp = 150_000;        // 100 Gb/s x 12 us
    public long maxCwnd = 187_500;    // 1.25 BDP (Sec. 3.5)
    public long initCwnd = 150_000;
    public long baseRtt = 12_000;     // ns
    public int targetRttFactor = gain(1.5); // trtt = brtt x 1.5 (Sec. 3.5)
    public int fd = gain(0.8);        // Sec. 3.5
    public int md = gain(2.0);        // Sec. 3.2.2
    public int fi = gain(0.25);       // Sec. 3.5, x gamma
    public int mi = gain(2.0);        // brtt / (trtt - brtt), Sec. 3.2.4, x gamma
    public int qaScaling = gain(0.8); // Sec. 3.5
    /** MTUs added per FastIncrease ACK, u5.11 (Sec. 3.4: 2; the authors' code 1.2). */
    public int fastIncreaseK = gain(2);
    public long fastIncreaseCloseness = 655; // ns: rtt <= brtt + this counts as "close to the base RTT" (2 x 4 KiB at 100 Gb/s)
    public int wtdAlphaShift = 3;     // alpha = 2^-3 = 0.125 (README: htsim)
    public int wtdThreshold = 256;    // 0.25 in u0.10 (Sec. 3.6.1)

    public static int gain(double value) {
        return (int) Math.round(value * (1 << GAIN_FRAC));
    }

    public static double real(int gain) {
        return gain / (double) (1 << GAIN_FRAC);
    }

    /** The values the hardware uses after clamping: MTU >= 64, BDP >= 1024, base RTT >= 1. */
    public int mtuEff() {
        return Math.max(MIN_MTU, mtu);
    }

    public long bdpEff() {
        return Math.max(MIN_BDP, bdp);
    }

    public long baseRttEff() {
        return Math.max(1, baseRtt);
    }

    /** Target RTT in ns: (brtt x factor) >> GAIN_FRAC. */
    public long targetRtt() {
        return baseRttEff() * targetRttFactor >>> GAIN_FRAC;
    }

    /** md, doubled without trimming (Sec. 3.3). */
    public long mdEff() {
        return trimming ? md : 2L * md;
    }

    /** floor(2^40 / BDP), what the hardware's sequential divider computes after a BDP write. */
    public long invBdp() {
        return (1L << 40) / bdpEff();
    }

    @Override
    public SmarttParams clone() {
        try {
            return (SmarttParams) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }
}
