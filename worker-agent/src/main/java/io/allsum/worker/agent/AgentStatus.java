package io.allsum.worker.agent;

import io.allsum.model.Backend;

/** What the agent is doing now, for health and logs. {@code generation} is 0 before the first one completes. */
public record AgentStatus(AgentState state, String group, long generation, int rank, int worldSize, Backend backend,
                          int restarts, String lastFailure) {
}
