package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.web.BodySizeLimitFilter;
import io.allsum.web.ProblemWriter;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.time.Duration;

/** The rendezvous' servlet settings: long-poll timeouts and the body limit of requests other than joins. */
@Configuration(proxyBeanMethods = false)
class RendezvousWebConfig implements WebMvcConfigurer {

    /** Runs right after the token check, so unauthenticated bodies are never read. */
    static final int BODY_LIMIT_ORDER = Ordered.HIGHEST_PRECEDENCE + 20;
    /** Slack above the longest wait, so that the container's async timeout (job long-polls) never answers first. */
    private static final Duration ASYNC_TIMEOUT_SLACK = Duration.ofSeconds(60);

    private final RendezvousProperties properties;

    RendezvousWebConfig(RendezvousProperties properties) {
        this.properties = properties;
    }

    @Override
    public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
        configurer.setDefaultTimeout(properties.maxWait().plus(ASYNC_TIMEOUT_SLACK).toMillis());
    }

    @Bean
    FilterRegistrationBean<BodySizeLimitFilter> bodySizeLimitFilter(ProblemWriter problems) {
        FilterRegistrationBean<BodySizeLimitFilter> registration = new FilterRegistrationBean<>(
                new BodySizeLimitFilter(properties.maxBodySize().toBytes(), problems));
        registration.setOrder(BODY_LIMIT_ORDER);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
