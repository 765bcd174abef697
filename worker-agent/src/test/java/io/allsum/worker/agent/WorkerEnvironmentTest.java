package io.allsum.worker.agent;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerEnvironmentTest {

    private static WorkerProperties bind(Map<String, String> env, Map<String, Object> explicit) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("explicit", explicit));
        new WorkerEnvironmentPostProcessor(() -> env).postProcessEnvironment(environment, new SpringApplication());
        return Binder.get(environment).bindOrCreate("allsum.worker", WorkerProperties.class);
    }

    @Test
    void allsumVariablesConfigureTheWorker() {
        WorkerProperties p = bind(Map.of("ALLSUM_SERVER", "http://rdv:9000", "ALLSUM_GROUP", "train-7",
                "ALLSUM_RANK", "2", "ALLSUM_WORLD_SIZE", "4", "ALLSUM_BACKEND", "ring", "ALLSUM_DEVICE", "3",
                "ALLSUM_TOKEN", "s3cret"), Map.of());

        assertThat(p.server()).hasToString("http://rdv:9000");
        assertThat(p.group()).isEqualTo("train-7");
        assertThat(p.rank()).isEqualTo(2);
        assertThat(p.worldSize()).isEqualTo(4);
        assertThat(p.backend()).isEqualTo(BackendChoice.RING);
        assertThat(p.device()).isEqualTo("3");
        assertThat(p.token()).isEqualTo("s3cret");
    }

    @Test
    void allsumVariablesBeatTorchrunWhichBeatsMlx() {
        Map<String, String> all = Map.of("ALLSUM_RANK", "1", "RANK", "2", "MLX_RANK", "3",
                "WORLD_SIZE", "8", "MLX_WORLD_SIZE", "16");
        WorkerProperties p = bind(all, Map.of());
        assertThat(p.rank()).isEqualTo(1);
        assertThat(p.worldSize()).isEqualTo(8);

        WorkerProperties mlxOnly = bind(Map.of("MLX_RANK", "3", "MLX_WORLD_SIZE", "16"), Map.of());
        assertThat(mlxOnly.rank()).isEqualTo(3);
        assertThat(mlxOnly.worldSize()).isEqualTo(16);
    }

    @Test
    void explicitPropertiesBeatEveryVariable() {
        WorkerProperties p = bind(Map.of("ALLSUM_RANK", "1", "RANK", "2", "ALLSUM_WORLD_SIZE", "4",
                "ALLSUM_BACKEND", "nccl"), Map.of("allsum.worker.rank", "3", "allsum.worker.backend", "ring"));
        assertThat(p.rank()).isEqualTo(3);
        assertThat(p.worldSize()).isEqualTo(4);
        assertThat(p.backend()).isEqualTo(BackendChoice.RING);
    }

    @Test
    void localRankPicksTheDeviceUnlessAllsumDeviceIsSet() {
        Map<String, String> env = new HashMap<>(Map.of("RANK", "5", "WORLD_SIZE", "8", "LOCAL_RANK", "1"));
        assertThat(bind(env, Map.of()).device()).isEqualTo("1");
        env.put("ALLSUM_DEVICE", "0");
        assertThat(bind(env, Map.of()).device()).isEqualTo("0");
    }

    @Test
    void defaultsApplyWhenOnlyRankAndWorldSizeAreGiven() {
        WorkerProperties p = bind(Map.of("RANK", "0", "WORLD_SIZE", "1"), Map.of());
        assertThat(p.backend()).isEqualTo(BackendChoice.AUTO);
        assertThat(p.heartbeatInterval()).hasSeconds(2);
        assertThat(p.server()).hasToString("http://localhost:8080");
        assertThat(p.device()).isNull();
    }
}
