package io.allsum.model.jobs;

import java.util.List;

/**
 * One rank's validation figures: where it runs, its figure alone (GB/s; null until measured), one entry per
 * pair it was in, as measured from its side, and the seconds its pair phase took (null until its last round).
 */
public record RankValidation(String host, String device, Double soloGBps, List<PairMeasurement> pairs,
                             Double pairsSeconds) {

    /** An exchange with {@code peer}: bandwidth of {@code bytes} each way, and the 8-byte round's latency. */
    public record PairMeasurement(int peer, long bytes, double gbps, double latencyMicros) {
    }

    public RankValidation {
        pairs = pairs == null ? List.of() : List.copyOf(pairs);
    }
}
