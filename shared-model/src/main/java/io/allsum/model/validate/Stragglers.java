package io.allsum.model.validate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Who the others waited for at validation's lock-step barriers. At each barrier every rank times its own wait; the
 * rank that arrived last waited least, and its lateness is how much less than the median of the others' waits. The
 * ranks that arrived with it (within {@link #TIE_SHARE} of that lateness, as the two ends of one slow exchange do)
 * were late together, and the barrier's cost goes to whichever of them was late at the most barriers: the rank that
 * stalls with a new partner every round, the ranks of a slow host, not the partner that met them once.
 */
public final class Stragglers {

    /** A barrier counts as late for a rank when the others' median wait exceeds its own by this much. */
    static final double LATE_MICROS = 1000;
    /** Ranks whose waits exceed the last one's by at most this share of its lateness arrived with it. */
    static final double TIE_SHARE = 0.2;

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
        double[][] lateness = new double[barriers][]; // per barrier, each rank's lateness; NaN if not among the last
        int[] lateAt = new int[n];
        for (int b = 0; b < barriers && n >= 2; b++) {
            int last = 0;
            for (int r = 1; r < n; r++) {
                last = waitsMicros.get(r).get(b) < waitsMicros.get(last).get(b) ? r : last;
            }
            double lastLateness = lateness(waitsMicros, b, last, others);
            double tie = lastLateness >= LATE_MICROS ? TIE_SHARE * lastLateness : 0;
            lateness[b] = new double[n];
            for (int r = 0; r < n; r++) {
                double own = waitsMicros.get(r).get(b);
                waited[r] += own;
                boolean amongLast = r == last || own - waitsMicros.get(last).get(b) <= tie;
                lateness[b][r] = !amongLast ? Double.NaN : r == last ? lastLateness : lateness(waitsMicros, b, r, others);
                lateAt[r] += lateness[b][r] >= LATE_MICROS ? 1 : 0;
            }
        }
        for (int b = 0; b < barriers && n >= 2; b++) {
            int most = 0;
            for (int r = 0; r < n; r++) {
                most = Double.isNaN(lateness[b][r]) ? most : Math.max(most, lateAt[r]);
            }
            for (int r = 0; r < n; r++) {
                if (!Double.isNaN(lateness[b][r]) && lateAt[r] == most) {
                    caused[r] += lateness[b][r];
                    late[r] += lateness[b][r] >= LATE_MICROS ? 1 : 0;
                }
            }
        }
        List<RankWaits> out = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            out.add(new RankWaits(r, caused[r] / 1e6, late[r], barriers, waited[r] / 1e6));
        }
        return out;
    }

    /** How much less than the median of the others' waits rank {@code r} waited at barrier {@code b}, at least 0. */
    private static double lateness(List<List<Double>> waitsMicros, int b, int r, double[] others) {
        int k = 0;
        for (int o = 0; o < waitsMicros.size(); o++) {
            if (o != r) {
                others[k++] = waitsMicros.get(o).get(b);
            }
        }
        return Math.max(0, median(others) - waitsMicros.get(r).get(b));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
}
