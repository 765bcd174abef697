package io.allsum.worker.agent;

/** How the agent ends the process when it gives up (a separate seam so that tests can observe it). */
@FunctionalInterface
public interface AgentExit {

    /** Ends the process with {@code exitCode}; must not block the calling (agent) thread. */
    void exit(int exitCode);
}
