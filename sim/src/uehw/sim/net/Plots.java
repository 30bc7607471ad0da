package uehw.sim.net;

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
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(900).height(520).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(series.size() <= 12);
        chart.getStyler().setMarkerSize(0);
        for (Series s : series) {
            chart.addSeries(s.name(), s.x(), s.y()).setMarker(SeriesMarkers.NONE);
        }
        BitmapEncoder.saveBitmap(chart, base.toString(), BitmapEncoder.BitmapFormat.PNG);
        VectorGraphicsEncoder.saveVectorGraphic(chart, base.toString(), VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    }

    /** The empirical CDF of {@code values} as a step line. */
    public static Series cdf(String name, double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
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
