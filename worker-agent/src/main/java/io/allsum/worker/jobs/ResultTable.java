package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.RankSizeResult;

import java.util.List;
import java.util.Locale;

/**
 * Formats results as nccl-tests prints them: {@code size count type redop root | time algbw busbw #wrong}, one row
 * per size, then the wrong-element total and the average bus bandwidth. algbw = bytes / time / 1e9 and busbw =
 * algbw x the op's factor (field notes, section 3). The redop column says "none" and the root column -1 for ops
 * without them, as nccl-tests does. #wrong is "N/A" for an unverified size. Pure functions of their arguments.
 */
public final class ResultTable {

    private ResultTable() {
    }

    /** The whole table: header, rows, footer, each line ending in a newline. */
    public static String format(CollectiveOp op, DataType type, ReduceOp redop, int root, int worldSize,
                                List<RankSizeResult> results) {
        StringBuilder out = new StringBuilder(header());
        for (RankSizeResult result : results) {
            out.append(row(op, type, redop, root, worldSize, result)).append('\n');
        }
        return out.append(footer(op, worldSize, results)).toString();
    }

    public static String header() {
        return String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s%n",
                "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong")
                + String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s%n",
                "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "");
    }

    /** One row, without a line end. */
    public static String row(CollectiveOp op, DataType type, ReduceOp redop, int root, int worldSize,
                             RankSizeResult result) {
        double algbw = algBandwidthGBps(result.bytes(), result.timeMicros());
        double busbw = algbw * op.busBandwidthFactor(worldSize);
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6s",
                result.bytes(), result.count(), type.ncclTestsName(),
                op.reduces() ? redop.wireName() : "none",
                op.rooted() ? root : -1,
                formatTime(result.timeMicros()), algbw, busbw,
                result.wrongElements() < 0 ? "N/A" : Long.toString(result.wrongElements()));
    }

    /** The wrong-element total (OK when zero) and the average bus bandwidth over the rows. */
    public static String footer(CollectiveOp op, int worldSize, List<RankSizeResult> results) {
        boolean verified = results.stream().anyMatch(r -> r.wrongElements() >= 0);
        long wrong = totalWrongElements(results);
        String check = !verified ? "not checked" : wrong + (wrong == 0 ? " OK" : " FAILED");
        return String.format(Locale.ROOT, "# Wrong elements        : %s%n# Avg bus bandwidth    : %.4f%n",
                check, averageBusBandwidthGBps(op, worldSize, results));
    }

    /** Bytes per second / 1e9; 0 when the time is not positive. */
    public static double algBandwidthGBps(long bytes, double timeMicros) {
        return timeMicros > 0 ? bytes / timeMicros / 1e3 : 0;
    }

    public static double busBandwidthGBps(CollectiveOp op, int worldSize, long bytes, double timeMicros) {
        return algBandwidthGBps(bytes, timeMicros) * op.busBandwidthFactor(worldSize);
    }

    /** The mean of the rows' bus bandwidths, as nccl-tests averages them; 0 for no rows. */
    public static double averageBusBandwidthGBps(CollectiveOp op, int worldSize, List<RankSizeResult> results) {
        return results.stream()
                .mapToDouble(r -> busBandwidthGBps(op, worldSize, r.bytes(), r.timeMicros()))
                .average()
                .orElse(0);
    }

    /** Wrong elements over the verified rows (unverified rows count 0). */
    public static long totalWrongElements(List<RankSizeResult> results) {
        return results.stream().mapToLong(r -> Math.max(0, r.wrongElements())).sum();
    }

    /** nccl-tests' precision: two decimals below 100 us, one below 10 ms, none above. */
    static String formatTime(double micros) {
        if (micros >= 10_000) {
            return String.format(Locale.ROOT, "%7.0f", micros);
        }
        if (micros >= 100) {
            return String.format(Locale.ROOT, "%7.1f", micros);
        }
        return String.format(Locale.ROOT, "%7.2f", micros);
    }
}
