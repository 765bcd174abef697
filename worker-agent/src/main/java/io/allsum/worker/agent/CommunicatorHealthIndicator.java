package io.allsum.worker.agent;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health "communicator": UP only while the agent is READY (its generation complete, its communicator built), so
 * that the readiness group sends no work to a worker that is joining or recovering.
 */
public class CommunicatorHealthIndicator implements HealthIndicator {

    private final WorkerAgent agent;

    public CommunicatorHealthIndicator(WorkerAgent agent) {
        this.agent = agent;
    }

    @Override
    public Health health() {
        AgentStatus s = agent.status();
        Health.Builder builder = s.state() == AgentState.READY ? Health.up() : Health.outOfService();
        builder.withDetail("state", s.state())
                .withDetail("group", s.group())
                .withDetail("generation", s.generation())
                .withDetail("rank", s.rank())
                .withDetail("worldSize", s.worldSize())
                .withDetail("backend", s.backend())
                .withDetail("restarts", s.restarts());
        if (s.lastFailure() != null) {
            builder.withDetail("lastFailure", s.lastFailure());
        }
        return builder.build();
    }
}
