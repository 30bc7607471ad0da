// SPDX-License-Identifier: Apache-2.0
package uehw.tb;

import java.security.SecureRandom;

/** Test seeds: -Duehw.seed=N fixes them; otherwise each run draws a fresh one. */
final class Seeds {
    private Seeds() {
    }

    static long next() {
        String fixed = System.getProperty("uehw.seed", "").trim();
        if (!fixed.isEmpty()) {
            return Long.decode(fixed);
        }
        return new SecureRandom().nextInt(Integer.MAX_VALUE);
    }

    /** How much longer to run randomized tests (-Duehw.scale, default 1). */
    static int scale() {
        String s = System.getProperty("uehw.scale", "1").trim();
        return s.isEmpty() ? 1 : Math.max(1, Integer.parseInt(s));
    }
}
