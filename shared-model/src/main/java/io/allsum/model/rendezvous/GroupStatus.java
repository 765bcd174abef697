package io.allsum.model.rendezvous;

import io.allsum.model.Backend;

import java.time.Instant;
import java.util.List;

/** Answer of {@code GET /rendezvous/{group}}. Never carries the unique id. */
public record GroupStatus(String group, long generation, GenerationState state, int worldSize, Backend backend,
                          List<Integer> joinedRanks, List<Integer> missingRanks, List<MemberStatus> members,
                          Instant joinDeadline, String failureReason) {
}
