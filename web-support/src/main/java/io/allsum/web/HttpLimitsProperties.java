package io.allsum.web;

import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * {@code allsum.http.*}: how many connections the HTTP port holds and how long a client may take to send its request
 * headers, the same keys on server and worker. A connection that is idle longer than
 * {@code server.jetty.connection-idle-timeout} (30 s) is closed too; parked joins are exempt from that.
 *
 * @param maxConnections           connections held at once; at the limit the port stops accepting (new ones wait in
 *                                 the listen backlog) until one closes. Well above the 16,384 joins a server parks.
 * @param maxConnectionsPerAddress connections held at once from one remote address, excess ones closed at once; 0 is
 *                                 no limit beyond {@code maxConnections}, since one host may run all ranks (a local
 *                                 run, the 16,384-rank benchmark)
 * @param headerTimeout            a new connection that has not sent a complete request header by then is closed,
 *                                 however slowly it trickles bytes
 */
@Validated
@ConfigurationProperties("allsum.http")
public record HttpLimitsProperties(@DefaultValue("32768") int maxConnections,
                                   @DefaultValue("0") int maxConnectionsPerAddress,
                                   @NotNull @DefaultValue("20s") Duration headerTimeout) {

    public HttpLimitsProperties {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("allsum.http.max-connections must be at least 1, got " + maxConnections);
        }
        if (maxConnectionsPerAddress < 0) {
            throw new IllegalArgumentException("allsum.http.max-connections-per-address must not be negative (0: no"
                    + " limit), got " + maxConnectionsPerAddress);
        }
        if (headerTimeout != null && (headerTimeout.isNegative() || headerTimeout.isZero())) {
            throw new IllegalArgumentException("allsum.http.header-timeout must be positive, got " + headerTimeout);
        }
    }
}
