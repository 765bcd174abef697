package io.allsum.worker.agent;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class WorkerPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(WorkerProperties.class)
    static class PropertiesOnly {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withUserConfiguration(PropertiesOnly.class);

    @Test
    void missingRankAndWorldSizeFailStartupNamingTheVariablesToSet() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            MissingWorkerSettingException missing = findCause(failure);
            assertThat(missing.getMessage())
                    .doesNotContain("\n")
                    .contains("ALLSUM_RANK", "RANK", "MLX_RANK", "ALLSUM_WORLD_SIZE", "WORLD_SIZE", "MLX_WORLD_SIZE");

            FailureAnalysis analysis = new MissingWorkerSettingFailureAnalyzer().analyze(failure);
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).isEqualTo(missing.getMessage());
        });
    }

    @Test
    void missingWorldSizeAloneIsNamedAlone() {
        runner.withPropertyValues("allsum.worker.rank=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(findCause(context.getStartupFailure()).getMessage())
                    .contains("ALLSUM_WORLD_SIZE").doesNotContain("ALLSUM_RANK");
        });
    }

    @Test
    void rankMustBeBelowTheWorldSize() {
        runner.withPropertyValues("allsum.worker.rank=4", "allsum.worker.world-size=4").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("below the world size 4");
        });
    }

    @Test
    void badGroupNameIsRejected() {
        runner.withPropertyValues("allsum.worker.rank=0", "allsum.worker.world-size=1", "allsum.worker.group=a b")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void validSettingsBind() {
        runner.withPropertyValues("allsum.worker.rank=1", "allsum.worker.world-size=2",
                "allsum.worker.heartbeat-interval=250ms", "allsum.worker.max-restarts=0").run(context -> {
            assertThat(context).hasNotFailed();
            WorkerProperties p = context.getBean(WorkerProperties.class);
            assertThat(p.heartbeatInterval().toMillis()).isEqualTo(250);
            assertThat(p.maxRestarts()).isZero();
        });
    }

    private static MissingWorkerSettingException findCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MissingWorkerSettingException m) {
                return m;
            }
        }
        throw new AssertionError("no MissingWorkerSettingException in " + failure);
    }
}
