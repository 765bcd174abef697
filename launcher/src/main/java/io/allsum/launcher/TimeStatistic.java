package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.SizeResult;

import java.util.List;

/**
 * Which rank time the {@code time} column shows, as nccl-tests' {@code -a/--average}: 0 rank 0's, 1 the average over
 * ranks (the default), 2 the fastest rank's, 3 the slowest rank's. algbw and busbw follow from the chosen time.
 * Rows from a server that sends no per-rank times keep the server's time (the slowest rank's).
 */
public enum TimeStatistic {
    RANK0("rank 0"), AVG("average of ranks"), MIN("fastest rank"), MAX("slowest rank");

    private final String description;

    TimeStatistic(String description) {
        this.description = description;
    }

    /** nccl-tests' -a value: 0..3. */
    public static TimeStatistic fromCode(int code) {
        if (code < 0 || code >= values().length) {
            throw new IllegalArgumentException("-a/--average must be 0 (rank 0), 1 (average), 2 (min) or 3 (max), was " + code);
        }
        return values()[code];
    }

    public String description() {
        return description;
    }

    /** The row with time, algbw and busbw for this statistic. */
    public SizeResult apply(SizeResult r, CollectiveOp op, int worldSize) {
        List<Double> times = r.rankTimesMicros();
        if (times == null || times.isEmpty()) {
            return r;
        }
        double time = switch (this) {
            case RANK0 -> times.getFirst();
            case AVG -> times.stream().mapToDouble(Double::doubleValue).average().orElse(r.timeMicros());
            case MIN -> times.stream().mapToDouble(Double::doubleValue).min().orElse(r.timeMicros());
            case MAX -> times.stream().mapToDouble(Double::doubleValue).max().orElse(r.timeMicros());
        };
        return r.withTime(op, worldSize, time);
    }

    /** The job with every row under this statistic. */
    public Job apply(Job job, int worldSize) {
        if (job.results() == null || job.spec() == null) {
            return job;
        }
        CollectiveOp op = job.spec().withDefaults().op();
        List<SizeResult> rows = job.results().stream().map(r -> apply(r, op, worldSize)).toList();
        return new Job(job.jobId(), job.group(), job.seq(), job.generation(), job.spec(), job.state(),
                job.submittedAt(), job.dispatchedAt(), job.finishedAt(), job.dispatchLatencyMicros(),
                job.reportedRanks(), job.failureReason(), rows, job.validation());
    }
}
