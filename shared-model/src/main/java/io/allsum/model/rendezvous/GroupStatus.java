package io.allsum.model.rendezvous;

import io.allsum.model.Backend;

import java.time.Instant;
import java.util.List;

/**
 * Answer of {@code GET /rendezvous/{group}}. Never carries the unique id.
 *
 * @param epoch the server's incarnation ({@code Allsum-Server-Epoch}); null from servers before it existed
 */
public record GroupStatus(String group, long generation, GenerationState state, int worldSize, Backend backend,
                          List<Integer> joinedRanks, List<Integer> missingRanks, List<MemberStatus> members,
                          Instant joinDeadline, String failureReason, String epoch) {

    /** Without an epoch (older servers, tests). */
    public GroupStatus(String group, long generation, GenerationState state, int worldSize, Backend backend,
                       List<Integer> joinedRanks, List<Integer> missingRanks, List<MemberStatus> members,
                       Instant joinDeadline, String failureReason) {
        this(group, generation, state, worldSize, backend, joinedRanks, missingRanks, members, joinDeadline,
                failureReason, null);
    }
}
