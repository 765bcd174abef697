package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.server.web.BodySizeLimitFilter;
import io.allsum.server.web.ProblemWriter;
import io.micrometer.observation.ObservationPredicate;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.time.Duration;

/** The rendezvous' web settings: long-poll timeouts, the body limit, join metering, no per-join observation. */
@Configuration(proxyBeanMethods = false)
class RendezvousWebConfig implements WebMvcConfigurer {

    /** Runs right after the token check, so unauthenticated bodies are never read. */
    static final int BODY_LIMIT_ORDER = Ordered.HIGHEST_PRECEDENCE + 20;
    /** After the body limit: a join refused for its declared size was never read, and is not counted. */
    static final int JOIN_METER_ORDER = Ordered.HIGHEST_PRECEDENCE + 30;
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

    @Bean
    FilterRegistrationBean<JoinMeterFilter> joinMeterFilter(RendezvousMeters meters) {
        FilterRegistrationBean<JoinMeterFilter> registration = new FilterRegistrationBean<>(new JoinMeterFilter(meters));
        registration.setOrder(JOIN_METER_ORDER);
        registration.addUrlPatterns(Protocol.RENDEZVOUS_PATH);
        return registration;
    }
}
