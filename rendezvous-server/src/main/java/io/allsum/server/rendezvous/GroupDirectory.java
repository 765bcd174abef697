package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GenerationState;

import java.util.List;
import java.util.Optional;

/**
 * Read-only view of the groups for other parts of the server (jobs). Implemented by the rendezvous registry.
 * Changes are also published as Spring application events: {@link GenerationCompleted},
 * {@link GenerationFailed}, {@link GroupRemoved}.
 */
public interface GroupDirectory {

    /** The group's current generation, if the group exists. */
    Optional<CurrentGeneration> current(String group);

    /** Whether {@code instanceId} is the live member holding {@code rank} in the group's current generation. */
    boolean isMember(String group, int rank, String instanceId);

    record CurrentGeneration(String group, long generation, GenerationState state, int worldSize, Backend backend) {
    }

    /** Every rank of {@code generation} joined; the group is ready for jobs. */
    record GenerationCompleted(String group, long generation, int worldSize, Backend backend) {
    }

    /**
     * {@code generation} failed (heartbeat timeout, reported failure, join deadline, a member left);
     * {@code silentRanks}: the ranks whose heartbeat timed out, when that was the cause.
     */
    record GenerationFailed(String group, long generation, String reason, List<Integer> silentRanks) {
        public GenerationFailed {
            silentRanks = silentRanks == null ? List.of() : List.copyOf(silentRanks);
        }

        public GenerationFailed(String group, long generation, String reason) {
            this(group, generation, reason, List.of());
        }
    }

    /** The group was closed or evicted; everything attached to it ends. */
    record GroupRemoved(String group, String reason) {
    }
}
