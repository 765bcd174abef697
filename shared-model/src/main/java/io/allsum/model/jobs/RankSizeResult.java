package io.allsum.model.jobs;

/**
 * What one rank measured for one size: average time per iteration (CUDA events on GPU, System.nanoTime on CPU)
 * and the elements that differed from the exact expected result (-1 when not verified).
 */
public record RankSizeResult(long bytes, long count, double timeMicros, long wrongElements) {
}
