package io.allsum.model.jobs;

import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.Suspect;

import java.util.List;

/**
 * A validation job's figures across ranks, as far as measured, and once every rank reported the verdict:
 * {@code healthy}, {@code suspects} or {@code failed}. {@code pairs}: one entry per measured pair, the slower of its
 * two sides; {@code pairsSeconds}: how long the pair phase took, the slowest rank's own clock (null until every rank
 * measured it); {@code lastArrivals}: per rank, in how many sweep sizes it arrived last; {@code phase}: the phase
 * being measured ({@code alone}, {@code pairs}, {@code together}) or {@code done}; for a job that failed, the phase
 * it failed in. {@code suspects} and {@code verdict} are null until the job ended.
 */
public record ValidationResult(List<RankPlace> ranks, List<SoloFigure> solo, List<PairFigure> pairs,
                               Double pairsSeconds, List<Integer> lastArrivals, List<Suspect> suspects,
                               String verdict, String phase) {

    public static final String ALONE = "alone";
    public static final String PAIRS = "pairs";
    public static final String TOGETHER = "together";
    public static final String DONE = "done";

    public static final String HEALTHY = "healthy";
    public static final String SUSPECTS = "suspects";
    public static final String FAILED = "failed";

    public record SoloFigure(int rank, double gbps) {
    }

    public record PairFigure(int low, int high, double gbps, double latencyMicros) {
    }
}
