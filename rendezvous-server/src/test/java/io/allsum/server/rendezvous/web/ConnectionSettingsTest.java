package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.RendezvousServerTest;
import org.eclipse.jetty.io.RetainableByteBuffer;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The HTTP port is set up for thousands of parked joins: a deep backlog, small idle connections. */
@RendezvousServerTest
class ConnectionSettingsTest {

    @Autowired
    WebServerApplicationContext context;

    @Test
    void theConnectorTakesABurstAndKeepsIdleConnectionsSmall() {
        ServerConnector connector = (ServerConnector) ((JettyWebServer) context.getWebServer()).getServer()
                .getConnectors()[0];
        HttpConnectionFactory http = connector.getConnectionFactory(HttpConnectionFactory.class);

        assertThat(connector.getAcceptQueueSize()).isEqualTo(4096);
        assertThat(http.getInputBufferSize()).isEqualTo(1024);
        assertThat(http.getHttpConfiguration().getHeaderCacheSize()).isZero();
    }

    @Test
    void aConnectionsReadBufferTakesNoMoreThanItsSizeFromThePool() {
        ServerConnector connector = (ServerConnector) ((JettyWebServer) context.getWebServer()).getServer()
                .getConnectors()[0];
        RetainableByteBuffer buffer = connector.getByteBufferPool().acquire(1024, true);
        try {
            // Jetty's default pool hands out 4 KB for it: 48 MB more direct memory at 16,384 parked joins.
            assertThat(buffer.capacity()).isEqualTo(1024);
        } finally {
            buffer.release();
        }
    }

    @Test
    void aReadBufferOutOfRangeIsRefusedAtStartUp() {
        assertThatThrownBy(() -> new ConnectionProperties(4096, DataSize.ofBytes(100)))
                .hasMessageContaining("read-buffer must be between 512B and 1MB");
        assertThatThrownBy(() -> new ConnectionProperties(0, DataSize.ofKilobytes(2)))
                .hasMessageContaining("accept-queue must be between 1 and 65535");
    }
}
