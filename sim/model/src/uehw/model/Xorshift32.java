// SPDX-License-Identifier: Apache-2.0
package uehw.model;

/**
 * Marsaglia's xorshift32 (13, 17, 5), bit-exact with uehw.hw.common.Xorshift32: period
 * 2^32 - 1; a zero seed is replaced by 1. {@link #nextScaled} and {@link #scaleTop} are the
 * hardware's multiply-high maps of a draw onto [0, size).
 */
public final class Xorshift32 {
    private int state;

    public Xorshift32(long seed) {
        reseed(seed);
    }

    public void reseed(long seed) {
        state = (int) seed == 0 ? 1 : (int) seed;
    }

    /** Advances the state and returns the new 32-bit value (as unsigned in a long). */
    public long next() {
        int x = state;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        state = x;
        return x & 0xFFFFFFFFL;
    }

    /** A uniform value in [0, size) from one draw: floor(draw * size / 2^32). */
    public long nextScaled(long size) {
        return (next() * size) >>> 32;
    }

    /**
     * A uniform value in [0, size) from the top {@code drawBits} bits of a draw r:
     * floor((r >> (32 - drawBits)) * size / 2^drawBits). With drawBits = 25 and size below 2^18
     * the product fits one 27 x 18 DSP; the bias is below size / 2^drawBits.
     */
    public static long scaleTop(long draw, long size, int drawBits) {
        return ((draw >>> (32 - drawBits)) * size) >>> drawBits;
    }

    /** {@link #scaleTop} of the next draw. */
    public long nextScaledTop(long size, int drawBits) {
        return scaleTop(next(), size, drawBits);
    }

    public long state() {
        return state & 0xFFFFFFFFL;
    }
}
