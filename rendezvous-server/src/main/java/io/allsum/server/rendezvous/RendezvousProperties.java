package io.allsum.server.rendezvous;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * {@code allsum.rendezvous.*}: waits, timeouts and limits of the rendezvous (docs/protocol.md, "Timeouts").
 *
 * @param defaultWait      how long a join waits on the server when the request names no {@code wait}
 * @param maxWait          the cap on a join's {@code wait}
 * @param heartbeatTimeout a member of a complete generation silent this long fails the generation
 * @param joinTimeout      a generation not complete this long after its first join fails
 * @param maxGroups        groups held at once; a join that would create one more is answered 503
 * @param maxWorldSize     the largest accepted worldSize
 * @param idleEviction     a group nobody has contacted this long, with no waiting join, is removed
 * @param maxBodySize      request bodies above this are answered 413
 * @param sweepInterval    how often deadlines and heartbeats are checked; null derives it from the timeouts
 * @param bodyTimeout      a join whose body has not all arrived this long after its headers is answered 408
 */
@Validated
@ConfigurationProperties("allsum.rendezvous")
public record RendezvousProperties(
        @NotNull @DefaultValue("30s") Duration defaultWait,
        @NotNull @DefaultValue("300s") Duration maxWait,
        @NotNull @DefaultValue("10s") Duration heartbeatTimeout,
        @NotNull @DefaultValue("300s") Duration joinTimeout,
        @Min(1) @DefaultValue("10000") int maxGroups,
        @Min(1) @Max(1 << 24) @DefaultValue("65536") int maxWorldSize,
        @NotNull @DefaultValue("10m") Duration idleEviction,
        @NotNull @DefaultValue("64KB") DataSize maxBodySize,
        Duration sweepInterval,
        @NotNull @DefaultValue("10s") Duration bodyTimeout) {

    public RendezvousProperties {
        requirePositive("heartbeat-timeout", heartbeatTimeout);
        requirePositive("join-timeout", joinTimeout);
        requirePositive("idle-eviction", idleEviction);
        requirePositive("max-wait", maxWait);
        if (defaultWait != null && (defaultWait.isNegative() || (maxWait != null && defaultWait.compareTo(maxWait) > 0))) {
            throw new IllegalArgumentException("allsum.rendezvous.default-wait must be between 0 and max-wait ("
                    + maxWait + "), got " + defaultWait);
        }
        if (maxBodySize != null && maxBodySize.toBytes() < 1024) {
            throw new IllegalArgumentException("allsum.rendezvous.max-body-size must be at least 1KB, got " + maxBodySize);
        }
        requirePositive("body-timeout", bodyTimeout);
        if (sweepInterval != null) {
            requirePositive("sweep-interval", sweepInterval);
        }
    }

    /** The sweep interval: configured, or a fifth of the shortest timeout, between 20 ms and 1 s. */
    public Duration effectiveSweepInterval() {
        requirePositive("body-timeout", bodyTimeout);
        if (sweepInterval != null) {
            return sweepInterval;
        }
        Duration shortest = heartbeatTimeout.compareTo(joinTimeout) < 0 ? heartbeatTimeout : joinTimeout;
        long millis = Math.clamp(shortest.toMillis() / 5, 20, 1000);
        return Duration.ofMillis(millis);
    }

    private static void requirePositive(String name, Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new IllegalArgumentException("allsum.rendezvous." + name + " must be positive, got " + value);
        }
    }
}
