package io.allsum.server.security;

import io.allsum.server.web.ProblemWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Installs the bearer-token check in front of everything when {@code allsum.security.token} is set. */
@Configuration(proxyBeanMethods = false)
public class SecurityConfig {

    private static final Logger log = LoggerFactory.getLogger(SecurityConfig.class);

    @Bean
    FilterRegistrationBean<BearerTokenFilter> bearerTokenFilter(SecurityProperties security, ProblemWriter problems) {
        FilterRegistrationBean<BearerTokenFilter> registration = new FilterRegistrationBean<>();
        if (security.tokenConfigured()) {
            registration.setFilter(new BearerTokenFilter(security.token(), problems));
            log.info("bearer token required on every path but /actuator/health");
        } else {
            registration.setEnabled(false);
            registration.setFilter(new BearerTokenFilter("", problems));
            log.warn("no token configured (ALLSUM_TOKEN or allsum.security.token): the server accepts anyone");
        }
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
