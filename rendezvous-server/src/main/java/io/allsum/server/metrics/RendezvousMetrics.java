package io.allsum.server.metrics;

import io.allsum.server.rendezvous.FailureCause;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The rendezvous meters. Tags come only from bounded enums; group names, instance ids and the unique id never
 * become tags.
 */
@Component
public class RendezvousMetrics {

    private final MeterRegistry registry;
    private final Map<JoinOutcome, Counter> joins = new EnumMap<>(JoinOutcome.class);
    private final Map<FailureCause, Counter> failedGenerations = new EnumMap<>(FailureCause.class);
    private final Timer completion;
    private final Timer delivery;

    public RendezvousMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (JoinOutcome outcome : JoinOutcome.values()) {
            joins.put(outcome, Counter.builder("allsum.rendezvous.joins")
                    .description("Join requests answered, by outcome")
                    .tag("outcome", outcome.tag())
                    .register(registry));
        }
        for (FailureCause cause : FailureCause.values()) {
            failedGenerations.put(cause, Counter.builder("allsum.rendezvous.generations.failed")
                    .description("Generations that failed, by cause")
                    .tag("cause", cause.tag())
                    .register(registry));
        }
        completion = Timer.builder("allsum.rendezvous.completion")
                .description("Time from a generation's first join until its last rank joined")
                .publishPercentileHistogram()
                .register(registry);
        delivery = Timer.builder("allsum.rendezvous.delivery")
                .description("Time from a generation's completion until the last waiting rank was answered")
                .publishPercentileHistogram()
                .register(registry);
    }

    /** Registers the two gauges; called once by the component that owns the numbers. */
    public void watch(Supplier<Number> activeGroups, Supplier<Number> waitingJoins) {
        Gauge.builder("allsum.rendezvous.groups.active", activeGroups)
                .description("Groups held by the server")
                .register(registry);
        Gauge.builder("allsum.rendezvous.joins.waiting", waitingJoins)
                .description("Join requests parked until their generation completes")
                .register(registry);
    }

    public void joinAnswered(JoinOutcome outcome) {
        joins.get(outcome).increment();
    }

    public void generationCompleted(Duration sinceFirstJoin) {
        completion.record(sinceFirstJoin);
    }

    public void generationDelivered(Duration sinceCompletion) {
        delivery.record(sinceCompletion);
    }

    public void generationFailed(FailureCause cause) {
        failedGenerations.get(cause).increment();
    }
}
