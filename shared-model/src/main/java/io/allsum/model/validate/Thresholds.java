package io.allsum.model.validate;

/**
 * When a figure makes a suspect: it lies at least {@code minDeviations} robust standard deviations below the group's
 * median AND falls short of the median by at least {@code minShortfall} (a fraction), so that neither a noisy group
 * nor a very uniform one (MAD near 0) flags healthy members. A rank or host is blamed for its slow pairs when at
 * least {@code pairShare} of its pairs are slow; {@code lateShare} of the sizes arriving last makes a rank late;
 * the others waiting for a rank {@code minStallShare} of the lock-step time, beyond the ranks' median, makes it a
 * straggler.
 */
public record Thresholds(double minDeviations, double minShortfall, double pairShare, double lateShare,
                         double minStallShare) {

    /**
     * Healthy ranks on a crowded 2-core host cause under 2% of the lock-step time; a rank stopped 20% of the time
     * causes about 10% (the barriers' own all-reduce hides the rest: every rank's wait includes it).
     */
    public static final double DEFAULT_MIN_STALL_SHARE = 0.05;
    /** 3.5 deviations is Iglewicz and Hoaglin's outlier bound for the modified z-score. */
    public static final Thresholds DEFAULTS = new Thresholds(3.5, 0.25, 0.5, 0.5, DEFAULT_MIN_STALL_SHARE);

    public Thresholds(double minDeviations, double minShortfall, double pairShare, double lateShare) {
        this(minDeviations, minShortfall, pairShare, lateShare, DEFAULTS.minStallShare());
    }

    public Thresholds {
        if (!(minDeviations >= 0) || !(minShortfall >= 0 && minShortfall < 1)
                || !(pairShare > 0 && pairShare <= 1) || !(lateShare > 0 && lateShare <= 1)
                || !(minStallShare > 0 && minStallShare < 1)) {
            throw new IllegalArgumentException("thresholds out of range: deviations >= 0, 0 <= shortfall < 1, "
                    + "0 < pair share <= 1, 0 < late share <= 1, 0 < stall share < 1");
        }
    }

    boolean outlier(RobustStats stats, double value) {
        return stats.deviationsBelow(value) >= minDeviations && stats.shortfall(value) >= minShortfall;
    }
}
