package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankValidation;
import io.allsum.model.jobs.SizeResult;

import java.time.Instant;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/** The server's mutable record of one job; guarded by its {@link GroupJobs}' lock. */
final class JobRecord {

    final String jobId;
    final String group;
    final long seq;
    final JobSpec spec;
    final Instant submittedAt;
    final long submittedNanos;

    JobState state = JobState.QUEUED;
    /** Set when the first rank receives the job: the generation and world size it runs in, its sweep. */
    Long generation;
    int worldSize;
    List<Long> sizes = List.of();
    Instant dispatchedAt;
    long deadlineNanos;
    final SortedSet<Integer> receivedRanks = new TreeSet<>();
    Double dispatchLatencyMicros;
    final SortedMap<Integer, RankReport> reports = new TreeMap<>();
    /** A validation job's newest figures per rank, from partial and final reports. */
    final SortedMap<Integer, RankValidation> validations = new TreeMap<>();
    String failureReason;
    List<SizeResult> results = List.of();
    Instant finishedAt;

    JobRecord(String jobId, String group, long seq, JobSpec spec, Instant submittedAt, long submittedNanos) {
        this.jobId = jobId;
        this.group = group;
        this.seq = seq;
        this.spec = spec;
        this.submittedAt = submittedAt;
        this.submittedNanos = submittedNanos;
    }

    /** Ranks of the job's world that have not reported yet. */
    List<Integer> missingReports() {
        return IntStream.range(0, worldSize).filter(r -> !reports.containsKey(r)).boxed().toList();
    }

    /** Ranks of the job's world that never received it. */
    List<Integer> neverReceived() {
        return IntStream.range(0, worldSize).filter(r -> !receivedRanks.contains(r)).boxed().toList();
    }

    Job view() {
        return new Job(jobId, group, seq, generation, spec, state, submittedAt, dispatchedAt, finishedAt,
                dispatchLatencyMicros, List.copyOf(reports.keySet()), failureReason, results,
                ValidationAggregator.view(this));
    }
}
