package io.allsum.worker.agent;

import io.allsum.comm.join.EnvironmentAliases;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.StandardEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The variables Slurm's srun and a Kubernetes Indexed Job set, read like torchrun's and MLX's. */
class SchedulerEnvironmentAliasesTest {

    private static WorkerProperties bind(Map<String, String> env) {
        StandardEnvironment environment = new StandardEnvironment();
        new WorkerEnvironmentPostProcessor(() -> env).postProcessEnvironment(environment, new SpringApplication());
        return Binder.get(environment).bindOrCreate("allsum.worker", WorkerProperties.class);
    }

    @Test
    void srunTaskVariablesGiveRankWorldSizeAndDevice() {
        // Task 5 of 8, the second GPU of its node (srun --ntasks-per-node=4).
        WorkerProperties p = bind(Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID", "1",
                "SLURM_NODEID", "1"));
        assertThat(p.rank()).isEqualTo(5);
        assertThat(p.worldSize()).isEqualTo(8);
        assertThat(p.device()).isEqualTo("1");
    }

    @Test
    void torchrunAndAllsumVariablesBeatSlurmsInsideAnAllocation() {
        WorkerProperties torchrun = bind(Map.of("RANK", "2", "WORLD_SIZE", "4", "LOCAL_RANK", "2",
                "SLURM_PROCID", "0", "SLURM_NTASKS", "1", "SLURM_LOCALID", "0"));
        assertThat(torchrun.rank()).isEqualTo(2);
        assertThat(torchrun.worldSize()).isEqualTo(4);
        assertThat(torchrun.device()).isEqualTo("2");

        WorkerProperties allsum = bind(Map.of("ALLSUM_RANK", "3", "ALLSUM_WORLD_SIZE", "6", "ALLSUM_DEVICE", "0",
                "SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_LOCALID", "1"));
        assertThat(allsum.rank()).isEqualTo(3);
        assertThat(allsum.worldSize()).isEqualTo(6);
        assertThat(allsum.device()).isEqualTo("0");
    }

    @Test
    void kubernetesCompletionIndexIsTheRankAndTheManifestGivesTheWorldSize() {
        WorkerProperties p = bind(Map.of("JOB_COMPLETION_INDEX", "6", "ALLSUM_WORLD_SIZE", "8"));
        assertThat(p.rank()).isEqualTo(6);
        assertThat(p.worldSize()).isEqualTo(8);
    }

    @Test
    void resolvedSettingsNameTheSchedulerVariableTheyCameFrom() {
        Map<String, EnvironmentAliases.Resolved> resolved = EnvironmentAliases.resolve(Map.of(
                "SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_LOCALID", "1"), "allsum.worker.");
        assertThat(resolved.get("allsum.worker.rank").variable()).isEqualTo("SLURM_PROCID");
        assertThat(resolved.get("allsum.worker.world-size").variable()).isEqualTo("SLURM_NTASKS");
        assertThat(resolved.get("allsum.worker.device").variable()).isEqualTo("SLURM_LOCALID");
    }
}
