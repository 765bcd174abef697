package io.allsum.server.rendezvous;

import org.eclipse.jetty.server.ServerConnector;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/** Applies {@link ConnectionProperties} to Jetty's connectors. */
@Component
class ConnectionSettings implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    private final ConnectionProperties properties;

    ConnectionSettings(ConnectionProperties properties) {
        this.properties = properties;
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> {
            for (var connector : server.getConnectors()) {
                if (connector instanceof ServerConnector serverConnector) {
                    serverConnector.setAcceptQueueSize(properties.acceptQueue());
                }
            }
        });
    }
}
