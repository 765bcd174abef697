package io.allsum.model.jobs;

import io.allsum.model.CollectiveOp;

import java.util.List;

/**
 * One row of a job's result, combined over ranks: {@code timeMicros} is the slowest rank's average time per
 * iteration (what nccl-tests reports by default across processes), algbw = bytes / time, busbw = algbw x the op's
 * factor, and the wrong elements summed over ranks. {@code rankTimesMicros} holds each rank's own average time,
 * lowest rank first (null from servers that send none), for clients that report another statistic (nccl-tests' -a).
 */
public record SizeResult(long bytes, long count, double timeMicros, double algBandwidthGBps,
                         double busBandwidthGBps, long wrongElements, List<Double> rankTimesMicros) {

    public SizeResult {
        rankTimesMicros = rankTimesMicros == null ? null : List.copyOf(rankTimesMicros);
    }

    /** A row without per-rank times. */
    public SizeResult(long bytes, long count, double timeMicros, double algBandwidthGBps, double busBandwidthGBps,
                      long wrongElements) {
        this(bytes, count, timeMicros, algBandwidthGBps, busBandwidthGBps, wrongElements, null);
    }

    /** The row of {@code op} on {@code worldSize} ranks that took {@code timeMicros}, bandwidths computed from it. */
    public static SizeResult measured(CollectiveOp op, int worldSize, long bytes, long count, double timeMicros,
                                      long wrongElements, List<Double> rankTimesMicros) {
        return new SizeResult(bytes, count, timeMicros, CollectiveOp.algBandwidthGBps(bytes, timeMicros),
                op.busBandwidthGBps(bytes, timeMicros, worldSize), wrongElements, rankTimesMicros);
    }

    /** This row with another time (and the bandwidths that follow from it), per-rank times kept. */
    public SizeResult withTime(CollectiveOp op, int worldSize, double time) {
        return measured(op, worldSize, bytes, count, time, wrongElements, rankTimesMicros);
    }
}
