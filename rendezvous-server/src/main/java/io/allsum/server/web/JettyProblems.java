package io.allsum.server.web;

import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Configuration;

/** Makes Jetty answer the requests it refuses itself with problem+json ({@link ProblemErrorHandler}). */
@Configuration(proxyBeanMethods = false)
class JettyProblems implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> server.setErrorHandler(new ProblemErrorHandler()));
    }
}
