package io.allsum.server.jobs;

import io.allsum.model.Protocol;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.rendezvous.GroupDirectory;
import io.allsum.server.rendezvous.GroupDirectory.CurrentGeneration;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Service;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sequences the jobs of every group: submission, the workers' long-poll for the next job, their reports, and the
 * endings forced by the rendezvous (a failed generation, a removed group) or by a job's deadline.
 * <p>
 * A waiting long-poll holds no thread: it is a future re-examined on a virtual thread whenever its group's
 * "changed" signal fires, and answered empty when its wait runs out.
 * <p>
 * Jobs live in the {@link JobStore} (the history, read by GET) and, while queued or running, in memory. At
 * startup, jobs that the previous server left queued or running are marked INTERRUPTED: nothing of theirs survives
 * a restart but the record.
 */
@Service
public class JobService implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(JobService.class);

    private final GroupDirectory directory;
    private final JobsProperties properties;
    private final JobSpecValidator validator;
    private final JobMetrics metrics;
    private final JobStore store;
    private final StartupGrace startupGrace;
    private final Clock clock = Clock.systemUTC();
    private final ConcurrentMap<String, GroupJobs> groups = new ConcurrentHashMap<>();
    private final ExecutorService wakeups = Executors.newVirtualThreadPerTaskExecutor();

    JobService(GroupDirectory directory, JobsProperties properties, MeterRegistry registry, JobStore store,
               StartupGrace startupGrace) {
        this.directory = directory;
        this.properties = properties;
        this.validator = new JobSpecValidator(properties);
        this.metrics = new JobMetrics(registry, this::activeJobs);
        this.store = store;
        this.startupGrace = startupGrace;
        int interrupted = store.interruptUnfinished(clock.instant());
        if (interrupted > 0) {
            log.warn("{} jobs were queued or running when the previous server stopped; marked {}", interrupted,
                    JobState.INTERRUPTED);
            metrics.finished(JobState.INTERRUPTED, interrupted);
        }
    }

    public Job submit(String group, JobSpec spec) {
        CurrentGeneration current = directory.current(group).orElseThrow(() -> existing(group).isPresent()
                ? JobProblems.unknownGroup(group) : startupGrace.unknownGroup(group));
        JobSpec valid = validator.validate(spec, current.worldSize(), current.backend());
        return stored(() -> jobsOf(group).submit(valid, properties.history()));
    }

    /** Every job kept for the group, oldest (lowest seq) first, including those of earlier servers. */
    public List<Job> list(String group) {
        return stored(() -> {
            Optional<GroupJobs> jobs = existing(group);
            if (jobs.isPresent()) {
                return jobs.get().list();
            }
            if (directory.current(group).isEmpty() && !store.knows(group)) {
                throw JobProblems.unknownGroup(group);
            }
            return store.list(group);
        });
    }

    /** Names of the groups that have a job history (live or not), for the dashboard's list. */
    public List<String> groupsWithHistory() {
        return stored(store::groupNames);
    }

    public Job get(String group, String jobId) {
        return stored(() -> existing(group).map(g -> g.get(jobId)).orElseGet(() -> store.find(group, jobId)))
                .orElseThrow(() -> JobProblems.unknownJob(group, jobId));
    }

    /**
     * The job long-poll ({@code GET job?wait=N&state=S&rows=K}): completes with the job as soon as its state differs
     * from {@code state} or it has more than {@code rows} rows, or as it stands once {@code wait} ran out. A null
     * {@code state} or {@code rows} means the job's own at the first look; a job that left memory answers at once.
     */
    public CompletableFuture<Job> watch(String group, String jobId, Duration wait, JobState state, Integer rows) {
        if (rows != null && rows < 0) {
            throw JobProblems.badField(Protocol.ROWS_PARAM, "must be the rows already seen (>= 0), was " + rows);
        }
        GroupJobs.Watched first = watched(group, jobId);
        JobState seenState = state != null ? state : first.job().state();
        int seenRows = rows != null ? rows : rowsOf(first.job());
        CompletableFuture<Job> result = new CompletableFuture<>();
        CompletableFuture<Void> timeout = new CompletableFuture<>();
        timeout.completeOnTimeout(null, wait.toNanos(), TimeUnit.NANOSECONDS);
        result.whenComplete((r, e) -> timeout.complete(null));
        awaitChange(group, jobId, seenState, seenRows, first, timeout, result);
        return result;
    }

    private void awaitChange(String group, String jobId, JobState seenState, int seenRows, GroupJobs.Watched now,
                             CompletableFuture<Void> timeout, CompletableFuture<Job> result) {
        if (now.signal() == null || timeout.isDone() || now.job().state() != seenState
                || rowsOf(now.job()) > seenRows) {
            result.complete(now.job());
            return;
        }
        CompletableFuture.anyOf(now.signal(), timeout).thenRunAsync(() -> {
            if (result.isDone()) {
                return;
            }
            try {
                awaitChange(group, jobId, seenState, seenRows, watched(group, jobId), timeout, result);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, wakeups);
    }

    /** The job and the signal of its next change; a null signal when it ended and left memory (it changes no more). */
    private GroupJobs.Watched watched(String group, String jobId) {
        return stored(() -> existing(group).flatMap(g -> g.watch(jobId))
                .orElseGet(() -> new GroupJobs.Watched(get(group, jobId), null)));
    }

    private static int rowsOf(Job job) {
        return job.results() == null ? 0 : job.results().size();
    }

    public Job cancel(String group, String jobId) {
        return stored(() -> {
            Optional<GroupJobs> jobs = existing(group);
            if (jobs.isPresent()) {
                return jobs.get().cancel(jobId);
            }
            Job saved = store.find(group, jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
            throw JobProblems.conflict("job " + jobId + " already ended: " + saved.state()
                    + (saved.failureReason() != null ? " (" + saved.failureReason() + ")" : ""));
        });
    }

    public void report(String group, String jobId, RankReport report) {
        if (report == null) {
            throw JobProblems.badField("body", "a rank report (JSON object) is required");
        }
        if (report.rank() == null || report.rank() < 0) {
            throw JobProblems.badField("rank", "must be a rank >= 0, was " + report.rank());
        }
        if (report.instanceId() == null || report.instanceId().isBlank()) {
            throw JobProblems.badField("instanceId", "is required");
        }
        if (report.generation() == null) {
            throw JobProblems.badField("generation", "is required");
        }
        if (report.succeeded() == null) {
            throw JobProblems.badField("succeeded", "is required (true, or false with an error)");
        }
        stored(() -> {
            Optional<GroupJobs> jobs = existing(group);
            if (jobs.isEmpty()) {
                // No queue in memory: every stored job of the group ended (a restart interrupts the rest).
                GroupJobs.endedReport(store.find(group, jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId)),
                        report);
                return null;
            }
            Job known = jobs.get().get(jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
            // A report on an ended job changes nothing and is taken from anyone, so that a worker retrying the
            // report of a job interrupted by a restart (it is no member of anything yet) stops retrying.
            if (!known.state().isFinal()) {
                requireMember(group, report.rank(), report.instanceId());
            }
            jobs.get().report(jobId, report);
            return null;
        });
    }

    /**
     * The worker's long-poll: completes with the next job after {@code after} as soon as there is one in the group's
     * current complete generation, or empty once {@code wait} (resolved by {@code LongPollWait}) ran out. Errors
     * known at once are thrown; later ones (the group removed, the worker no longer a member) complete the future
     * exceptionally.
     */
    public CompletableFuture<Optional<JobAssignment>> next(String group, int rank, String instanceId, long after,
                                                           Duration wait) {
        if (rank < 0) {
            throw JobProblems.badField("rank", "must be >= 0, was " + rank);
        }
        if (instanceId == null || instanceId.isBlank()) {
            throw JobProblems.badField("instanceId", "is required");
        }
        if (after < 0) {
            throw JobProblems.badField("after", "must be the last seq received, or 0 for none; was " + after);
        }
        Poll poll = new Poll(group, rank, instanceId, after, System.nanoTime() + wait.toNanos());
        Attempt first = attempt(poll);
        if (first.assignment() != null) {
            return CompletableFuture.completedFuture(Optional.of(first.assignment()));
        }
        poll.timeout.completeOnTimeout(null, wait.toNanos(), TimeUnit.NANOSECONDS);
        // A client that went away stops the poll, so that no job is handed to nobody.
        poll.result.whenComplete((r, e) -> poll.timeout.complete(null));
        armOrExpire(poll, first.signal());
        return poll.result;
    }

    private record Attempt(JobAssignment assignment, CompletableFuture<Void> signal) {
    }

    private static final class Poll {
        final String group;
        final int rank;
        final String instanceId;
        final long after;
        final long deadlineNanos;
        final CompletableFuture<Optional<JobAssignment>> result = new CompletableFuture<>();
        final CompletableFuture<Void> timeout = new CompletableFuture<>();

        Poll(String group, int rank, String instanceId, long after, long deadlineNanos) {
            this.group = group;
            this.rank = rank;
            this.instanceId = instanceId;
            this.after = after;
            this.deadlineNanos = deadlineNanos;
        }
    }

    private Attempt attempt(Poll poll) {
        CurrentGeneration current = directory.current(poll.group).orElseThrow(() -> JobProblems.unknownGroup(poll.group));
        GroupJobs jobs = stored(() -> jobsOf(poll.group));
        CompletableFuture<Void> signal = jobs.changeSignal();
        // Re-read after taking the signal: a generation that completed in between has fired it already.
        current = directory.current(poll.group).orElse(current);
        if (current.state() == GenerationState.FAILED
                || (current.state() != GenerationState.COMPLETE && !directory.isMember(poll.group, poll.rank, poll.instanceId))) {
            // The poller's generation is over: answer at once (409), so that it re-joins now rather than when its
            // heartbeat notices.
            throw generationOver(current, jobs.newestFailure());
        }
        if (current.state() != GenerationState.COMPLETE) {
            return new Attempt(null, signal);
        }
        requireMember(poll.group, poll.rank, poll.instanceId);
        return new Attempt(jobs.assign(poll.rank, poll.after, current.generation(), current.worldSize()), signal);
    }

    private void armOrExpire(Poll poll, CompletableFuture<Void> signal) {
        if (poll.result.isDone()) {
            return;
        }
        if (poll.timeout.isDone() || System.nanoTime() - poll.deadlineNanos >= 0) {
            poll.result.complete(Optional.empty());
            return;
        }
        CompletableFuture.anyOf(signal, poll.timeout).thenRunAsync(() -> retry(poll), wakeups);
    }

    private void retry(Poll poll) {
        if (poll.result.isDone()) {
            return;
        }
        try {
            Attempt attempt = attempt(poll);
            if (attempt.assignment() != null) {
                // Should the client have left meanwhile, the job stays RUNNING and is handed again on its next poll.
                poll.result.complete(Optional.of(attempt.assignment()));
                return;
            }
            armOrExpire(poll, attempt.signal());
        } catch (RuntimeException e) {
            poll.result.completeExceptionally(e);
        }
    }

    private static ProblemException generationOver(CurrentGeneration current, String failure) {
        if (current.state() == GenerationState.FAILED) {
            return JobProblems.generationFailed(failure != null ? failure + "; join again to receive jobs"
                    : "generation " + current.generation() + " of group '" + current.group()
                    + "' failed; join again to receive jobs");
        }
        return JobProblems.notAMember("the generation this rank served is over: group '" + current.group()
                + "' is forming generation " + current.generation() + "; join it to receive jobs");
    }

    private void requireMember(String group, int rank, String instanceId) {
        if (!directory.isMember(group, rank, instanceId)) {
            throw JobProblems.notAMember("rank " + rank + " with instanceId '" + instanceId
                    + "' is not a member of the current generation of group '" + group + "'; join it first");
        }
    }

    /**
     * A group that formed again is no longer removed. A group without a job queue yet gets none here: the queue (and
     * its one database read) is made by the first submission or poll, never on the path of the last rank's join.
     */
    @EventListener
    public void onGenerationCompleted(GroupDirectory.GenerationCompleted event) {
        existing(event.group()).ifPresent(GroupJobs::generationCompleted);
    }

    @EventListener
    public void onGenerationFailed(GroupDirectory.GenerationFailed event) {
        existing(event.group()).ifPresent(jobs -> jobs.generationFailed(event.generation(), event.reason(),
                event.silentRanks()));
    }

    @EventListener
    public void onGroupRemoved(GroupDirectory.GroupRemoved event) {
        existing(event.group()).ifPresent(jobs -> jobs.groupRemoved(event.reason()));
    }

    /**
     * Called by {@link JobDeadlineSweeper}: fails overdue jobs, stores ended jobs whose write failed, and forgets
     * (in memory only) groups removed long enough ago.
     */
    void sweep() {
        long now = System.nanoTime();
        for (String name : groups.keySet()) {
            groups.computeIfPresent(name, (n, jobs) -> {
                jobs.expireOverdue(now);
                jobs.settle();
                return jobs.removedLongerThan(properties.retainRemovedGroups(), now) ? null : jobs;
            });
        }
    }

    /**
     * Called by {@link JobDeadlineSweeper} every {@code cleanup-interval}: deletes ended jobs older than
     * {@code max-age}, and the oldest ended jobs of any group holding more than {@code history}. Returns how many.
     */
    int cleanUp() {
        int deleted = store.deleteFinishedBefore(clock.instant().minus(properties.maxAge()));
        for (String group : store.groupsOver(properties.history())) {
            deleted += store.trim(group, properties.history());
        }
        if (deleted > 0) {
            log.info("job history retention deleted {} ended jobs (max-age {}, history {} per group)", deleted,
                    properties.maxAge(), properties.history());
        }
        return deleted;
    }

    /** Runs a store access, turning a database failure into a 503 problem with Retry-After. */
    private <T> T stored(Supplier<T> access) {
        try {
            return access.get();
        } catch (DataAccessException e) {
            log.warn("job history database: {}", e.getMessage());
            throw JobProblems.storeUnavailable(e);
        }
    }

    private double activeJobs(JobState state) {
        return groups.values().stream().mapToLong(jobs -> jobs.count(state)).sum();
    }

    private Optional<GroupJobs> existing(String group) {
        return Optional.ofNullable(groups.get(group));
    }

    private GroupJobs jobsOf(String group) {
        return groups.computeIfAbsent(group, this::newGroupJobs);
    }

    private GroupJobs newGroupJobs(String group) {
        return new GroupJobs(group, store, metrics, clock);
    }

    @Override
    public void destroy() {
        wakeups.shutdownNow();
    }
}
