package io.allsum.server.rendezvous;

import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/** Applies {@link ConnectionProperties} to Jetty's connectors, and keeps idle keep-alive connections small. */
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
                // Jetty gives every keep-alive connection, after its first request, a header cache of 1,024
                // entries: about 100 KB per connection, held while it is idle. A rank's connection carries a few
                // requests, and 16,384 ranks would hold 1.6 GB of caches (docs/benchmarks.md, "Rendezvous at scale").
                HttpConnectionFactory http = connector.getConnectionFactory(HttpConnectionFactory.class);
                if (http != null) {
                    http.getHttpConfiguration().setHeaderCacheSize(0);
                    // A parked join's connection keeps its read buffer (Jetty's default 8 KB, direct memory); a join
                    // request is a few hundred bytes, and longer headers are parsed across several reads.
                    http.setInputBufferSize((int) properties.readBuffer().toBytes());
                }
            }
        });
    }
}
