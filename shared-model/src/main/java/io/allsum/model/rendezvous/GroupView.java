package io.allsum.model.rendezvous;

import io.allsum.model.Backend;

import java.util.List;

/**
 * The 200 answer to a join: the generation is complete. Every rank gets the same body, members sorted by rank.
 * {@code uniqueId} is rank 0's secret id: the NCCL unique id, or the ring's random id (null if rank 0 sent none).
 *
 * @param epoch the server's incarnation ({@code Allsum-Server-Epoch}): a worker that sees it change knows the
 *              server restarted and resets what it held from the old one (its job cursor); null from older servers
 */
public record GroupView(String group, long generation, int worldSize, Backend backend, String uniqueId,
                        List<Member> members, String epoch) {

    /** Without an epoch (older servers, tests). */
    public GroupView(String group, long generation, int worldSize, Backend backend, String uniqueId,
                     List<Member> members) {
        this(group, generation, worldSize, backend, uniqueId, members, null);
    }

    /** Never prints the unique id: it is a bearer secret for joining the NCCL communicator. */
    @Override
    public String toString() {
        return "GroupView[group=" + group + ", generation=" + generation + ", worldSize=" + worldSize + ", backend="
                + backend + ", uniqueId=" + (uniqueId == null ? "absent" : "<redacted>") + ", members=" + members
                + ", epoch=" + epoch + "]";
    }
}
