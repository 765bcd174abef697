package io.allsum.server.rendezvous;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * The rendezvous meters, declared here once. Tags come only from bounded enums, through Micrometer's
 * {@link Meter.MeterProvider}s; group names, instance ids and the unique id never become tags. Every tag value is
 * registered up front, so that a scrape shows zeros rather than missing series.
 */
@Component
public class RendezvousMeters {

    private final Meter.MeterProvider<Counter> joins;
    private final Meter.MeterProvider<Counter> failedGenerations;
    private final Timer completion;
    private final Timer delivery;

    public RendezvousMeters(MeterRegistry registry) {
        joins = Counter.builder("allsum.rendezvous.joins")
                .description("Join requests answered, by outcome")
                .withRegistry(registry);
        failedGenerations = Counter.builder("allsum.rendezvous.generations.failed")
                .description("Generations that failed, by cause")
                .withRegistry(registry);
        for (JoinMeterOutcome outcome : JoinMeterOutcome.values()) {
            joins.withTag("outcome", outcome.tag());
        }
        for (FailureCause cause : FailureCause.values()) {
            failedGenerations.withTag("cause", cause.tag());
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

    /** Counted by {@link JoinHandler} only, once per join request. */
    public void joinAnswered(JoinMeterOutcome outcome) {
        joins.withTag("outcome", outcome.tag()).increment();
    }

    void generationCompleted(Duration sinceFirstJoin) {
        completion.record(sinceFirstJoin);
    }

    void generationDelivered(Duration sinceCompletion) {
        delivery.record(sinceCompletion);
    }

    void generationFailed(FailureCause cause) {
        failedGenerations.withTag("cause", cause.tag()).increment();
    }

    /** The two gauges, read from the registry at scrape time. */
    @Component
    static class Gauges implements MeterBinder {

        private final RendezvousRegistry registry;

        Gauges(RendezvousRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void bindTo(MeterRegistry meters) {
            Gauge.builder("allsum.rendezvous.groups.active", registry, RendezvousRegistry::groupCount)
                    .description("Groups held by the server")
                    .register(meters);
            Gauge.builder("allsum.rendezvous.joins.waiting", registry, RendezvousRegistry::waitingJoins)
                    .description("Join requests parked until their generation completes")
                    .register(meters);
        }
    }
}
