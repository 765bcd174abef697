package io.allsum.model.format;

import io.allsum.model.DataType;

import java.util.Locale;

/**
 * The columns of an nccl-tests run ({@code size count type redop root  time algbw busbw #wrong}) with its printf
 * widths, and its footer, so that existing parsers of nccl-tests output read every allsum table.
 */
public final class NcclTestsTable {

    private NcclTestsTable() {
    }

    /** One size's row; {@code redop} "none" and {@code root} -1 where the op has none, {@code wrong} -1 when unverified. */
    public record Row(long bytes, long count, DataType type, String redop, int root, double timeMicros,
                      double algBandwidthGBps, double busBandwidthGBps, long wrong) {
    }

    /** The three lines above the rows: the mode ({@code in-place} or {@code out-of-place}), column names, units. */
    public static String columnHeader(String mode) {
        return String.format(Locale.ROOT, "#%62s%s%n", "", mode)
                + "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
                + "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       \n";
    }

    /** A row, without the line end. */
    public static String row(Row r) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5s",
                r.bytes(), r.count(), r.type().ncclTestsName(), r.redop(), r.root(), time(r.timeMicros()),
                r.algBandwidthGBps(), r.busBandwidthGBps(), r.wrong() < 0 ? "N/A" : Long.toString(r.wrong()));
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
