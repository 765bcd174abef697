package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.SizeResult;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The job queue of one group: jobs in submission order ({@code seq}), their states, and a "changed" signal that
 * long-polling workers wait on. Every method takes the group's lock; none calls out of the jobs package while
 * holding it, so the rendezvous registry may publish its events from under its own locks.
 */
final class GroupJobs {

    private final String group;
    private final JobMetrics metrics;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final NavigableMap<Long, JobRecord> bySeq = new TreeMap<>();
    private final Map<String, JobRecord> byId = new HashMap<>();
    private long lastSeq;
    /** Completed (and replaced) whenever a waiting worker might now get a job, or an answer. */
    private CompletableFuture<Void> changed = new CompletableFuture<>();
    /** System.nanoTime() when the group was closed or evicted; null while it lives. */
    private Long removedAtNanos;
    /**
     * The newest generation known to have failed: a worker that saw its generation complete just before the
     * failure event must not bind a queued job to it, or that job would sit in a dead generation until its deadline.
     */
    private long newestFailedGeneration;

    GroupJobs(String group, JobMetrics metrics, Clock clock) {
        this.group = group;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The signal to wait on; take it BEFORE looking at the state, so that no change can slip in between. */
    CompletableFuture<Void> changeSignal() {
        lock.lock();
        try {
            return changed;
        } finally {
            lock.unlock();
        }
    }

    Job submit(JobSpec spec, int history) {
        return mutate(() -> {
            makeRoom(history);
            long seq = ++lastSeq;
            JobRecord job = new JobRecord(UUID.randomUUID().toString(), group, seq, spec, clock.instant(), System.nanoTime());
            bySeq.put(seq, job);
            byId.put(job.jobId, job);
            metrics.submitted();
            return job.view();
        });
    }

    /** Drops the oldest finished jobs until one more fits; unfinished jobs are never dropped. */
    private void makeRoom(int history) {
        Iterator<JobRecord> oldestFirst = bySeq.values().iterator();
        while (bySeq.size() >= history && oldestFirst.hasNext()) {
            JobRecord job = oldestFirst.next();
            if (job.state.isFinal()) {
                oldestFirst.remove();
                byId.remove(job.jobId);
            }
        }
        if (bySeq.size() >= history) {
            throw JobProblems.tooManyUnfinished(group, bySeq.size());
        }
    }

    List<Job> list() {
        return locked(() -> bySeq.values().stream().map(JobRecord::view).toList());
    }

    Optional<Job> get(String jobId) {
        return locked(() -> Optional.ofNullable(byId.get(jobId)).map(JobRecord::view));
    }

    Job cancel(String jobId) {
        return locked(() -> {
            JobRecord job = require(jobId);
            switch (job.state) {
                case QUEUED -> finish(job, JobState.CANCELLED, "cancelled before any rank received it");
                case RUNNING -> throw JobProblems.conflict("job " + jobId + " is already running in generation "
                        + job.generation + " on ranks " + job.receivedRanks + " (reported: " + job.reports.keySet()
                        + "); a running job cannot be cancelled, it ends when every rank reported or at its deadline "
                        + job.dispatchedAt.plusSeconds(job.spec.timeoutSeconds()));
                default -> throw JobProblems.conflict("job " + jobId + " already ended: " + job.state
                        + (job.failureReason != null ? " (" + job.failureReason + ")" : ""));
            }
            return job.view();
        });
    }

    /**
     * Hands {@code rank} the first job after {@code after} that is queued, or already running in {@code generation};
     * the first rank to receive a queued job binds it to that generation. Null when there is none.
     */
    JobAssignment assign(int rank, long after, long generation, int worldSize) {
        return locked(() -> {
            if (generation <= newestFailedGeneration) {
                return null;
            }
            for (JobRecord job : bySeq.tailMap(after, false).values()) {
                if (job.state == JobState.QUEUED) {
                    dispatch(job, generation, worldSize);
                } else if (job.state != JobState.RUNNING || job.generation != generation) {
                    continue;
                }
                deliver(job, rank);
                return new JobAssignment(job.jobId, job.seq, job.generation, job.spec);
            }
            return null;
        });
    }

    private void dispatch(JobRecord job, long generation, int worldSize) {
        job.state = JobState.RUNNING;
        job.generation = generation;
        job.worldSize = worldSize;
        job.sizes = job.spec.sizes(worldSize);
        job.dispatchedAt = clock.instant();
        job.deadlineNanos = System.nanoTime() + Duration.ofSeconds(job.spec.timeoutSeconds()).toNanos();
    }

    private void deliver(JobRecord job, int rank) {
        job.receivedRanks.add(rank);
        if (job.dispatchLatencyMicros == null && job.receivedRanks.size() == job.worldSize) {
            Duration latency = Duration.ofNanos(System.nanoTime() - job.submittedNanos);
            job.dispatchLatencyMicros = latency.toNanos() / 1e3;
            metrics.dispatched(latency);
        }
    }

    /**
     * Takes one rank's report (membership already checked by the caller). A failure ends the job FAILED naming the
     * rank; the last success aggregates the results. Repeated reports from a rank, and reports on a job that already
     * failed or was cancelled, are accepted and ignored.
     */
    void report(String jobId, RankReport report) {
        locked(() -> {
            JobRecord job = require(jobId);
            if (job.state == JobState.QUEUED) {
                throw JobProblems.conflict("job " + jobId + " has not been dispatched yet; rank " + report.rank()
                        + " cannot have run it");
            }
            if (job.generation != report.generation().longValue()) {
                throw JobProblems.conflict("job " + jobId + " runs in generation " + job.generation
                        + ", the report of rank " + report.rank() + " is for generation " + report.generation());
            }
            if (job.state.isFinal() || job.reports.containsKey(report.rank())) {
                return null;
            }
            if (!report.succeeded()) {
                job.reports.put(report.rank(), report);
                finish(job, JobState.FAILED, "rank " + report.rank() + " (instance " + report.instanceId()
                        + ") failed: " + (report.error() == null || report.error().isBlank() ? "no error given" : report.error()));
                return null;
            }
            String problem = ResultAggregator.problemWith(report, job.sizes);
            if (problem != null) {
                throw JobProblems.badField(problem.substring(0, problem.indexOf(':')),
                        "rank " + report.rank() + " " + problem.substring(problem.indexOf(':') + 2));
            }
            job.reports.put(report.rank(), report);
            if (job.reports.size() == job.worldSize) {
                complete(job);
            }
            return null;
        });
    }

    private void complete(JobRecord job) {
        job.results = ResultAggregator.aggregate(job.spec.op(), job.worldSize, job.sizes, job.reports.values());
        long wrong = ResultAggregator.totalWrong(job.results);
        if (wrong > 0) {
            finish(job, JobState.FAILED, "verification failed: " + wrong + " wrong elements at sizes "
                    + job.results.stream().filter(r -> r.wrongElements() > 0).map(SizeResult::bytes).toList());
        } else {
            finish(job, JobState.SUCCEEDED, null);
        }
    }

    /** Fails the jobs running in a generation that failed; queued jobs wait for the next generation. */
    void generationFailed(long generation, String reason) {
        locked(() -> {
            newestFailedGeneration = Math.max(newestFailedGeneration, generation);
            for (JobRecord job : bySeq.values()) {
                if (job.state == JobState.RUNNING && job.generation == generation) {
                    finish(job, JobState.FAILED, "generation " + generation + " failed: " + reason
                            + "; ranks " + job.missingReports() + " had not reported");
                }
            }
            return null;
        });
    }

    /** The group is gone: queued jobs are cancelled, running ones failed, waiting workers answered. */
    void groupRemoved(String reason) {
        mutate(() -> {
            for (JobRecord job : bySeq.values()) {
                if (job.state == JobState.QUEUED) {
                    finish(job, JobState.CANCELLED, "group removed: " + reason);
                } else if (job.state == JobState.RUNNING) {
                    finish(job, JobState.FAILED, "group removed: " + reason + "; ranks " + job.missingReports()
                            + " had not reported");
                }
            }
            removedAtNanos = System.nanoTime();
            // A group formed again under the same name counts its generations from 1 again.
            newestFailedGeneration = 0;
            return null;
        });
    }

    /** A generation completed: the group lives (again) and waiting workers may now get jobs. */
    void generationCompleted() {
        mutate(() -> {
            removedAtNanos = null;
            return null;
        });
    }

    /** Fails every running job past its deadline, naming the ranks that did not report; returns how many. */
    int expireOverdue(long nowNanos) {
        return locked(() -> {
            int expired = 0;
            for (JobRecord job : bySeq.values()) {
                if (job.state == JobState.RUNNING && nowNanos - job.deadlineNanos >= 0) {
                    List<Integer> neverReceived = job.neverReceived();
                    finish(job, JobState.FAILED, "timed out after " + job.spec.timeoutSeconds()
                            + " s: ranks " + job.missingReports() + " did not report"
                            + (neverReceived.isEmpty() ? "" : " (ranks " + neverReceived + " never received the job)"));
                    expired++;
                }
            }
            return expired;
        });
    }

    /** Whether the group was removed more than {@code retain} ago, so that its history may go. */
    boolean removedLongerThan(Duration retain, long nowNanos) {
        return locked(() -> removedAtNanos != null && nowNanos - removedAtNanos >= retain.toNanos());
    }

    long count(JobState state) {
        return locked(() -> bySeq.values().stream().filter(j -> j.state == state).count());
    }

    private void finish(JobRecord job, JobState state, String reason) {
        job.state = state;
        job.failureReason = reason;
        job.finishedAt = clock.instant();
        metrics.finished(state);
    }

    private JobRecord require(String jobId) {
        JobRecord job = byId.get(jobId);
        if (job == null) {
            throw JobProblems.unknownJob(group, jobId);
        }
        return job;
    }

    private <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} under the lock, then wakes the waiting workers (outside the lock). */
    private <T> T mutate(Supplier<T> action) {
        CompletableFuture<Void> fired;
        T result;
        lock.lock();
        try {
            result = action.get();
            fired = changed;
            changed = new CompletableFuture<>();
        } finally {
            lock.unlock();
        }
        fired.complete(null);
        return result;
    }
}
