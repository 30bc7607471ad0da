// SPDX-License-Identifier: Apache-2.0
package uehw.model.smartt;

import static uehw.model.smartt.SmarttFixedModel.F;

/**
 * SMaRTT's rules as the fixed-point model computes them, one method a rule of the RTL's table
 * (hw/src/uehw/hw/smartt/SmarttRules.scala) and of its name: the window each gives, before the
 * clamp, bit-exact with the RTL's candidate. The profiles (SmarttPaperProfile,
 * SmarttReferenceProfile) choose among them.
 */
final class SmarttRules {
    private final SmarttFixedModel m;

    SmarttRules(SmarttFixedModel m) {
        this.m = m;
    }


    /** HELD, IGNORED and AT_TARGET: the window as it is. */
    static long held(long c) {
        return c;
    }

    /** LOSS, Alg. 1 line 29: the window less the packet's size. */
    static long loss(long c, long size) {
        return Math.max(0, c - (size << F));
    }

    /** FAST_INCREASE, Alg. 3 line 5: FAST_INCREASE_K MTUs more (u5.11 x bytes in 2^-F bytes). */
    long fastIncrease(long c1) {
        long step = (long) m.p.fastIncreaseK * m.p.mtuEff() >>> (SmarttParams.GAIN_FRAC - F);
        return Math.min(m.cwndFieldMax(), c1 + step);
    }


    /**
     * QUICK_ADAPT, Alg. 2 line 7: max(bytes, mtu) x scaling in 2^-F bytes, saturated, as max(bytes x
     * coefficient, mtu x QA_SCALING) with the coefficient in u5.12: QA_SCALING, or in the reference
     * profile QA_SCALING times the normalisation to one target RTT ({@link #normalisedScaling}).
     */
    long quickAdapt(long bytes, long coefficient) {
        long v = Math.max(bytes * coefficient, (long) m.p.mtuEff() * m.p.qaScaling << 1) >>> (SmarttFixedModel.QA_COEF_FRAC - F);
        return Math.min(m.cwndFieldMax(), v);
    }

    /** QA_SCALING as QuickAdapt's u5.12 coefficient (the paper profile). */
    long scalingCoefficient() {
        return (long) m.p.qaScaling << (SmarttFixedModel.QA_COEF_FRAC - SmarttParams.GAIN_FRAC);
    }
    /**
     * Reference profile: QuickAdapt's bytes normalised to one target RTT, acked x trtt / (now -
     * previous window end + trtt), folded into the coefficient: QA_SCALING x f in u5.12 (truncated),
     * f = trtt / D in u.16 (at most 1) from the reciprocal table, D = (now - end mod 2^T) + trtt (at
     * least 1).
     */
    long normalisedScaling(long now, long qaEnd, long trtt) {
        long d = Math.max(1, ((now - qaEnd) & m.timeMask()) + trtt);
        long[] r = m.reciprocal(d);
        long f16 = Math.min(1L << 16, (trtt * r[0] << 16) >>> (m.recipValueBits + r[1]));
        return f16 * m.p.qaScaling >>> (16 + SmarttParams.GAIN_FRAC - SmarttFixedModel.QA_COEF_FRAC);
    }

    /** What the four cases (Alg. 1 lines 19-27) share: rtt against the target, |rtt - trtt| / rtt, 1/cwnd, Eq. 3. */
    record CaseTerms(boolean above, long frac16, long recip, int shift, long numFi, long incFi) {
    }

    CaseTerms caseTerms(long c, long size, long rtt, long trtt) {
        boolean above = rtt > trtt;
        long diff = above ? rtt - trtt : trtt - rtt;
        long[] rr = m.reciprocal(rtt);
        // |rtt - trtt| / rtt in u.16, at most 1.
        long frac16 = Math.min(1L << 16, (diff * rr[0] << 16) >>> (m.recipValueBits + rr[1]));
        long[] rc = m.reciprocal(c);
        // incFI and incMI are numerators in bytes^2 x 2^-GAIN_FRAC divided by c (2^-F bytes), in 2^-F bytes:
        // num x 2^-11 / (c x 2^-8) x 2^8 = num x 2^5 / c = (num x t) >> (V + p - 5).
        int shift = m.recipValueBits + (int) rc[1] - (2 * F - SmarttParams.GAIN_FRAC);
        // Sec. 3.2.3 Eq. 3: size / cwnd x mtu x fi. Each numerator is cut to its top SmarttFixedModel.MANTISSA_BITS
        // (one DSP's operand) before it meets 1/cwnd: x / cwnd ~ ((x >> e) x t) >> (shift - e).
        long numFi = size * m.p.mtuEff() * m.p.fi;
        return new CaseTerms(above, frac16, rc[0], shift, numFi, overCwnd(numFi, rc[0], shift));
    }

