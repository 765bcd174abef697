package io.allsum.model.rendezvous;

import java.time.Instant;
import java.util.List;

/** The 202 answer to a join whose wait ran out before the group completed; re-post to keep waiting. */
public record JoinPending(String group, long generation, List<Integer> joinedRanks, List<Integer> missingRanks,
                          Instant joinDeadline, int retryAfterSeconds) {
}
