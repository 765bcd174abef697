package io.allsum.worker.agent;

import io.allsum.comm.join.EnvironmentAliases;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Adds the environment aliases (ALLSUM_RANK, RANK, MLX_RANK, ...) as the LAST property source, so that any explicit
 * {@code allsum.worker.*} setting (command line, system property, ALLSUM_WORKER_* variable, application.properties)
 * takes precedence over them.
 */
public class WorkerEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String PREFIX = "allsum.worker.";
    public static final String SOURCE_NAME = "allsumWorkerEnvironmentAliases";

    private final Supplier<Map<String, String>> environment;

    public WorkerEnvironmentPostProcessor() {
        this(System::getenv);
    }

    WorkerEnvironmentPostProcessor(Supplier<Map<String, String>> environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        Map<String, Object> values = new LinkedHashMap<>();
        EnvironmentAliases.resolve(environment.get(), PREFIX).forEach((name, resolved) -> values.put(name, resolved.value()));
        if (!values.isEmpty()) {
            env.getPropertySources().addLast(new MapPropertySource(SOURCE_NAME, values));
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
