package io.allsum.model.rendezvous;

import io.allsum.model.Backend;

import java.util.List;

/**
 * The compact 200 answer to a join ({@code POST /rendezvous?view=rank}): what one rank needs to build its
 * communicator, a constant size whatever the world size. The full member list stays available from
 * {@code GET /rendezvous/{group}/view} (cached, ETag).
 *
 * @param uniqueId rank 0's secret id (the NCCL unique id, or the ring's random id); null if rank 0 sent none
 * @param previous the ring neighbour {@code (rank - 1) mod worldSize}; null unless the backend is ring
 * @param next     the ring neighbour {@code (rank + 1) mod worldSize}; null unless the backend is ring
 * @param viewTag  the ETag of this generation's full view at {@code GET /rendezvous/{group}/view}
 * @param epoch    the server's incarnation ({@code Allsum-Server-Epoch})
 */
public record RankView(String group, long generation, int worldSize, Backend backend, String uniqueId, int rank,
                       Member previous, Member next, String viewTag, String epoch) {

    /** The same generation with the full member list (fetched from the view endpoint) and this answer's id. */
    public GroupView withMembers(List<Member> members) {
        return new GroupView(group, generation, worldSize, backend, uniqueId, members, epoch);
    }

    /** Never prints the unique id: it is a bearer secret for joining the NCCL communicator. */
    @Override
    public String toString() {
        return "RankView[group=" + group + ", generation=" + generation + ", worldSize=" + worldSize + ", backend="
                + backend + ", uniqueId=" + (uniqueId == null ? "absent" : "<redacted>") + ", rank=" + rank
                + ", previous=" + previous + ", next=" + next + ", viewTag=" + viewTag + ", epoch=" + epoch + "]";
    }
}
