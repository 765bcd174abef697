package io.allsum.model.rendezvous;

/** Body of {@code POST /rendezvous/{group}/leave}: a graceful exit; a complete generation it belonged to ends. */
public record LeaveRequest(Integer rank, String instanceId) {
}