    /** FAIR_DECREASE, Sec. 3.2.1 Eq. 1: cwnd/bdp x fd x size = c x kFD, kFD = size x fd / bdp in u0.30. */
    private long fairDecreaseTerm(long c, long size) {
        long kFd = Math.min((1L << 30) - 1, size * m.p.fd * m.p.invBdp() >>> 21);
        return c * kFd >>> 30;
    }

    long fairDecrease(long c, long size) {
        return Math.max(0, c - fairDecreaseTerm(c, size));
    }

    /**
     * MULTIPLICATIVE_DECREASE, Sec. 3.2.2 Eq. 2: min(size, (rtt - trtt)/rtt x md x size), plus Fair
     * Decrease, the sum at most one MTU (README: htsim); the reference profile has no cap at the size.
     */
    long multiplicativeDecrease(long c, long size, CaseTerms t, boolean reference) {
        long mtu = m.p.mtuEff();
        long md = Math.min((reference ? mtu : size) << F,
                t.frac16() * m.p.mdEff() * size >>> (16 + SmarttParams.GAIN_FRAC - F));
        return Math.max(0, c - Math.min(mtu << F, md + fairDecreaseTerm(c, size)));
    }

    /** FAIR_INCREASE, Sec. 3.2.3 Eq. 3. */
    long fairIncrease(long c, CaseTerms t) {
        return Math.min(m.cwndFieldMax(), c + t.incFi());
    }

    /**
     * MULTIPLICATIVE_INCREASE, Sec. 3.2.4 Eq. 4: min(size, (trtt - rtt)/rtt x size/cwnd x mtu x mi),
     * then a Fair Increase: size + FI when MI reaches the size, else (MI's numerator + FI's) / cwnd in
     * one product.
     */
    long multiplicativeIncrease(long c, long size, CaseTerms t) {
        long numMi = (size * m.p.mi * t.frac16() >>> 16) * m.p.mtuEff();
        long inc = overCwnd(numMi, t.recip(), t.shift()) > size << F ? (size << F) + t.incFi()
                : overCwnd(numMi + t.numFi(), t.recip(), t.shift());
        return Math.min(m.cwndFieldMax(), c + inc);
    }

    /**
     * Alg. 1 lines 11-27 from the window c (2^-F bytes): Wait-to-Decrease holds an ECN-marked ACK's
     * decrease (HELD), else the case of ECN x rtt against the target.
     */
    SmarttProfile.Outcome cases(long c, long size, long rtt, long trtt, boolean ecn, boolean canDecrease, boolean reference) {
        CaseTerms t = caseTerms(c, size, rtt, trtt);
        if (ecn) {
            if (!canDecrease) {
                return new SmarttProfile.Outcome(held(c), SmarttFixedModel.Rule.HELD);
            }
            return t.above() ? new SmarttProfile.Outcome(multiplicativeDecrease(c, size, t, reference), SmarttFixedModel.Rule.MULTIPLICATIVE_DECREASE)
                    : new SmarttProfile.Outcome(fairDecrease(c, size), SmarttFixedModel.Rule.FAIR_DECREASE);
        }
        return t.above() ? new SmarttProfile.Outcome(fairIncrease(c, t), SmarttFixedModel.Rule.FAIR_INCREASE)
                : new SmarttProfile.Outcome(multiplicativeIncrease(c, size, t), SmarttFixedModel.Rule.MULTIPLICATIVE_INCREASE);
    }


    /** (x >> e) x t >> (shift - e), e = max(0, bits(x) - SmarttFixedModel.MANTISSA_BITS): x / cwnd with x cut to its top bits. */
    static long overCwnd(long x, long t, int shift) {
        int e = Math.max(0, 64 - Long.numberOfLeadingZeros(x) - SmarttFixedModel.MANTISSA_BITS);
        return (x >>> e) * t >>> (shift - e);
    }
}
