package io.allsum.model.rendezvous;

/**
 * Answer to a heartbeat: the group's current generation and its state. A worker whose generation is not
 * {@code generation}, or whose generation is FAILED, aborts its communicator and re-joins.
 */
public record HeartbeatResponse(String group, long generation, GenerationState state, String failureReason) {
}
