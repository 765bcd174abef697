package io.allsum.model.format;

import io.allsum.model.DataType;

import java.util.Locale;

/**
 * The columns of an nccl-tests run ({@code size count type redop root  time algbw busbw #wrong}, the measured four
 * once per mode in its two-mode layout) with its printf widths, and its footer, so that existing parsers of nccl-tests
 * output read every allsum table.
 */
public final class NcclTestsTable {

    private NcclTestsTable() {
    }

    /** One size's row; {@code redop} "none" and {@code root} -1 where the op has none, {@code wrong} -1 when unverified. */
    public record Row(long bytes, long count, DataType type, String redop, int root, double timeMicros,
                      double algBandwidthGBps, double busBandwidthGBps, long wrong) {
    }

    /** One mode's measured columns ({@code time algbw busbw #wrong}); {@code wrong} -1 when unverified. */
    public record Measured(double timeMicros, double algBandwidthGBps, double busBandwidthGBps, long wrong) {
    }

    /** A column after the in-place ones (not in nccl-tests: allsum's host times), 8 wide with two decimals. */
    public record Extra(String name, String unit) {
    }

    private static final String NAMES = "#       size         count      type   redop    root";
    private static final String UNITS = "#        (B)    (elements)                          ";
    private static final String MEASURED_NAMES = "     time   algbw   busbw #wrong";
    private static final String MEASURED_UNITS = "     (us)  (GB/s)  (GB/s)       ";

    /** The three lines above the rows: the mode ({@code in-place} or {@code out-of-place}), column names, units. */
    public static String columnHeader(String mode) {
        return String.format(Locale.ROOT, "#%62s%s%n", "", mode)
                + NAMES + MEASURED_NAMES + "\n"
                + UNITS + MEASURED_UNITS + "\n";
    }

    /**
     * The header of nccl-tests' default layout, out-of-place then in-place columns, followed by {@code extras}; the
     * rows are {@link #row(Row, Measured, double...)}.
     */
    public static String twoModeHeader(Extra... extras) {
        StringBuilder names = new StringBuilder(NAMES + MEASURED_NAMES + MEASURED_NAMES);
        StringBuilder units = new StringBuilder(UNITS + MEASURED_UNITS + MEASURED_UNITS);
        for (Extra e : extras) {
            names.append(String.format(Locale.ROOT, "  %8s", e.name()));
            units.append(String.format(Locale.ROOT, "  %8s", e.unit()));
        }
        return String.format(Locale.ROOT, "#%62s%s%23s%s%n", "", "out-of-place", "", "in-place")
                + names + "\n" + units + "\n";
    }

    /** A row, without the line end. */
    public static String row(Row r) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d", r.bytes(), r.count(), r.type().ncclTestsName(),
                r.redop(), r.root())
                + measured(new Measured(r.timeMicros(), r.algBandwidthGBps(), r.busBandwidthGBps(), r.wrong()));
    }

    /**
     * A row of the two-mode layout, without the line end: {@code outOfPlace}'s columns, then {@code inPlace}'s
     * {@code time algbw busbw #wrong}, then one value per {@link Extra} of the header.
     */
    public static String row(Row outOfPlace, Measured inPlace, double... extras) {
        StringBuilder line = new StringBuilder(row(outOfPlace)).append(measured(inPlace));
        for (double value : extras) {
            line.append(String.format(Locale.ROOT, "  %8.2f", value));
        }
        return line.toString();
    }

    private static String measured(Measured m) {
        return String.format(Locale.ROOT, "  %7s  %6.2f  %6.2f  %5s", time(m.timeMicros()), m.algBandwidthGBps(),
                m.busBandwidthGBps(), m.wrong() < 0 ? "N/A" : Long.toString(m.wrong()));
    }

    /**
     * The footer: wrong elements ({@code OK}, {@code FAILED}, or {@code N/A} when not verified) and the average bus
     * bandwidth, then an empty comment line.
     */
    public static String footer(long wrong, boolean verified, int rows, double avgBusBandwidthGBps) {
        return String.format(Locale.ROOT, "# Out of bounds values : %d %s%n", wrong,
                !verified ? "N/A" : wrong == 0 && rows > 0 ? "OK" : "FAILED")
                + String.format(Locale.ROOT, "# Avg bus bandwidth    : %.4f %n", avgBusBandwidthGBps)
                + "#\n";
    }

    /** nccl-tests keeps the time column 7 wide by dropping decimals as the value grows. */
    public static String time(double micros) {
        if (micros >= 10000.0) {
            return String.format(Locale.ROOT, "%7.0f", micros);
        }
        if (micros >= 100.0) {
            return String.format(Locale.ROOT, "%7.1f", micros);
        }
        return String.format(Locale.ROOT, "%7.2f", micros);
    }
}
