// SPDX-License-Identifier: Apache-2.0
package uehw.netsim;

import java.util.Arrays;

/** Summary statistics the network experiments report and their tests bound. */
public final class Percentiles {
    private Percentiles() {
    }

    /** The nearest-rank p-th percentile (0 < p <= 100): the smallest value with at least p% of the values at or below it. */
    public static double of(double[] values, double p) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s[Math.max(0, Math.min(s.length - 1, (int) Math.ceil(p / 100 * s.length) - 1))];
    }

    public static double max(double[] values) {
        return Arrays.stream(values).max().getAsDouble();
    }
}
