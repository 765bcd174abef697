package io.allsum.server.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.allsum.model.jobs.JobState;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The server's job meters: {@code allsum.jobs} (counter; {@code state} = submitted, or the final state a job
 * reached), {@code allsum.jobs.dispatch} (timer: submission until the last rank of the world received the job),
 * {@code allsum.jobs.duration} (timer: submission until the final state, by that {@code state}) and
 * {@code allsum.jobs.active} (gauge of queued and running jobs, by {@code state}). Tags come from bounded sets only.
 */
final class JobMetrics {

    static final String JOBS = "allsum.jobs";
    static final String DISPATCH = "allsum.jobs.dispatch";
    static final String ACTIVE = "allsum.jobs.active";
    static final String DURATION = "allsum.jobs.duration";

    private final Counter submitted;
    private final Map<JobState, Counter> finished = new EnumMap<>(JobState.class);
    private final Timer dispatch;
    private final Meter.MeterProvider<Timer> durations;

    JobMetrics(MeterRegistry registry, ToDoubleFunction<JobState> activeJobs) {
        submitted = Counter.builder(JOBS).description("Jobs submitted, and jobs that reached a final state")
                .tag("state", "submitted").register(registry);
        for (JobState state : JobState.values()) {
            if (state.isFinal()) {
                finished.put(state, Counter.builder(JOBS).description("Jobs submitted, and jobs that reached a final state")
                        .tag("state", state.wireName()).register(registry));
            }
        }
        dispatch = Timer.builder(DISPATCH)
                .description("Time from a job's submission until the last rank of its generation received it")
                .publishPercentileHistogram()
                .register(registry);
        durations = Timer.builder(DURATION)
                .description("Time from a job's submission until it reached its final state, by that state")
                .publishPercentileHistogram()
                .withRegistry(registry);
        for (JobState state : finished.keySet()) {
            durations.withTag("state", state.wireName()); // a zero series per state before the first job ends
        }
        for (JobState state : new JobState[]{JobState.QUEUED, JobState.RUNNING}) {
            Gauge.builder(ACTIVE, () -> activeJobs.applyAsDouble(state))
                    .description("Jobs queued or running, over every group")
                    .tag("state", state.wireName())
                    .register(registry);
        }
    }

    void submitted() {
        submitted.increment();
    }

    void finished(JobState state) {
        finished.get(state).increment();
    }

    /** A job that reached {@code state} this long after its submission. */
    void finished(JobState state, Duration sinceSubmission) {
        finished(state);
        durations.withTag("state", state.wireName()).record(sinceSubmission);
    }

    /** Jobs that ended without a timing (those a restart found unfinished): counted, not timed. */
    void finished(JobState state, int count) {
        finished.get(state).increment(count);
    }

    void dispatched(Duration latency) {
        dispatch.record(latency);
    }
}
