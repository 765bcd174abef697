package io.allsum.model.validate;

import io.allsum.model.WholeNumbers;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * A validation's own settings; null fields take the defaults of {@link #withDefaults()}. {@code soloBytes}: the
 * buffer each rank reduces alone; {@code pairBytes}: what each pair exchanges both ways (latency is timed at 8 B);
 * {@code minDeviations}, {@code minShortfall}, {@code minStallShare}: when a figure makes a suspect
 * ({@link Thresholds}); {@code expectBusBandwidthGBps}: an optional floor for the sweep's largest size;
 * {@code baseline}: an optional healthy run's figures that this one must not fall short of.
 */
public record ValidationSpec(@JsonDeserialize(using = WholeNumbers.LongOnly.class) Long soloBytes,
                             @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long pairBytes,
                             @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer pairIterations,
                             Double minDeviations, Double minShortfall, Double expectBusBandwidthGBps,
                             Double minStallShare, Baseline baseline) {

    public static final long DEFAULT_SOLO_BYTES = 16L << 20;
    public static final long DEFAULT_PAIR_BYTES = 4L << 20;
    public static final int DEFAULT_PAIR_ITERATIONS = 5;

    public ValidationSpec(Long soloBytes, Long pairBytes, Integer pairIterations, Double minDeviations,
                          Double minShortfall, Double expectBusBandwidthGBps) {
        this(soloBytes, pairBytes, pairIterations, minDeviations, minShortfall, expectBusBandwidthGBps, null, null);
    }

    public ValidationSpec withDefaults() {
        var t = Thresholds.DEFAULTS;
        return new ValidationSpec(soloBytes != null ? soloBytes : DEFAULT_SOLO_BYTES,
                pairBytes != null ? pairBytes : DEFAULT_PAIR_BYTES,
                pairIterations != null ? pairIterations : DEFAULT_PAIR_ITERATIONS,
                minDeviations != null ? minDeviations : t.minDeviations(),
                minShortfall != null ? minShortfall : t.minShortfall(),
                expectBusBandwidthGBps,
                minStallShare != null ? minStallShare : t.minStallShare(),
                baseline);
    }

    public ValidationSpec withBaseline(Baseline other) {
        return new ValidationSpec(soloBytes, pairBytes, pairIterations, minDeviations, minShortfall,
                expectBusBandwidthGBps, minStallShare, other);
    }

    /** When a figure makes a suspect: this spec's thresholds (defaults filled in), the default shares. */
    public Thresholds thresholds() {
        ValidationSpec s = withDefaults();
        Thresholds d = Thresholds.DEFAULTS;
        return new Thresholds(s.minDeviations(), s.minShortfall(), d.pairShare(), d.lateShare(), s.minStallShare());
    }
}
