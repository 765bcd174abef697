package io.allsum.model.rendezvous;

import java.time.Instant;
import java.util.List;

/**
 * The 202 answer to a join whose wait ran out before the group completed; re-post to keep waiting.
 *
 * @param epoch the server's incarnation ({@code Allsum-Server-Epoch}); null from servers before it existed
 */
public record JoinPending(String group, long generation, List<Integer> joinedRanks, List<Integer> missingRanks,
                          Instant joinDeadline, int retryAfterSeconds, String epoch) {

    /** Without an epoch (older servers, tests). */
    public JoinPending(String group, long generation, List<Integer> joinedRanks, List<Integer> missingRanks,
                       Instant joinDeadline, int retryAfterSeconds) {
        this(group, generation, joinedRanks, missingRanks, joinDeadline, retryAfterSeconds, null);
    }
}
