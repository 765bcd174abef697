package io.allsum.model.jobs;

import java.time.Instant;
import java.util.List;

/**
 * A job as {@code GET /rendezvous/{group}/jobs/{jobId}} shows it. {@code results} holds one aggregated row per
 * size once every rank reported; {@code reportedRanks} says who has.
 */
public record Job(String jobId, String group, long seq, Long generation, JobSpec spec, JobState state,
                  Instant submittedAt, Instant dispatchedAt, Instant finishedAt, Double dispatchLatencyMicros,
                  List<Integer> reportedRanks, String failureReason, List<SizeResult> results) {
}
