package io.allsum.server.rendezvous;

import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/** Applies {@link ConnectionBufferProperties} to Tomcat's connector. */
@Component
class ConnectionBuffers implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    private final ConnectionBufferProperties properties;

    ConnectionBuffers(ConnectionBufferProperties properties) {
        this.properties = properties;
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addConnectorCustomizers(connector -> {
            connector.setProperty("socket.appReadBufSize", Long.toString(properties.readBuffer().toBytes()));
            connector.setProperty("socket.appWriteBufSize", Long.toString(properties.writeBuffer().toBytes()));
        });
    }
}
