package io.allsum.comm.join;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps the environment variables users already set onto allsum's setting names (the worker's
 * {@code allsum.worker.*} properties, the library's {@code Allsum.init()}). For each setting the first
 * variable present wins: ALLSUM_* before torchrun's (RANK, WORLD_SIZE, LOCAL_RANK) before MLX's (MLX_RANK,
 * MLX_WORLD_SIZE) before the schedulers': Slurm's srun (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID) and a Kubernetes
 * Indexed Job's JOB_COMPLETION_INDEX (a rank only: the world size comes from the manifest). In the worker, explicit {@code allsum.worker.*} properties beat all of them.
 */
public final class EnvironmentAliases {

    /** Setting name to the variables that may supply it, in precedence order. */
    static final Map<String, List<String>> ALIASES = aliases();

    private EnvironmentAliases() {
    }

    private static Map<String, List<String>> aliases() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("server", List.of("ALLSUM_SERVER"));
        m.put("group", List.of("ALLSUM_GROUP"));
        m.put("rank", List.of("ALLSUM_RANK", "RANK", "MLX_RANK", "SLURM_PROCID", "JOB_COMPLETION_INDEX"));
        m.put("world-size", List.of("ALLSUM_WORLD_SIZE", "WORLD_SIZE", "MLX_WORLD_SIZE", "SLURM_NTASKS"));
        m.put("backend", List.of("ALLSUM_BACKEND"));
        // LOCAL_RANK is the GPU index within the host, which is what picks the device (never rank % devices).
        m.put("device", List.of("ALLSUM_DEVICE", "LOCAL_RANK", "SLURM_LOCALID"));
        m.put("token", List.of("ALLSUM_TOKEN"));
        m.put("ring-shared-memory", List.of("ALLSUM_RING_SHARED_MEMORY"));
        return Map.copyOf(m);
    }

    /** The settings the environment supplies (names such as {@code rank}, {@code world-size}), with their variable. */
    public static Map<String, Resolved> resolve(Map<String, String> environment) {
        return resolve(environment, "");
    }

    /** Like {@link #resolve(Map)}, each name after {@code prefix} ({@code allsum.worker.} for the worker). */
    public static Map<String, Resolved> resolve(Map<String, String> environment, String prefix) {
        Map<String, Resolved> out = new LinkedHashMap<>();
        ALIASES.forEach((property, variables) -> {
            for (String variable : variables) {
                String value = environment.get(variable);
                if (value != null && !value.isBlank()) {
                    out.put(prefix + property, new Resolved(value.trim(), variable));
                    return;
                }
            }
        });
        return out;
    }

    /** A property value and the environment variable it came from. */
    public record Resolved(String value, String variable) {
    }
}
