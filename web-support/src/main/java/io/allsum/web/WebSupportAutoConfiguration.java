package io.allsum.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.databind.json.JsonMapper;

/**
 * The web layer server and worker share: {@link HttpLimitsProperties} ({@link ConnectionBounds}), and problem+json,
 * all of it written by the one {@link ProblemWriter}, for the requests Jetty refuses itself ({@link ProblemErrorHandler}), for the error page
 * ({@link ProblemErrorController}), for actuator's bodiless errors ({@link EmptyErrorBodyFilter}) and for TRACE
 * ({@link TraceRefusalFilter}).
 */
@AutoConfiguration(before = {ErrorMvcAutoConfiguration.class, WebMvcAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(HttpLimitsProperties.class)
public class WebSupportAutoConfiguration {

    @Bean
    ProblemWriter problemWriter(JsonMapper json) {
        return new ProblemWriter(json);
    }

    @Bean
    WebServerFactoryCustomizer<JettyServletWebServerFactory> allsumJettyCustomizer(HttpLimitsProperties limits,
                                                                                   ProblemWriter problems) {
        return factory -> factory.addServerCustomizers(server -> {
            server.setErrorHandler(new ProblemErrorHandler(problems));
            ConnectionBounds.apply(server, limits);
        });
    }

    /** The worker's advice; the server's own extends it. */
    @Bean
    @ConditionalOnMissingBean(ResponseEntityExceptionHandler.class)
    CodedProblemAdvice codedProblemAdvice() {
        return new CodedProblemAdvice();
    }

    @Bean
    ProblemErrorController problemErrorController(ProblemWriter problems) {
        return new ProblemErrorController(problems);
    }

    /** Ahead of the token checks: a TRACE is refused the same way with or without a token. */
    @Bean
    FilterRegistrationBean<TraceRefusalFilter> traceRefusalFilter(ProblemWriter problems) {
        FilterRegistrationBean<TraceRefusalFilter> registration =
                new FilterRegistrationBean<>(new TraceRefusalFilter(problems));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
        registration.addUrlPatterns("/*");
        return registration;
    }

    @Bean
    FilterRegistrationBean<EmptyErrorBodyFilter> emptyErrorBodyFilter(ProblemWriter problems) {
        FilterRegistrationBean<EmptyErrorBodyFilter> registration =
                new FilterRegistrationBean<>(new EmptyErrorBodyFilter(problems));
        registration.addUrlPatterns(EmptyErrorBodyFilter.PATHS);
        return registration;
    }
}
