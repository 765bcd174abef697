package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;

import java.time.Duration;
import java.util.Locale;

/**
 * The launcher's conversation with a rendezvous server about one group: wait until the group is complete, submit a
 * job, and follow it to a final state, reporting progress. Every wait is bounded by the session's deadline;
 * {@code aliveCheck} runs between polls so that a dead local child fails the run at once instead of at the deadline.
 */
public final class JobSession {

    static final Duration POLL = Duration.ofMillis(100);
    /** The longest one job long-poll waits on the server. */
    static final Duration WATCH = Duration.ofSeconds(1);

    private final AllsumClient client;
    private final String group;
    private final Runnable aliveCheck;
    private final Progress progress;

    public JobSession(AllsumClient client, String group, Runnable aliveCheck, Progress progress) {
        this.client = client;
        this.group = group;
        this.aliveCheck = aliveCheck;
        this.progress = progress;
    }

    /**
     * Waits for the group's current generation to be complete.
     *
     * @param groupMayBeNew true while local workers may not have created the group yet (404 means "not yet")
     */
    public GroupStatus awaitComplete(Deadline deadline, boolean groupMayBeNew) {
        GroupStatus last = null;
        long start = System.nanoTime();
        while (true) {
            aliveCheck.run();
            try {
                last = client.status(group);
                if (last.state() == GenerationState.COMPLETE) {
                    return last;
                }
                progress.status(String.format(Locale.ROOT, "waiting for ranks: %d of %d joined",
                        last.joinedRanks() == null ? 0 : last.joinedRanks().size(), last.worldSize()));
            } catch (AllsumClientException e) {
                if (!(e.status() == 404 && groupMayBeNew)) {
                    throw new LauncherException("cannot read group '" + group + "': " + oneLine(e), e);
                }
                progress.status("waiting for the first rank to join");
            }
            if (deadline.passed()) {
                throw new LauncherException("group '" + group + "' was not complete " + deadline.within()
                        + (last == null ? " (no rank joined)" : "; missing ranks " + last.missingRanks()
                        + (last.failureReason() == null ? "" : "; " + last.failureReason())));
            }
            if (progress.noteDue()) {
                long waited = Math.round((System.nanoTime() - start) / 1e9);
                progress.event(last == null
                        ? String.format(Locale.ROOT, "waiting for the first rank of group '%s', %d s", group, waited)
                        : String.format(Locale.ROOT, "waiting for ranks %s of group '%s' (generation %d), %d s",
                        last.missingRanks(), group, last.generation(), waited));
            }
            deadline.sleep(POLL);
        }
    }

    public Job submit(JobSpec spec) {
        try {
            return client.submitJob(group, spec);
        } catch (AllsumClientException e) {
            throw new LauncherException("the server refused the job: " + oneLine(e), e);
        }
    }

    /** Follows the job until it is final, printing a progress line per state change. */
    public Job follow(Job submitted, Deadline deadline) {
        return follow(submitted, deadline, j -> { });
    }

    /**
     * As {@link #follow(Job, Deadline)}; {@code onPoll} sees every answer, e.g. to print rows as they appear. Each
     * answer is a long-poll that ends when the job changes state or gains a row, or after {@link #WATCH}, so that
     * {@code aliveCheck} still runs that often.
     */
    public Job follow(Job submitted, Deadline deadline, java.util.function.Consumer<Job> onPoll) {
        Job job = submitted;
        var lastState = job.state();
        long start = System.nanoTime();
        progress.event("job " + job.jobId() + " submitted (" + job.state() + ")");
        while (!job.state().isFinal()) {
            try {
                aliveCheck.run();
            } catch (LauncherException e) {
                cancelQuietly(job);
                throw e;
            }
            if (deadline.passed()) {
                cancelQuietly(job);
                throw new LauncherException("job " + job.jobId() + " did not finish " + deadline.within() + " (state "
                        + job.state() + ", reported ranks " + job.reportedRanks() + ")");
            }
            Job seen = job;
            long asked = System.nanoTime();
            try {
                job = client.awaitJob(group, job.jobId(), job.state(), rows(job), deadline.remainingAtMost(WATCH));
            } catch (AllsumClientException e) {
                throw new LauncherException("lost job " + submitted.jobId() + ": " + oneLine(e), e);
            }
            onPoll.accept(job);
            if (job.state() != lastState) {
                progress.event("job " + job.jobId() + " " + describe(job) + String.format(Locale.ROOT, " (%.1f s)",
                        progress.elapsedSeconds()));
                lastState = job.state();
            }
            progress.status("job " + job.jobId() + " " + job.state() + (rows(job) > 0 ? ", " + rows(job) + " sizes done" : ""));
            if (progress.noteDue()) {
                progress.event(String.format(Locale.ROOT, "waiting for job %s (%s), %d s", job.jobId(),
                        whereItIs(job), Math.round((System.nanoTime() - start) / 1e9)));
            }
            if (job.state() == seen.state() && rows(job) == rows(seen)
                    && System.nanoTime() - asked < POLL.toNanos()) {
                // An answer at once that changed nothing (a wait cut short by the deadline): do not spin.
                deadline.sleep(POLL);
            }
        }
        progress.done();
        return job;
    }

    /** What a job that is not final has done: its state, a validation's phase, sizes measured, ranks finished. */
    static String whereItIs(Job job) {
        StringBuilder out = new StringBuilder(job.state().toString());
        if (job.validation() != null && job.validation().phase() != null) {
            out.append(", phase ").append(job.validation().phase());
        }
        if (job.state() == JobState.RUNNING) {
            out.append(", ").append(rows(job)).append(rows(job) == 1 ? " size" : " sizes").append(" measured, ")
                    .append(job.reportedRanks() == null || job.reportedRanks().isEmpty() ? "no rank finished yet"
                            : "finished: ranks " + job.reportedRanks());
        }
        return out.toString();
    }

    static int rows(Job job) {
        return job.results() == null ? 0 : job.results().size();
    }

    private static String describe(Job job) {
        return switch (job.state()) {
            case RUNNING -> "running: every rank has it";
            default -> job.state().toString();
        };
    }

    private void cancelQuietly(Job job) {
        try {
            client.cancelJob(group, job.jobId());
        } catch (RuntimeException e) {
            // Best effort: the run is failing already and the error being raised says why.
        }
    }

    /** The problem's detail, or the message, on one line. */
    static String oneLine(AllsumClientException e) {
        String text = e.status() == 0 ? e.detail() : e.getMessage();
        if (text == null) {
            text = e.getClass().getSimpleName();
        }
        return text.replaceAll("\\s+", " ").strip();
    }
}
