// SPDX-License-Identifier: Apache-2.0
package uehw.model.swift;

import static uehw.model.swift.SwiftFixedModel.ACKED_FRAC;
import static uehw.model.swift.SwiftFixedModel.AI_FRAC;
import static uehw.model.swift.SwiftFixedModel.CWND_FRAC;
import static uehw.model.swift.SwiftFixedModel.GAIN_FRAC;
import static uehw.model.swift.SwiftFixedModel.ONE;
import static uehw.model.swift.SwiftFixedModel.RECIP_INDEX;
import static uehw.model.swift.SwiftFixedModel.RECIP_VALUE;
import static uehw.model.swift.SwiftFixedModel.RSQRT_INDEX;
import static uehw.model.swift.SwiftFixedModel.RSQRT_VALUE;

import uehw.model.smartt.SmarttFixedModel;

/**
 * The fixed-point arithmetic of {@link SwiftFixedModel} that holds no state: the reciprocal and
 * 1/sqrt tables (docs/swift.md, "Arithmetic"), leading ones, the ratios through the reciprocal, the
 * decrease's product and the increase's quotient, each as the RTL computes it.
 */
final class SwiftFixedArith {
    static final long[] RECIP = SmarttFixedModel.reciprocalTable(RECIP_INDEX, RECIP_VALUE);
    static final long[][] RSQRT = rsqrtTables(RSQRT_INDEX, RSQRT_VALUE);
    private static final long RATIO_MAX = (1L << 17) - 1;

    private SwiftFixedArith() {
    }

    /** 1/sqrt(2^(p & 1) (1 + (i + 1/2) / 2^I)) in u0.V, for the two parities of the leading one. */
    static long[][] rsqrtTables(int indexBits, int valueBits) {
        long[][] t = new long[2][1 << indexBits];
        for (int odd = 0; odd < 2; odd++) {
            for (int i = 0; i < t[odd].length; i++) {
                double x = (1 + (i + 0.5) / (1 << indexBits)) * (odd == 1 ? 2 : 1);
                t[odd][i] = Math.round((1L << valueBits) / Math.sqrt(x));
            }
        }
        return t;
    }

    static int msb(long x) {
        return 63 - Long.numberOfLeadingZeros(x);
    }

    /** The I bits below the leading one of x > 0 (zero-padded below). */
    static int index(long x, int msb, int indexBits) {
        long below = x - (1L << msb);
        return (int) (msb >= indexBits ? below >>> (msb - indexBits) : below << (indexBits - msb));
    }

    static long shiftRight(long v, int s) {
        return s >= 0 ? v >> s : v << -s;
    }

    /** min(x / delay x 2^16, 2^17 - 1) through the reciprocal table (delay > 0). */
    static long ratio16(long x, long delay) {
        int msb = msb(delay);
        return Math.min(shiftRight(x * RECIP[index(delay, msb, RECIP_INDEX)], RECIP_VALUE + msb - 16), RATIO_MAX);
    }

    /** The decrease: cwnd x factor >> 15. */
    static long scaled(long cwnd, long factor) {
        return (cwnd * factor) >> GAIN_FRAC;
    }

    /** Alg. 1 line 8: ai x acked / cwnd, through the reciprocal of the window read (ai x acked below one packet). */
    static long increment(long cwnd, long aiAcked) {
        int msb = msb(cwnd);
        return cwnd >= ONE
                ? shiftRight(aiAcked * RECIP[index(cwnd, msb, RECIP_INDEX)], RECIP_VALUE + msb - (2 * CWND_FRAC - AI_FRAC - ACKED_FRAC))
                : shiftRight(aiAcked, AI_FRAC + ACKED_FRAC - CWND_FRAC);
    }
}
