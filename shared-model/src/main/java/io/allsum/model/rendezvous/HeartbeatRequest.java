package io.allsum.model.rendezvous;

/** Body of {@code POST /rendezvous/{group}/heartbeat}. */
public record HeartbeatRequest(Integer rank, String instanceId, Long generation) {
}
