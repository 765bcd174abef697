package io.allsum.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * The Jetty settings server and worker share: {@link HttpLimitsProperties} ({@link ConnectionBounds}) and
 * problem+json for the requests Jetty refuses itself ({@link ProblemErrorHandler}).
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(HttpLimitsProperties.class)
public class WebSupportAutoConfiguration {

    @Bean
    WebServerFactoryCustomizer<JettyServletWebServerFactory> allsumJettyCustomizer(HttpLimitsProperties limits) {
        return factory -> factory.addServerCustomizers(server -> {
            server.setErrorHandler(new ProblemErrorHandler());
            ConnectionBounds.apply(server, limits);
        });
    }
}
