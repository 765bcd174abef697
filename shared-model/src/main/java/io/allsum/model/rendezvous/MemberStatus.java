package io.allsum.model.rendezvous;

/** A member as {@code GET /rendezvous/{group}} shows it, with the age of its last heartbeat (or join). */
public record MemberStatus(int rank, String instanceId, String endpoint, String host, String device,
                           long heartbeatAgeMillis) {
}
