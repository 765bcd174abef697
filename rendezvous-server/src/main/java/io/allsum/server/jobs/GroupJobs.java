package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.problem.Violation;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;

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
 * The job queue of one group: its queued and running jobs in submission order ({@code seq}), a "changed"
 * signal that long-polling workers wait on, and a "view changed" signal (a job's state or rows) for job watchers.
 * Every job is also in the {@link JobStore}: written when submitted, dispatched and ended; an ended job leaves memory once its final state is stored (a failed write is retried by
 * {@link #settle()}). Every method takes the group's lock; none calls out of the jobs package while holding it
 * (the store aside), so the rendezvous registry may publish its events from under its own locks.
 */
final class GroupJobs {

    private static final Logger log = LoggerFactory.getLogger(GroupJobs.class);

    private final String group;
    private final JobStore store;
    private final JobMetrics metrics;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final NavigableMap<Long, JobRecord> bySeq = new TreeMap<>();
    private final Map<String, JobRecord> byId = new HashMap<>();
    private long lastSeq;
    /** Completed (and replaced) whenever a waiting worker might now get a job, or an answer. */
    private CompletableFuture<Void> changed = new CompletableFuture<>();
    /** Completed (and replaced) whenever a job in memory changed state or gained rows: wakes the job watchers. */
    private CompletableFuture<Void> viewChanged = new CompletableFuture<>();
    private boolean viewDirty;
    /** System.nanoTime() when the group was closed or evicted; null while it lives. */
    private Long removedAtNanos;
    /**
     * The newest generation known to have failed: a worker that saw its generation complete just before the
     * failure event must not bind a queued job to it, or that job would sit in a dead generation until its deadline.
     */
    private long newestFailedGeneration;
    private String newestFailure;

    /** Reads the group's sequence from the store: numbering continues where the last server stopped. */
    GroupJobs(String group, JobStore store, JobMetrics metrics, Clock clock) {
        this.group = group;
        this.store = store;
        this.metrics = metrics;
        this.clock = clock;
        this.lastSeq = store.lastSeq(group);
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

    /** A job as it stands and the signal of its next change, taken together; empty when the job is not in memory. */
    record Watched(Job job, CompletableFuture<Void> signal) {
    }

    Optional<Watched> watch(String jobId) {
        return locked(() -> Optional.ofNullable(byId.get(jobId)).map(job -> new Watched(job.view(), viewChanged)));
    }

    /**
     * Queues a job. The stored history keeps at most {@code history} jobs: the oldest finished ones are deleted to
     * make room; when {@code history} jobs are unfinished, the submission is refused (429).
     */
    Job submit(JobSpec spec, int history) {
        return mutate(() -> {
            long unfinished = bySeq.values().stream().filter(j -> !j.state.isFinal()).count();
            if (unfinished >= history) {
                throw JobProblems.tooManyUnfinished(group, unfinished);
            }
            store.trim(group, history - 1);
            JobRecord job = new JobRecord(UUID.randomUUID().toString(), group, lastSeq + 1, spec, clock.instant(),
                    System.nanoTime());
            store.insert(job);
            lastSeq = job.seq;
            bySeq.put(job.seq, job);
            byId.put(job.jobId, job);
            metrics.submitted();
            return job.view();
        });
    }

    /** Every stored job of the group, oldest first, those in memory as they stand now. */
    List<Job> list() {
        return locked(() -> store.list(group).stream()
                .map(saved -> Optional.ofNullable(byId.get(saved.jobId())).map(JobRecord::view).orElse(saved))
                .toList());
    }

    Optional<Job> get(String jobId) {
        return locked(() -> {
            JobRecord live = byId.get(jobId);
            return live != null ? Optional.of(live.view()) : store.find(group, jobId);
        });
    }

    Job cancel(String jobId) {
        return mutate(() -> {
            JobRecord job = byId.get(jobId);
            if (job == null) {
                Job saved = store.find(group, jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
                throw JobProblems.conflict("job " + jobId + " already ended: " + saved.state()
                        + (saved.failureReason() != null ? " (" + saved.failureReason() + ")" : ""));
            }
            switch (job.state) {
                case QUEUED -> finish(job, JobState.CANCELLED, "cancelled before any rank received it");
                case RUNNING -> throw JobProblems.conflict("job " + jobId + " is already running in generation "
                        + job.generation + " on ranks " + job.receivedRanks + " (reported: " + job.reports.keySet()
                        + "); a running job cannot be cancelled, it ends when every rank reported or at its deadline "
                        + job.dispatchedAt.plusSeconds(job.spec.timeoutSeconds()));
                default -> throw JobProblems.conflict("job " + jobId + " already ended: " + job.state
                        + (job.failureReason != null ? " (" + job.failureReason + ")" : ""));
            }
            Job view = job.view();
            settle();
            return view;
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
            // A cursor beyond every seq this group ever had comes from another history (a server that lost its
            // database): every job here is new to that worker. The worker then takes this history's seq.
            long from = after > lastSeq ? 0 : after;
            for (JobRecord job : bySeq.tailMap(from, false).values()) {
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
        job.keptRanks = job.spec.keptRanks(worldSize);
        job.sizes = job.spec.sizes(job.keptRanks.size());
        job.dispatchedAt = clock.instant();
        job.deadlineNanos = System.nanoTime() + Duration.ofSeconds(job.spec.timeoutSeconds()).toNanos();
        viewDirty = true;
        try {
            store.saveDispatch(job);
        } catch (DataAccessException e) {
            // Only a restart reads it (to say where the job ran); the job itself goes on from memory.
            log.warn("job {} of group '{}': could not store its dispatch: {}", job.jobId, group, e.getMessage());
        }
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
     * Takes one rank's report (membership already checked by the caller). A partial report replaces what the rank
     * measured so far, and the job's rows grow to what every rank has measured (every rank that runs the sweep: a rank
     * left out by {@code excludeRanks} reports success with no sizes). A failure ends the job FAILED naming
     * the rank, keeping those rows; the last success aggregates the results. Repeated final reports from a rank,
     * partial ones after its final one, and reports on a job that already ended, are accepted and ignored.
     */
    void report(String jobId, RankReport report) {
        locked(() -> {
            JobRecord job = byId.get(jobId);
            if (job == null) {
                endedReport(store.find(group, jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId)), report);
                return null;
            }
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
            Violation figures = ValidationAggregator.problemWith(report, job.worldSize);
            if (figures != null) {
                throw JobProblems.badField(figures);
            }
            ValidationAggregator.take(job, report);
            if (report.isPartial()) {
                Violation problem = ResultAggregator.problemWithPrefix(report, job.sizesOf(report.rank()));
                if (problem != null) {
                    throw JobProblems.badField(problem);
                }
                measured(job, report);
                return null;
            }
            if (!report.succeeded()) {
                // What the failed rank measured before failing counts, when it is a usable prefix.
                if (ResultAggregator.problemWithPrefix(report, job.sizesOf(report.rank())) == null) {
                    measured(job, report);
                }
                job.reports.put(report.rank(), report);
                finish(job, JobState.FAILED, "rank " + report.rank() + " (instance " + report.instanceId()
                        + ") failed: " + (report.error() == null || report.error().isBlank() ? "no error given" : report.error()));
                return null;
            }
            Violation problem = ResultAggregator.problemWith(report, job.sizesOf(report.rank()));
            if (problem != null) {
                throw JobProblems.badField(problem);
            }
            job.reports.put(report.rank(), report);
            measured(job, report);
            if (job.reports.size() == job.worldSize) {
                complete(job);
            }
            settle();
            return null;
        });
    }

    private void measured(JobRecord job, RankReport report) {
        if (report.results() != null && job.measured(report.rank(), report.results())) {
            viewDirty = true;
        }
    }

    /**
     * A report on a job that ended and left memory (possibly under an earlier server, as INTERRUPTED): accepted and
     * ignored like any late report, so that a worker retrying its report stops; 409 when it cannot be this job's.
     */
    static void endedReport(Job saved, RankReport report) {
        if (saved.generation() == null || saved.generation().longValue() != report.generation().longValue()) {
            throw JobProblems.conflict("job " + saved.jobId() + " ended " + saved.state() + " "
                    + (saved.generation() == null ? "before any rank received it" : "in generation " + saved.generation())
                    + "; the report of rank " + report.rank() + " is for generation " + report.generation());
        }
    }

    private void complete(JobRecord job) {
        job.results = ResultAggregator.aggregate(job.spec.op(), job.keptRanks.size(), job.sizes, job.keptReports());
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
        generationFailed(generation, reason, List.of());
    }

    /** As {@link #generationFailed(long, String)}; {@code silentRanks}: those that timed out, if that was why. */
    void generationFailed(long generation, String reason, List<Integer> silentRanks) {
        // mutate, not locked: parked long-polls of the failed generation must wake and send their workers re-joining.
        mutate(() -> {
            if (generation >= newestFailedGeneration) {
                newestFailure = reason;
            }
            newestFailedGeneration = Math.max(newestFailedGeneration, generation);
            for (JobRecord job : bySeq.values()) {
                if (job.state == JobState.RUNNING && job.generation == generation) {
                    job.unresponsiveRanks = List.copyOf(silentRanks);
                    finish(job, JobState.FAILED, "generation " + generation + " failed: " + reason
                            + "; ranks " + job.missingReports() + " had not reported");
                }
            }
            settle();
            return null;
        });
    }

    /** Why the newest failed generation failed, for the answer to its waiting polls; null if none failed. */
    String newestFailure() {
        return locked(() -> newestFailure);
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
            newestFailure = null;
            settle();
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
            settle();
            return expired;
        });
    }

    /**
     * Whether the group was removed more than {@code retain} ago and holds nothing unstored, so that its memory
     * may go (its history stays in the store).
     */
    boolean removedLongerThan(Duration retain, long nowNanos) {
        return locked(() -> removedAtNanos != null && nowNanos - removedAtNanos >= retain.toNanos() && bySeq.isEmpty());
    }

    /**
     * Stores the final state of every ended job still in memory and forgets it; one whose write fails stays (and
     * is still served from memory) until a later call stores it. Returns how many remain unstored.
     */
    int settle() {
        return locked(() -> {
            int unsaved = 0;
            for (Iterator<JobRecord> it = bySeq.values().iterator(); it.hasNext(); ) {
                JobRecord job = it.next();
                if (!job.state.isFinal()) {
                    continue;
                }
                try {
                    store.saveFinal(job);
                    it.remove();
                    byId.remove(job.jobId);
                } catch (DataAccessException e) {
                    unsaved++;
                    log.warn("job {} of group '{}' ended {} but could not be stored yet (retried): {}", job.jobId,
                            group, job.state, e.getMessage());
                }
            }
            return unsaved;
        });
    }

    long count(JobState state) {
        return locked(() -> bySeq.values().stream().filter(j -> j.state == state).count());
    }

    private void finish(JobRecord job, JobState state, String reason) {
        job.state = state;
        job.failureReason = reason;
        job.finishedAt = clock.instant();
        if (job.spec.validates()) {
            metrics.validated(group, ValidationAggregator.view(job));
        }
        job.forgetMeasured();
        viewDirty = true;
        metrics.finished(state, Duration.ofNanos(System.nanoTime() - job.submittedNanos));
    }

    /** Runs {@code action} under the lock, then wakes the job watchers (outside the lock) if a job changed. */
    private <T> T locked(Supplier<T> action) {
        return underLock(action, false);
    }

    /** As {@link #locked}, and wakes the waiting workers too. */
    private <T> T mutate(Supplier<T> action) {
        return underLock(action, true);
    }

    private <T> T underLock(Supplier<T> action, boolean wakeWorkers) {
        CompletableFuture<Void> workers = null;
        CompletableFuture<Void> watchers = null;
        lock.lock();
        try {
            try {
                return action.get();
            } finally {
                if (wakeWorkers) {
                    workers = changed;
                    changed = new CompletableFuture<>();
                }
                if (viewDirty && lock.getHoldCount() == 1) {
                    watchers = viewChanged;
                    viewChanged = new CompletableFuture<>();
                    viewDirty = false;
                }
            }
        } finally {
            lock.unlock();
            if (workers != null) {
                workers.complete(null);
            }
            if (watchers != null) {
                watchers.complete(null);
            }
        }
    }
}
