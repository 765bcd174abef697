package io.allsum.worker.agent;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker's settings ({@code allsum.worker.*}). Besides Spring's usual sources, {@link io.allsum.comm.join.EnvironmentAliases}
 * maps the ALLSUM_*, torchrun and MLX environment variables onto these names at the lowest precedence.
 *
 * @param server             base URL of the rendezvous server
 * @param group              the group to join
 * @param rank               this worker's rank, 0 to worldSize - 1
 * @param worldSize          number of ranks in the group
 * @param backend            auto, nccl or ring
 * @param device             the GPU to use (an index, for NCCL); LOCAL_RANK when not given
 * @param token              bearer token of the rendezvous server, if it requires one
 * @param joinDeadline       how long one generation may take to complete
 * @param heartbeatInterval  how often a ready worker tells the server it is alive
 * @param collectiveDeadline how long a collective (or the communicator's set-up) may take before it is aborted
 * @param jobPollWait        how long one long-poll for the next job waits on the server
 * @param maxRestarts        consecutive failed generations tolerated before the worker exits non-zero
 * @param ringBindHost       address the ring backend listens on
 * @param ringAdvertiseHost  host the ring backend tells its peers to connect to (default: see AdvertisedAddress)
 * @param ringSharedMemory   whether ring links to ranks of the same host carry their payload through /dev/shm
 *                           (ALLSUM_RING_SHARED_MEMORY; false keeps every byte on TCP)
 */
@Validated
@ConfigurationProperties("allsum.worker")
public record WorkerProperties(
        @NotNull @DefaultValue("http://localhost:8080") URI server,
        @NotBlank @Pattern(regexp = "[A-Za-z0-9._-]{1,64}") @DefaultValue("default") String group,
        @PositiveOrZero Integer rank,
        Integer worldSize,
        @NotNull @DefaultValue("auto") BackendChoice backend,
        String device,
        String token,
        @NotNull @DefaultValue("300s") Duration joinDeadline,
        @NotNull @DefaultValue("2s") Duration heartbeatInterval,
        @NotNull @DefaultValue("60s") Duration collectiveDeadline,
        @NotNull @DefaultValue("10s") Duration jobPollWait,
        @PositiveOrZero @DefaultValue("10") int maxRestarts,
        @NotBlank @DefaultValue("0.0.0.0") String ringBindHost,
        String ringAdvertiseHost,
        @DefaultValue("true") boolean ringSharedMemory) {

    public WorkerProperties {
        List<String> missing = new ArrayList<>();
        if (rank == null) {
            missing.add("rank (ALLSUM_RANK, RANK or MLX_RANK)");
        }
        if (worldSize == null) {
            missing.add("world size (ALLSUM_WORLD_SIZE, WORLD_SIZE or MLX_WORLD_SIZE)");
        }
        if (!missing.isEmpty()) {
            throw new MissingWorkerSettingException(missing);
        }
        if (worldSize < 1) {
            throw new IllegalArgumentException("allsum.worker.world-size must be at least 1, was " + worldSize);
        }
        if (rank >= worldSize) {
            throw new IllegalArgumentException(
                    "allsum.worker.rank must be below the world size " + worldSize + ", was " + rank);
        }
    }
}
