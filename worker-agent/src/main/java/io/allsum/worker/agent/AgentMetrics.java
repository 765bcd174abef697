package io.allsum.worker.agent;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/** The agent's state as gauges: which generation it serves, whether it is ready, how many restarts in a row. */
public class AgentMetrics implements MeterBinder {

    private final WorkerAgent agent;

    public AgentMetrics(WorkerAgent agent) {
        this.agent = agent;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("allsum.worker.generation", agent, a -> a.status().generation())
                .description("The group generation this worker last completed").register(registry);
        Gauge.builder("allsum.worker.ready", agent, a -> a.status().state() == AgentState.READY ? 1 : 0)
                .description("1 while the communicator is ready, else 0").register(registry);
        Gauge.builder("allsum.worker.restarts", agent, a -> a.status().restarts())
                .description("Consecutive failed generations or joins since the last success").register(registry);
    }
}
