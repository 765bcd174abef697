package io.allsum.model.validate;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.allsum.model.validate.Stragglers.RankWaits;

import java.util.List;
import java.util.Map;

/**
 * A validation job's figures across ranks, as far as measured, and once every rank reported the verdict:
 * {@code healthy}, {@code suspects} or {@code failed}. {@code pairs}: one entry per measured pair, the slower of its
 * two sides; {@code pairsSeconds}: how long the pair phase took, the slowest rank's own clock (null until every rank
 * measured it); {@code lastArrivals}: per rank, in how many sweep sizes it arrived last; {@code phase}: the phase
 * being measured ({@code alone}, {@code pairs}, {@code together}) or {@code done}; for a job that failed, the phase
 * it failed in. {@code waits}: per rank, what the others waited for it at the lock-step barriers over
 * {@code lockstepSeconds}; {@code figures}: this run's figures by name, as a {@link io.allsum.model.validate.Baseline}
 * holds them; {@code retransmits}: per pair, the kernel's TCP counters of both directions over the whole validation
 * (where the ranks could read them). {@code suspects} (each with how it was confirmed), {@code unconfirmed} (found, then fine when measured
 * again) and {@code verdict} are null until the job ended. Written beside them, derived here so that every reader
 * shows the same: {@code worldSize}, {@code soloMedianGBps}, {@code pairMedianGBps} and {@code heat}, the
 * {@link PairMatrix} rows.
 */
public record ValidationResult(List<RankPlace> ranks, List<SoloFigure> solo, List<PairFigure> pairs,
                               Double pairsSeconds, List<Integer> lastArrivals, List<Suspect> suspects,
                               String verdict, String phase, List<RankWaits> waits, Double lockstepSeconds,
                               List<Suspect> unconfirmed, Map<String, Double> figures,
                               List<PairRetransmits> retransmits) {

    public ValidationResult(List<RankPlace> ranks, List<SoloFigure> solo, List<PairFigure> pairs,
                            Double pairsSeconds, List<Integer> lastArrivals, List<Suspect> suspects, String verdict,
                            String phase, List<RankWaits> waits, Double lockstepSeconds, List<Suspect> unconfirmed,
                            Map<String, Double> figures) {
        this(ranks, solo, pairs, pairsSeconds, lastArrivals, suspects, verdict, phase, waits, lockstepSeconds,
                unconfirmed, figures, List.of());
    }

    public ValidationResult {
        retransmits = retransmits == null ? List.of() : List.copyOf(retransmits);
    }

    /** The ranks the figures so far cover: the highest rank any of them names, plus one. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public int worldSize() {
        int n = lastArrivals == null ? 0 : lastArrivals.size();
        for (RankPlace p : ranks == null ? List.<RankPlace>of() : ranks) {
            n = Math.max(n, p.rank() + 1);
        }
        for (SoloFigure f : solo == null ? List.<SoloFigure>of() : solo) {
            n = Math.max(n, f.rank() + 1);
        }
        for (PairFigure p : pairsSoFar()) {
            n = Math.max(n, p.high() + 1);
        }
        return n;
    }

    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public Double soloMedianGBps() {
        return solo == null || solo.isEmpty() ? null
                : RobustStats.of(solo.stream().mapToDouble(SoloFigure::gbps).toArray()).median();
    }

    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public Double pairMedianGBps() {
        return PairMatrix.medianGBps(pairsSoFar());
    }

    /** {@link PairMatrix#rows} of the pairs measured so far. */
    @JsonProperty(access = JsonProperty.Access.READ_ONLY)
    public List<String> heat() {
        return PairMatrix.rows(worldSize(), pairsSoFar());
    }

    private List<PairFigure> pairsSoFar() {
        return pairs == null ? List.of() : pairs;
    }

    public static final String ALONE = "alone";
    public static final String PAIRS = "pairs";
    public static final String TOGETHER = "together";
    public static final String DONE = "done";

    public static final String HEALTHY = "healthy";
    public static final String SUSPECTS = "suspects";
    public static final String FAILED = "failed";

    /**
     * A pair's TCP counters, both directions: segments sent, sent again, and resent though the peer had them (DSACK);
     * {@code percent} is the lost share, resent and not reported back as a duplicate.
     */
    public record PairRetransmits(int low, int high, long segmentsOut, long retransmits, long spuriousRetransmits,
                                  double percent) {

        public static PairRetransmits of(int low, int high, long segmentsOut, long retransmits, long spurious) {
            return new PairRetransmits(low, high, segmentsOut, retransmits, spurious,
                    segmentsOut == 0 ? 0 : 100.0 * lost(retransmits, spurious) / segmentsOut);
        }

        public long lost() {
            return lost(retransmits, spuriousRetransmits);
        }

        /** Resent and never reported back as a duplicate (a network that duplicates packets can report more). */
        private static long lost(long retransmits, long spurious) {
            return Math.max(0, retransmits - spurious);
        }
    }

    public record SoloFigure(int rank, double gbps) {
    }

    /** {@code gbps}: bytes over the wall time of all exchanges; the median and the worst exchange beside it. */
    public record PairFigure(int low, int high, double gbps, double latencyMicros, double medianGBps,
                             double worstGBps) {

        public PairFigure(int low, int high, double gbps, double latencyMicros) {
            this(low, high, gbps, latencyMicros, gbps, gbps);
        }
    }
}
