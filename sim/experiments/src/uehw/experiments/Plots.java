// SPDX-License-Identifier: Apache-2.0
package uehw.experiments;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Line charts of the network experiments, written as PNG and SVG with XChart. */
public final class Plots {
    private Plots() {
    }

    /** One line: a name and its points. */
    public record Series(String name, double[] x, double[] y) {
    }

    /** Writes {@code base}.png and {@code base}.svg; a legend only for at most 12 lines. */
    public static void lines(Path base, String title, String xTitle, String yTitle, List<Series> series) throws IOException {
        lines(base, title, xTitle, yTitle, series, series.size() <= 12);
    }

    /** The same, with or without a legend. */
    public static void lines(Path base, String title, String xTitle, String yTitle, List<Series> series, boolean legend)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(900).height(520).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(legend);
        chart.getStyler().setMarkerSize(0);
        for (Series s : series) {
            chart.addSeries(s.name(), s.x(), s.y()).setMarker(SeriesMarkers.NONE);
        }
        BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
        VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    }

    /** Values beyond which a CDF is drawn at quantiles. */
    static final int CDF_POINTS = 100;

    /**
     * The empirical CDF of {@code values} as a step line; beyond {@link #CDF_POINTS} values at the
     * percentiles 0..99 and 99.5, 99.9, 100 (the tail in finer steps; XChart 3.8 takes evenly
     * spaced points for tick positions and labels a CDF of thousands of steps unreadably).
     */
    public static Series cdf(String name, double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        if (v.length > CDF_POINTS) {
            double[] q = new double[103];
            for (int i = 0; i < 100; i++) {
                q[i] = i;
            }
            q[100] = 99.5;
            q[101] = 99.9;
            q[102] = 100;
            double[] x = new double[q.length];
            double[] y = new double[q.length];
            for (int i = 0; i < q.length; i++) {
                y[i] = q[i] / 100;
                x[i] = v[Math.max(0, (int) Math.ceil(y[i] * v.length) - 1)];
            }
            return new Series(name, x, y);
        }
        double[] x = new double[2 * v.length];
        double[] y = new double[2 * v.length];
        for (int i = 0; i < v.length; i++) {
            x[2 * i] = v[i];
            y[2 * i] = (double) i / v.length;
            x[2 * i + 1] = v[i];
            y[2 * i + 1] = (double) (i + 1) / v.length;
        }
        return new Series(name, x, y);
    }
}
