package io.allsum.launcher;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.SizeResult;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code --plot FILE.svg}: the run's bus bandwidth against message size, on a log-2 size axis as nccl-tests sweeps
 * sizes; the same picture as the dashboard's, written as a standalone SVG (no browser, no library), so that a result
 * can be pasted into a ticket. One point per size; a size with wrong elements is drawn red.
 */
public final class BandwidthPlot {

    static final int WIDTH = 720;
    static final int HEIGHT = 420;
    private static final int LEFT = 72;
    private static final int RIGHT = 40;
    private static final int TOP = 56;
    private static final int BOTTOM = 64;
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private BandwidthPlot() {
    }

    /** Refuses, as a usage error, a file the plot cannot be written as. */
    static String formatProblem(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".svg") ? null
                : "--plot writes SVG only: the file name must end in .svg, was '" + file + "'";
    }

    static void write(Path file, String svg) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, svg);
        } catch (IOException e) {
            throw new LauncherException("cannot write --plot " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The plot of {@code rows} (sizes of 0 bytes have no place on a log axis and are left out).
     *
     * @param subtitle what ran, e.g. "4 ranks, ring, time: avg"
     */
    public static String svg(JobSpec spec, List<SizeResult> rows, String subtitle) {
        JobSpec s = spec.withDefaults();
        List<SizeResult> points = rows.stream().filter(r -> r.bytes() > 0).toList();
        String title = "allsum " + s.op() + " " + s.dtype() + (s.op().reduces() ? " " + s.redop() : "")
                + ": bus bandwidth by message size";
        StringBuilder svg = new StringBuilder(4096);
        svg.append(String.format(Locale.ROOT, """
                <?xml version="1.0" encoding="UTF-8"?>
                <svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title">
                <title id="title">%s</title>
                <style>
                  text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; fill: #1b1f24; }
                  .bg { fill: #ffffff; } .grid { stroke: #e7eaee; } .axis { stroke: #5b6470; stroke-width: 1.2; }
                  .tick { font-size: 13px; fill: #5b6470; } .label { font-size: 14px; } .title { font-size: 16px; font-weight: 600; }
                  .sub { font-size: 13px; fill: #5b6470; }
                  .series { fill: none; stroke: #1d4ed8; stroke-width: 2.2; stroke-linejoin: round; }
                  .point { fill: #ffffff; stroke: #1d4ed8; stroke-width: 2.2; } .point.wrong { fill: #b42318; stroke: #b42318; }
                  @media (prefers-color-scheme: dark) {
                    text { fill: #e6e9ee; } .bg { fill: #171b21; } .grid { stroke: #232a33; } .axis { stroke: #9aa4b2; }
                    .tick, .sub { fill: #9aa4b2; } .series { stroke: #7aa7ff; } .point { fill: #171b21; stroke: #7aa7ff; }
                  }
                </style>
                <rect class="bg" width="%d" height="%d"/>
                <text class="title" x="%d" y="24">%s</text>
                <text class="sub" x="%d" y="43">%s</text>
                """, WIDTH, HEIGHT, WIDTH, HEIGHT, xml(title), WIDTH, HEIGHT, LEFT, xml(title), LEFT,
                xml(bytes(s.minBytes()) + " to " + bytes(s.maxBytes())
                        + (s.stepsLinearly() ? " +" + bytes(s.stepBytes()) : " x" + s.stepFactor()) + ", "
                        + s.iterations() + " iterations" + (subtitle == null || subtitle.isBlank() ? "" : ", " + subtitle))));
        if (points.isEmpty()) {
            svg.append(String.format(Locale.ROOT, "<text class=\"label\" x=\"%d\" y=\"%d\">no measured size to plot</text>%n",
                    LEFT, HEIGHT / 2));
            return svg.append("</svg>\n").toString();
        }
        double[] log = points.stream().mapToDouble(r -> Math.log(r.bytes()) / Math.log(2)).toArray();
        int x0 = (int) Math.floor(min(log));
        int x1 = (int) Math.ceil(max(log));
        if (x0 == x1) {
            x0 -= 1;
            x1 += 1;
        }
        double yMax = niceMax(points.stream().mapToDouble(SizeResult::busBandwidthGBps).max().orElse(0));
        int every = Math.max(1, (int) Math.ceil((x1 - x0 + 1) / 9.0));
        int bottom = HEIGHT - BOTTOM;
        for (int e = x0; e <= x1; e++) {
            double x = sx(e, x0, x1);
            svg.append(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>%n",
                    x, x, TOP, bottom));
            if ((e - x0) % every == 0) {
                svg.append(String.format(Locale.ROOT, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                        x, bottom + 20, bytes(1L << e)));
            }
        }
        for (int i = 0; i <= 5; i++) {
            double v = yMax * i / 5;
            double y = sy(v, yMax);
            svg.append(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>%n",
                    LEFT, WIDTH - RIGHT, y, y));
            svg.append(String.format(Locale.ROOT, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
                    LEFT - 8, y + 4, number(v, tickDigits(yMax / 5))));
        }
        svg.append(String.format(Locale.ROOT, """
                <line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>
                <line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>
                <text class="label" id="x-label" x="%d" y="%d" text-anchor="middle">message size (log2 scale)</text>
                <text class="label" id="y-label" transform="translate(20 %d) rotate(-90)" text-anchor="middle">bus bandwidth (GB/s)</text>
                """, LEFT, WIDTH - RIGHT, bottom, bottom, LEFT, LEFT, TOP, bottom,
                (LEFT + WIDTH - RIGHT) / 2, HEIGHT - 14, (TOP + bottom) / 2));
        StringBuilder line = new StringBuilder();
        StringBuilder dots = new StringBuilder();
        for (int i = 0; i < points.size(); i++) {
            SizeResult r = points.get(i);
            double x = sx(log[i], x0, x1);
            double y = sy(r.busBandwidthGBps(), yMax);
            line.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "" : " ", x, y));
            dots.append(String.format(Locale.ROOT,
                    "<circle class=\"point%s\" data-bytes=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%s: %s GB/s bus, %s us%s</title></circle>%n",
                    r.wrongElements() > 0 ? " wrong" : "", r.bytes(), x, y, bytes(r.bytes()),
                    number(r.busBandwidthGBps(), 2), number(r.timeMicros(), 1),
                    r.wrongElements() > 0 ? ", " + r.wrongElements() + " wrong" : ""));
        }
        svg.append("<polyline class=\"series\" points=\"").append(line).append("\"/>\n").append(dots);
        return svg.append("</svg>\n").toString();
    }

    private static double sx(double log2, int x0, int x1) {
        return LEFT + (log2 - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    }

    private static double sy(double value, double yMax) {
        return HEIGHT - BOTTOM - value / yMax * (HEIGHT - TOP - BOTTOM);
    }

    /** The axis top: the smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x a power of ten at or above {@code v}. */
    static double niceMax(double v) {
        if (!(v > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[]{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    /** The fewest decimals that write every multiple of {@code step} exactly (0.24 -> 2, 2.5 -> 1, 3 -> 0). */
    static int tickDigits(double step) {
        for (int digits = 0; digits < 6; digits++) {
            double scaled = step * Math.pow(10, digits);
            if (Math.abs(scaled - Math.rint(scaled)) < 1e-6 * Math.max(1, scaled)) {
                return digits;
            }
        }
        return 6;
    }

    /** 1024 -> "1 KiB", 1536 -> "1536 B": whole binary units only, as the sweep's sizes are. */
    static String bytes(long n) {
        int unit = 0;
        while (n >= 1024 && n % 1024 == 0 && unit < UNITS.length - 1) {
            n /= 1024;
            unit++;
        }
        return n + " " + UNITS[unit];
    }

    private static String number(double v, int digits) {
        return String.format(Locale.ROOT, "%." + digits + "f", v);
    }

    private static double min(double[] values) {
        double m = Double.POSITIVE_INFINITY;
        for (double v : values) {
            m = Math.min(m, v);
        }
        return m;
    }

    private static double max(double[] values) {
        double m = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
