package io.allsum.model.validate;

import java.util.Arrays;
import java.util.Collection;

/**
 * Median and median absolute deviation: a few bad members cannot move them, unlike a mean and standard deviation,
 * so the members that stand out are measured against the healthy majority.
 */
public record RobustStats(double median, double mad, int n) {

    /** MAD times this estimates the standard deviation of normally distributed figures. */
    public static final double NORMAL_SCALE = 1.4826;

    public static RobustStats of(Collection<Double> values) {
        return of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    public static RobustStats of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double median = median(values);
        double[] deviations = Arrays.stream(values).map(v -> Math.abs(v - median)).toArray();
        return new RobustStats(median, median(deviations), values.length);
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** How many estimated standard deviations {@code value} lies below the median (the modified z-score). */
    public double deviationsBelow(double value) {
        double spread = mad * NORMAL_SCALE;
        if (spread == 0) {
            return value < median ? Double.POSITIVE_INFINITY : 0;
        }
        return (median - value) / spread;
    }

    /** The fraction of the median that {@code value} falls short by (0 at or above the median). */
    public double shortfall(double value) {
        return median <= 0 || value >= median ? 0 : (median - value) / median;
    }
}
