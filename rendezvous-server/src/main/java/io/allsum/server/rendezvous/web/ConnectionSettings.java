package io.allsum.server.rendezvous.web;

import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.io.ByteBufferPool;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.jetty.JettyServerCustomizer;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.net.InetSocketAddress;

/**
 * Applies {@link ConnectionProperties} to Jetty's connectors, and keeps idle and parked connections small: every
 * waiting join is a connection, 16,384 of them at once.
 */
@Configuration(proxyBeanMethods = false)
class ConnectionSettings implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    /** Buffers above this size are not pooled (Jetty's default pool stops at 64 KB too). */
    private static final int LARGEST_POOLED_BUFFER = 64 * 1024;

    private final ConnectionProperties properties;

    ConnectionSettings(ConnectionProperties properties) {
        this.properties = properties;
    }

    /**
     * Spring Boot's Jetty factory (as its auto-configuration makes it, server customizers included), whose connectors
     * take their buffers from a pool with a bucket of exactly the read buffer's size. Jetty's default pool rounds
     * every buffer up to a multiple of 4 KB, so a parked join's 2 KB read buffer cost 4 KB of direct memory: 64 MB
     * at 16,384 waiting joins (docs/benchmarks/rendezvous.md, "Server memory at 16,384 waiting joins").
     */
    @Bean
    JettyServletWebServerFactory jettyServletWebServerFactory(ObjectProvider<JettyServerCustomizer> customizers) {
        int smallest = Integer.highestOneBit((int) properties.readBuffer().toBytes());
        ByteBufferPool pool = new ArrayByteBufferPool.Quadratic(smallest, LARGEST_POOLED_BUFFER, -1);
        JettyServletWebServerFactory factory = new JettyServletWebServerFactory() {
            @Override
            protected AbstractConnector createConnector(InetSocketAddress address, Server server) {
                return createConnector(address, server, null, null, pool);
            }
        };
        factory.getServerCustomizers().addAll(customizers.orderedStream().toList());
        return factory;
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
                // requests, and 16,384 ranks would hold 1.6 GB of caches (docs/benchmarks/rendezvous.md).
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
