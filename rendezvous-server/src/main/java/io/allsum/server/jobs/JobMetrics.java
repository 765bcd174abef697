package io.allsum.server.jobs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.allsum.model.jobs.JobState;
import io.allsum.model.validate.ValidationResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The server's job meters: {@code allsum.jobs} (counter; {@code state} = submitted, or the final state a job
 * reached), {@code allsum.jobs.dispatch} (timer: submission until the last rank of the world received the job),
 * {@code allsum.jobs.duration} (timer: submission until the final state, by that {@code state}) and
 * {@code allsum.jobs.active} (gauge of queued and running jobs, by {@code state}); of each group's latest validation,
 * {@code allsum.validation.suspects} and, up to {@link #MAX_VALIDATION_RANKS} ranks, its pairs' GB/s and each rank's
 * waits caused ({@code allsum.validation.pair.gbps}, {@code allsum.validation.rank.stall.seconds}). Tags come from
 * bounded sets only: states, the {@link #MAX_VALIDATION_GROUPS} groups validated last, ranks below that bound.
 */
final class JobMetrics {

    static final String JOBS = "allsum.jobs";
    static final String DISPATCH = "allsum.jobs.dispatch";
    static final String ACTIVE = "allsum.jobs.active";
    static final String DURATION = "allsum.jobs.duration";
    static final String VALIDATION_SUSPECTS = "allsum.validation.suspects";
    static final String VALIDATION_PAIR = "allsum.validation.pair.gbps";
    static final String VALIDATION_STALL = "allsum.validation.rank.stall.seconds";
    /** 64 ranks make 2,016 pair series per group: a heatmap's worth; larger groups export their suspects only. */
    static final int MAX_VALIDATION_RANKS = 64;
    static final int MAX_VALIDATION_GROUPS = 8;

    private final Counter submitted;
    private final Map<JobState, Counter> finished = new EnumMap<>(JobState.class);
    private final Timer dispatch;
    private final Meter.MeterProvider<Timer> durations;
    /** The groups validated last, the oldest first. */
    private final Map<String, ValidationResult> latestValidation = new LinkedHashMap<>();
    private final MultiGauge validationSuspects;
    private final MultiGauge validationPairs;
    private final MultiGauge validationStalls;

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
        validationSuspects = MultiGauge.builder(VALIDATION_SUSPECTS)
                .description("Suspects named by the group's latest validation (0: healthy)").register(registry);
        // no base unit: Prometheus would append it to the name, which says GB/s already
        validationPairs = MultiGauge.builder(VALIDATION_PAIR)
                .description("Each pair's bandwidth in GB/s in the group's latest validation (the slower side)")
                .register(registry);
        validationStalls = MultiGauge.builder(VALIDATION_STALL).baseUnit("seconds")
                .description("What the others waited for each rank at the lock-step barriers of the latest validation")
                .register(registry);
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

    /** A validation of {@code group} that ended with a verdict: its figures replace the group's earlier ones. */
    synchronized void validated(String group, ValidationResult result) {
        if (result == null || result.suspects() == null) {
            return;
        }
        latestValidation.remove(group);
        latestValidation.put(group, result);
        if (latestValidation.size() > MAX_VALIDATION_GROUPS) {
            latestValidation.remove(latestValidation.keySet().iterator().next());
        }
        // MultiGauge rows replace every earlier row of the meter: all groups are written again
        List<MultiGauge.Row<?>> suspects = new ArrayList<>();
        List<MultiGauge.Row<?>> pairs = new ArrayList<>();
        List<MultiGauge.Row<?>> stalls = new ArrayList<>();
        latestValidation.forEach((g, v) -> {
            suspects.add(MultiGauge.Row.of(Tags.of("group", g), v.suspects().size()));
            if (v.ranks().size() <= MAX_VALIDATION_RANKS) {
                v.pairs().forEach(p -> pairs.add(MultiGauge.Row.of(Tags.of("group", g, "low", Integer.toString(p.low()),
                        "high", Integer.toString(p.high())), p.gbps())));
                if (v.waits() != null) {
                    v.waits().forEach(w -> stalls.add(MultiGauge.Row.of(Tags.of("group", g, "rank",
                            Integer.toString(w.rank())), w.causedSeconds())));
                }
            }
        });
        validationSuspects.register(suspects, true);
        validationPairs.register(pairs, true);
        validationStalls.register(stalls, true);
    }

    void dispatched(Duration latency) {
        dispatch.record(latency);
    }
}
