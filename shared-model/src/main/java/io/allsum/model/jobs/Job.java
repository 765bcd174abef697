package io.allsum.model.jobs;

import io.allsum.model.validate.ValidationResult;
import java.time.Instant;
import java.util.List;

/**
 * A job as {@code GET /rendezvous/{group}/jobs/{jobId}} shows it. {@code results} holds one aggregated row per
 * size that every rank has measured: while the job runs (from the ranks' partial reports), and after it ended,
 * failed ones included; {@code reportedRanks} says who has sent its final report. {@code validation}: a validation
 * job's phases and verdict, as far as measured (null for a sweep).
 */
public record Job(String jobId, String group, long seq, Long generation, JobSpec spec, JobState state,
                  Instant submittedAt, Instant dispatchedAt, Instant finishedAt, Double dispatchLatencyMicros,
                  List<Integer> reportedRanks, String failureReason, List<SizeResult> results,
                  ValidationResult validation) {

    /** A sweep's job. */
    public Job(String jobId, String group, long seq, Long generation, JobSpec spec, JobState state,
               Instant submittedAt, Instant dispatchedAt, Instant finishedAt, Double dispatchLatencyMicros,
               List<Integer> reportedRanks, String failureReason, List<SizeResult> results) {
        this(jobId, group, seq, generation, spec, state, submittedAt, dispatchedAt, finishedAt, dispatchLatencyMicros,
                reportedRanks, failureReason, results, null);
    }
}
