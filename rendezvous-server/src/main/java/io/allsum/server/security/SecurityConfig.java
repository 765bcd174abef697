package io.allsum.server.security;

import io.allsum.server.dashboard.DashboardPaths;
import io.allsum.web.BearerTokenFilter;
import io.allsum.web.ProblemWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The server's bearer-token check ({@code allsum.security.token}): open are {@code /actuator/health} (and below) and
 * the dashboard's static files (page, script, style: no data; {@link DashboardPaths}). The join endpoint, in front of
 * the servlet filters, asks the same filter.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfig {

    private static final String OPEN_PATH = "/actuator/health";

    private static final Logger log = LoggerFactory.getLogger(SecurityConfig.class);

    @Bean
    BearerTokenFilter bearerTokenFilter(SecurityProperties security, ProblemWriter problems) {
        BearerTokenFilter filter = new BearerTokenFilter(security.token(), "allsum", "this server",
                SecurityConfig::isOpen, problems);
        if (filter.required()) {
            log.info("bearer token required on every path but /actuator/health");
        } else {
            log.warn("no token configured (ALLSUM_TOKEN or allsum.security.token): the server accepts anyone");
        }
        return filter;
    }

    @Bean
    FilterRegistrationBean<BearerTokenFilter> bearerTokenFilterRegistration(BearerTokenFilter filter) {
        return filter.registration();
    }

    static boolean isOpen(String path) {
        return path.equals(OPEN_PATH) || path.startsWith(OPEN_PATH + "/") || DashboardPaths.isPublic(path);
    }
}
