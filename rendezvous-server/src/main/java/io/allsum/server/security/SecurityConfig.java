package io.allsum.server.security;

import io.allsum.model.security.BearerToken;
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

    /** First of the filters: nothing reads a request before its token is checked. */
    public static final int TOKEN_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    private static final Logger log = LoggerFactory.getLogger(SecurityConfig.class);

    @Bean
    FilterRegistrationBean<BearerTokenFilter> bearerTokenFilter(SecurityProperties security, ProblemWriter problems) {
        FilterRegistrationBean<BearerTokenFilter> registration = new FilterRegistrationBean<>();
        if (security.tokenConfigured()) {
            registration.setFilter(new BearerTokenFilter(BearerToken.of(security.token()), problems));
            log.info("bearer token required on every path but /actuator/health");
        } else {
            registration.setEnabled(false);
            registration.setFilter(new BearerTokenFilter(BearerToken.of("unused"), problems));
            log.warn("no token configured (ALLSUM_TOKEN or allsum.security.token): the server accepts anyone");
        }
        registration.setOrder(TOKEN_ORDER);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
