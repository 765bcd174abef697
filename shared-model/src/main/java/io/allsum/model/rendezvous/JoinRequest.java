package io.allsum.model.rendezvous;

import io.allsum.model.Backend;

/**
 * Body of {@code POST /rendezvous}. Boxed numbers so that a missing field is an error, not rank 0.
 *
 * @param group          group name, {@code [A-Za-z0-9._-]{1,64}}, not {@code .} nor {@code ..}
 * @param rank           this worker's rank, 0 to worldSize-1
 * @param worldSize      number of ranks in the group
 * @param instanceId     unique per worker process incarnation (1-128 chars); a re-post with the same one is
 *                       idempotent
 * @param backend        nccl or ring
 * @param uniqueId       base64 of rank 0's 128-byte secret id: its ncclUniqueId (required with nccl) or the ring's
 *                       random id (optional with ring, the key of its connections); rejected from other ranks
 * @param endpoint       {@code host:port} the worker listens on (required for ring)
 * @param host           optional host name, for humans
 * @param device         optional GPU name or UUID, for humans
 * @param lastGeneration optional: the generation this instance last belonged to, on this or an earlier server
 *                       incarnation; the server numbers the generation it forms above it, so that peers that only
 *                       accept newer generations keep working across a server restart
 */
public record JoinRequest(String group, Integer rank, Integer worldSize, String instanceId, Backend backend,
                          String uniqueId, String endpoint, String host, String device, Long lastGeneration) {

    /** Without a last generation (a fresh process, older clients). */
    public JoinRequest(String group, Integer rank, Integer worldSize, String instanceId, Backend backend,
                       String uniqueId, String endpoint, String host, String device) {
        this(group, rank, worldSize, instanceId, backend, uniqueId, endpoint, host, device, null);
    }

    /** The same request, reporting the generation this instance last belonged to. */
    public JoinRequest withLastGeneration(Long generation) {
        return new JoinRequest(group, rank, worldSize, instanceId, backend, uniqueId, endpoint, host, device,
                generation);
    }

    /** Never prints the unique id: it is a bearer secret for joining the NCCL communicator. */
    @Override
    public String toString() {
        return "JoinRequest[group=" + group + ", rank=" + rank + ", worldSize=" + worldSize + ", instanceId="
                + instanceId + ", backend=" + backend + ", uniqueId=" + (uniqueId == null ? "absent" : "<redacted>")
                + ", endpoint=" + endpoint + ", host=" + host + ", device=" + device + ", lastGeneration="
                + lastGeneration + "]";
    }
}
