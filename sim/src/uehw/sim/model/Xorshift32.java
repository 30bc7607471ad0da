package uehw.sim.model;

/**
 * Marsaglia's xorshift32 (13, 17, 5), bit-exact with uehw.hw.common.Xorshift32: period
 * 2^32 - 1; a zero seed is replaced by 1. {@link #scaled} is the hardware's multiply-high map
 * of a draw onto [0, size).
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

    public long state() {
        return state & 0xFFFFFFFFL;
    }
}
