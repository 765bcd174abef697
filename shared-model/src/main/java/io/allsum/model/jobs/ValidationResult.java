package io.allsum.model.jobs;

import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.Suspect;

import java.util.List;

/**
 * A validation job's figures across ranks, as far as measured, and once every rank reported the verdict:
 * {@code healthy}, {@code suspects} or {@code failed}. {@code pairs}: one entry per measured pair, the slower of its
 * two sides; {@code lastArrivals}: per rank, in how many sweep sizes it arrived last.
 */
public record ValidationResult(List<RankPlace> ranks, List<SoloFigure> solo, List<PairFigure> pairs,
                               List<Integer> lastArrivals, List<Suspect> suspects, String verdict) {

    public static final String HEALTHY = "healthy";
    public static final String SUSPECTS = "suspects";
    public static final String FAILED = "failed";

    public record SoloFigure(int rank, double gbps) {
    }

    public record PairFigure(int low, int high, double gbps, double latencyMicros) {
    }
}
