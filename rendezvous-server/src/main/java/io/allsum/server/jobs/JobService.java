package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.server.rendezvous.GroupDirectory;
import io.allsum.server.rendezvous.GroupDirectory.CurrentGeneration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.DisposableBean;
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

/**
 * Sequences the jobs of every group: submission, the workers' long-poll for the next job, their reports, and the
 * endings forced by the rendezvous (a failed generation, a removed group) or by a job's deadline.
 * <p>
 * A waiting long-poll holds no thread: it is a future re-examined on a virtual thread whenever its group's
 * "changed" signal fires, and answered empty when its wait runs out.
 */
@Service
public class JobService implements DisposableBean {

    private final GroupDirectory directory;
    private final JobsProperties properties;
    private final JobSpecValidator validator;
    private final JobMetrics metrics;
    private final Clock clock = Clock.systemUTC();
    private final ConcurrentMap<String, GroupJobs> groups = new ConcurrentHashMap<>();
    private final ExecutorService wakeups = Executors.newVirtualThreadPerTaskExecutor();

    public JobService(GroupDirectory directory, JobsProperties properties, MeterRegistry registry) {
        this.directory = directory;
        this.properties = properties;
        this.validator = new JobSpecValidator(properties);
        this.metrics = new JobMetrics(registry, this::activeJobs);
    }

    public Job submit(String group, JobSpec spec) {
        CurrentGeneration current = directory.current(group).orElseThrow(() -> JobProblems.unknownGroup(group));
        JobSpec valid = validator.validate(spec, current.worldSize(), current.backend());
        return jobsOf(group).submit(valid, properties.history());
    }

    /** Every job kept for the group, oldest (lowest seq) first. */
    public List<Job> list(String group) {
        Optional<GroupJobs> jobs = existing(group);
        if (jobs.isEmpty() && directory.current(group).isEmpty()) {
            throw JobProblems.unknownGroup(group);
        }
        return jobs.map(GroupJobs::list).orElseGet(List::of);
    }

    public Job get(String group, String jobId) {
        return existing(group).flatMap(g -> g.get(jobId)).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
    }

    public Job cancel(String group, String jobId) {
        return existing(group).orElseThrow(() -> JobProblems.unknownJob(group, jobId)).cancel(jobId);
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
        GroupJobs jobs = existing(group).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
        jobs.get(jobId).orElseThrow(() -> JobProblems.unknownJob(group, jobId));
        requireMember(group, report.rank(), report.instanceId());
        jobs.report(jobId, report);
    }

    /**
     * The worker's long-poll: completes with the next job after {@code after} as soon as there is one in the group's
     * current complete generation, or empty once {@code wait} ran out. Errors known at once are thrown; later ones
     * (the group removed, the worker no longer a member) complete the future exceptionally.
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
        Duration effectiveWait = wait == null ? properties.defaultWait() : wait;
        if (effectiveWait.isNegative()) {
            throw JobProblems.badField("wait", "must be >= 0 seconds, was " + effectiveWait.toSeconds());
        }
        if (effectiveWait.compareTo(properties.maxWait()) > 0) {
            effectiveWait = properties.maxWait();
        }
        Poll poll = new Poll(group, rank, instanceId, after, System.nanoTime() + effectiveWait.toNanos());
        Attempt first = attempt(poll);
        if (first.assignment() != null) {
            return CompletableFuture.completedFuture(Optional.of(first.assignment()));
        }
        poll.timeout.completeOnTimeout(null, effectiveWait.toNanos(), TimeUnit.NANOSECONDS);
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
        GroupJobs jobs = jobsOf(poll.group);
        CompletableFuture<Void> signal = jobs.changeSignal();
        // Re-read after taking the signal: a generation that completed in between has fired it already.
        current = directory.current(poll.group).orElse(current);
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

    private void requireMember(String group, int rank, String instanceId) {
        if (!directory.isMember(group, rank, instanceId)) {
            throw JobProblems.conflict("rank " + rank + " with instanceId '" + instanceId
                    + "' is not a member of the current generation of group '" + group + "'; join it first");
        }
    }

    @EventListener
    public void onGenerationCompleted(GroupDirectory.GenerationCompleted event) {
        groups.compute(event.group(), (name, jobs) -> {
            GroupJobs live = jobs != null ? jobs : newGroupJobs(name);
            live.generationCompleted();
            return live;
        });
    }

    @EventListener
    public void onGenerationFailed(GroupDirectory.GenerationFailed event) {
        existing(event.group()).ifPresent(jobs -> jobs.generationFailed(event.generation(), event.reason()));
    }

    @EventListener
    public void onGroupRemoved(GroupDirectory.GroupRemoved event) {
        existing(event.group()).ifPresent(jobs -> jobs.groupRemoved(event.reason()));
    }

    /** Called by {@link JobDeadlineSweeper}: fails overdue jobs and forgets groups removed long enough ago. */
    void sweep() {
        long now = System.nanoTime();
        for (String name : groups.keySet()) {
            groups.computeIfPresent(name, (n, jobs) -> {
                jobs.expireOverdue(now);
                return jobs.removedLongerThan(properties.retainRemovedGroups(), now) ? null : jobs;
            });
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
        return new GroupJobs(group, metrics, clock);
    }

    @Override
    public void destroy() {
        wakeups.shutdownNow();
    }
}
