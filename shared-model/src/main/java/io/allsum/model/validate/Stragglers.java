package io.allsum.model.validate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Who the others waited for at validation's lock-step barriers. At each barrier every rank times its own wait; the
 * rank that arrived last waited least, and its lateness (charged to it alone) is how much less than the median of the
 * others' waits. A
 * rank that stalls (runs, then stops) is late at many barriers with every peer, a busy moment of a shared host at few.
 */
public final class Stragglers {

    /** A barrier counts as late for a rank when the others' median wait exceeds its own by this much. */
    static final double LATE_MICROS = 1000;

    /**
     * One rank's waits: {@code causedSeconds}, the sum of its lateness over the barriers; {@code lateBarriers}, at how
     * many it was at least {@link #LATE_MICROS} late; {@code waitedSeconds}, its own waits summed.
     */
    public record RankWaits(int rank, double causedSeconds, int lateBarriers, int barriers, double waitedSeconds) {
    }

    private Stragglers() {
    }

    /**
     * @param waitsMicros per rank, its wait at each barrier (micros), the same barriers in the same order; a rank
     *                    with fewer entries than the others counts only the barriers all ranks share
     */
    public static List<RankWaits> of(List<List<Double>> waitsMicros) {
        int n = waitsMicros.size();
        int barriers = waitsMicros.stream().mapToInt(List::size).min().orElse(0);
        double[] caused = new double[n];
        int[] late = new int[n];
        double[] waited = new double[n];
        double[] others = new double[Math.max(0, n - 1)];
        for (int b = 0; b < barriers && n >= 2; b++) {
            // only the last to arrive (the least wait) set the barrier's time: a rank late behind it cost nobody
            int last = 0;
            for (int r = 1; r < n; r++) {
                last = waitsMicros.get(r).get(b) < waitsMicros.get(last).get(b) ? r : last;
            }
            for (int r = 0; r < n; r++) {
                waited[r] += waitsMicros.get(r).get(b);
                if (r != last) {
                    continue;
                }
                int k = 0;
                for (int o = 0; o < n; o++) {
                    if (o != r) {
                        others[k++] = waitsMicros.get(o).get(b);
                    }
                }
                double own = waitsMicros.get(r).get(b);
                double lateness = Math.max(0, median(others) - own);
                caused[r] += lateness;
                late[r] += lateness >= LATE_MICROS ? 1 : 0;
            }
        }
        List<RankWaits> out = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            out.add(new RankWaits(r, caused[r] / 1e6, late[r], barriers, waited[r] / 1e6));
        }
        return out;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
