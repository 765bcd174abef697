package io.allsum.model.rendezvous;

/**
 * Answer to a heartbeat: the group's current generation and its state. A worker whose generation is not
 * {@code generation}, or whose generation is FAILED, or whose server {@code epoch} changed, aborts its communicator
 * and re-joins.
 *
 * @param epoch the server's incarnation ({@code Allsum-Server-Epoch}); null from servers before it existed
 */
public record HeartbeatResponse(String group, long generation, GenerationState state, String failureReason,
                                String epoch) {

    /** Without an epoch (older servers, tests). */
    public HeartbeatResponse(String group, long generation, GenerationState state, String failureReason) {
        this(group, generation, state, failureReason, null);
    }
}
