package io.allsum.worker.agent;

/**
 * The worker agent's states. JOINING (rendezvous, then communicator set-up) -> READY (heartbeats, jobs) ->
 * RECOVERING (the generation broke: abort, back off, re-join) -> JOINING ... until STOPPED (graceful shutdown) or
 * FAILED (rejected by the server or out of restarts; the process exits non-zero).
 */
public enum AgentState {
    STARTING, JOINING, READY, RECOVERING, STOPPED, FAILED
}
