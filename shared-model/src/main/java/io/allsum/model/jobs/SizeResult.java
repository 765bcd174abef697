package io.allsum.model.jobs;

/**
 * One row of a job's result, aggregated over ranks like nccl-tests: the slowest rank's average time per
 * iteration, algbw = bytes / time, busbw = algbw x the op's factor, and the wrong elements summed over ranks.
 */
public record SizeResult(long bytes, long count, double timeMicros, double algBandwidthGBps,
                         double busBandwidthGBps, long wrongElements) {
}
