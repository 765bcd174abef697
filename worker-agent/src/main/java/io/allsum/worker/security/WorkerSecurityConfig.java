package io.allsum.worker.security;

import io.allsum.web.BearerTokenFilter;
import io.allsum.web.ProblemWriter;
import io.allsum.worker.agent.WorkerProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Set;

/**
 * The worker's bearer-token check (allsum.worker.token, ALLSUM_TOKEN; the server's token and check): every request but
 * the liveness and readiness probes, the job relay, detailed health (it names group and generation) and metrics
 * included. Without a token the worker is open, like the server. A local rank without a web server has nothing to check.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class WorkerSecurityConfig {

    /** Probes for orchestrators: status only (their details are off), no token. */
    static final Set<String> OPEN_PATHS = Set.of("/actuator/health/liveness", "/actuator/health/readiness");

    /** The worker's configuration of web-support's filter. */
    public static BearerTokenFilter tokenFilter(WorkerProperties props, ProblemWriter problems) {
        return new BearerTokenFilter(props.token(), "allsum-worker", "this worker", OPEN_PATHS::contains, problems);
    }

    @Bean
    FilterRegistrationBean<BearerTokenFilter> workerTokenFilter(WorkerProperties props, ProblemWriter problems) {
        return tokenFilter(props, problems).registration();
    }
}
