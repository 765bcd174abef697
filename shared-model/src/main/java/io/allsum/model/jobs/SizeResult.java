package io.allsum.model.jobs;

import java.util.List;

/**
 * One row of a job's result, aggregated over ranks: the slowest rank's average time per iteration, algbw = bytes /
 * time, busbw = algbw x the op's factor, and the wrong elements summed over ranks. {@code rankTimesMicros} holds each
 * rank's own average time, lowest rank first (null from servers that predate it), so that clients can report the
 * average, minimum or rank 0's time as nccl-tests' {@code -a} does.
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
}
