package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.micrometer.observation.ObservationPredicate;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.time.Duration;

@Configuration(proxyBeanMethods = false)
public class WebConfig implements WebMvcConfigurer {

    /** Runs right after the token check, so unauthenticated bodies are never read. */
    public static final int BODY_LIMIT_ORDER = Ordered.HIGHEST_PRECEDENCE + 20;
    /** Slack above the longest wait, so that the container's async timeout (job long-polls) never answers first. */
    private static final Duration ASYNC_TIMEOUT_SLACK = Duration.ofSeconds(60);

    private final RendezvousProperties properties;

    public WebConfig(RendezvousProperties properties) {
        this.properties = properties;
    }

    @Override
    public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
        configurer.setDefaultTimeout(properties.maxWait().plus(ASYNC_TIMEOUT_SLACK).toMillis());
    }

    /**
     * No {@code http.server.requests} observation for joins: when a generation completes, thousands of parked joins
     * finish at once, and each observation (a tagged timer plus an active-requests gauge) is work on the path to
     * the last rank's answer. The join counters by outcome and the delivery timer cover joins instead.
     */
    @Bean
    ObservationPredicate noHttpObservationForJoins() {
        return (name, context) -> !(context instanceof ServerRequestObservationContext request
                && Protocol.RENDEZVOUS_PATH.equals(request.getCarrier().getRequestURI()));
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
