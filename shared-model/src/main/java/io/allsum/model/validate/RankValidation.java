package io.allsum.model.validate;

import java.util.List;

/**
 * One rank's validation figures: where it runs, its figure alone (GB/s; null until measured), one entry per
 * pair it was in, as measured from its side, and the seconds its pair phase took (null until its last round).
 * {@code barrierWaitsMicros}: how long this rank waited at each lock-step barrier (the alone phase's steps, then
 * each pair round's), the same barriers on every rank; {@code lockstepSeconds}: the wall time those barriers span;
 * {@code confirmations}: how each suspect was measured again (the same list on every rank; empty until the end);
 * {@code links}: the kernel's TCP counters of this rank's connection to each peer over the whole validation (empty
 * until the end, and where the backend's traffic is not the worker's own TCP); {@code cpu}: how long its CPU cgroup's
 * quota held it back over the whole validation (null until the end, and where no cgroup counts it).
 */
public record RankValidation(String host, String device, Double soloGBps, List<PairMeasurement> pairs,
                             Double pairsSeconds, List<Double> barrierWaitsMicros, Double lockstepSeconds,
                             List<Confirmation> confirmations, List<LinkTraffic> links, CpuThrottling cpu) {

    /**
     * An exchange with {@code peer}: {@code gbps}, the bytes moved each way over the wall time of all timed
     * exchanges (a stall within them counts); the median and the worst exchange's; the 8-byte round's latency.
     */
    public record PairMeasurement(int peer, long bytes, double gbps, double latencyMicros, double medianGBps,
                                  double worstGBps) {

        public PairMeasurement(int peer, long bytes, double gbps, double latencyMicros) {
            this(peer, bytes, gbps, latencyMicros, gbps, gbps);
        }
    }

    /**
     * A suspect ({@link io.allsum.model.validate.Suspect#key()}) measured again with known-good partners:
     * {@code confirmed} when the new figures still single it out; {@code how} says with whom and what they showed.
     * {@code foundRank}: a partner that the probes showed bad instead, a suspect of kind rank the figures alone did
     * not name (null otherwise).
     */
    public record Confirmation(String key, boolean confirmed, String how, Integer foundRank) {

        public Confirmation(String key, boolean confirmed, String how) {
            this(key, confirmed, how, null);
        }
    }

    /**
     * Segments this rank sent to {@code peer} over TCP, how many of them it sent again, and how many of those the peer
     * reported it already had (DSACK): resent early, not lost. 0 where the kernel does not count them.
     */
    public record LinkTraffic(int peer, long segmentsOut, long retransmits, long spuriousRetransmits) {
    }

    /**
     * The kernel's CFS bandwidth counters of this rank's CPU cgroup over {@code windowSeconds} of its wall time: in how
     * many of the enforcement periods in which it ran its quota ran out, and the time it was held back (summed over
     * the CPUs it was held on, so it may exceed the window).
     */
    public record CpuThrottling(double throttledSeconds, double windowSeconds, long throttledPeriods, long periods) {

        /** The share of its periods in which the quota ran out. */
        public double periodShare() {
            return periods > 0 ? (double) throttledPeriods / periods : 0;
        }
    }

    public RankValidation(String host, String device, Double soloGBps, List<PairMeasurement> pairs,
                          Double pairsSeconds) {
        this(host, device, soloGBps, pairs, pairsSeconds, List.of(), null, List.of(), List.of(), null);
    }

    public RankValidation(String host, String device, Double soloGBps, List<PairMeasurement> pairs,
                          Double pairsSeconds, List<Double> barrierWaitsMicros, Double lockstepSeconds,
                          List<Confirmation> confirmations) {
        this(host, device, soloGBps, pairs, pairsSeconds, barrierWaitsMicros, lockstepSeconds, confirmations,
                List.of(), null);
    }

    public RankValidation {
        pairs = pairs == null ? List.of() : List.copyOf(pairs);
        barrierWaitsMicros = barrierWaitsMicros == null ? List.of() : List.copyOf(barrierWaitsMicros);
        confirmations = confirmations == null ? List.of() : List.copyOf(confirmations);
        links = links == null ? List.of() : List.copyOf(links);
    }
}
