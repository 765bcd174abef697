package io.allsum.server.rendezvous.web;

import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code allsum.rendezvous.connection.*}: how the server's HTTP connector takes connections. A generation's ranks
 * all connect at about the same moment, each with its own connection, so the listen backlog must hold a burst of
 * thousands (the JVM's default is 50; connections beyond the backlog are refused or time out).
 *
 * @param acceptQueue the listen backlog of the HTTP port (Jetty's {@code acceptQueueSize}); the kernel caps it at
 *                    {@code net.core.somaxconn}
 * @param readBuffer  each connection's read buffer (Jetty's {@code inputBufferSize}, default 8 KB), held while a
 *                    join waits: a join is 600 to 800 bytes with its headers, and longer requests are read in several
 *                    pieces (16 MB at 16,384 waiting joins, against 64 MB with Jetty's 8 KB in 4 KB pool buckets)
 */
@Validated
@ConfigurationProperties("allsum.rendezvous.connection")
public record ConnectionProperties(@DefaultValue("4096") int acceptQueue,
                                   @NotNull @DefaultValue("1KB") DataSize readBuffer) {

    public ConnectionProperties {
        if (acceptQueue < 1 || acceptQueue > 65535) {
            throw new IllegalArgumentException("allsum.rendezvous.connection.accept-queue must be between 1 and"
                    + " 65535, got " + acceptQueue);
        }
        if (readBuffer != null && (readBuffer.toBytes() < 512 || readBuffer.toBytes() > 1 << 20)) {
            throw new IllegalArgumentException("allsum.rendezvous.connection.read-buffer must be between 512B and"
                    + " 1MB, got " + readBuffer);
        }
    }
}
