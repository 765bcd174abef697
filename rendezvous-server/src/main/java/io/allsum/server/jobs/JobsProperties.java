package io.allsum.server.jobs;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Settings of the job sequencer ({@code allsum.jobs.*}); every one has a default here so that the server runs with
 * no configuration at all.
 *
 * @param maxWait             the longest a worker's long-poll for the next job may wait on the server
 * @param defaultWait         how long a long-poll waits when the request names no {@code wait}
 * @param history             jobs kept per group; the oldest finished ones are dropped beyond it
 * @param defaultTimeout      a job's deadline after dispatch when its spec names no {@code timeoutSeconds}
 * @param maxSweepSizes       the most sizes one sweep may have
 * @param maxBytes            the largest size a job may ask for
 * @param sweepInterval       how often running jobs are checked against their deadline
 * @param retainRemovedGroups how long the queue of a closed or evicted group stays in memory (its jobs stay in the
 *                            history database, under the retention below)
 * @param maxAge              ended jobs older than this are deleted from the history
 * @param cleanupInterval     how often the retention (history per group, max age) is enforced
 */
@ConfigurationProperties("allsum.jobs")
public record JobsProperties(Duration maxWait, Duration defaultWait, Integer history, Duration defaultTimeout,
                             Integer maxSweepSizes, Long maxBytes, Duration sweepInterval,
                             Duration retainRemovedGroups, Duration maxAge, Duration cleanupInterval) {

    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);
    public static final int DEFAULT_HISTORY = 1000;
    public static final int DEFAULT_MAX_SWEEP_SIZES = 64;
    public static final long DEFAULT_MAX_BYTES = 64L << 30;
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_RETAIN_REMOVED_GROUPS = Duration.ofMinutes(10);
    public static final Duration DEFAULT_MAX_AGE = Duration.ofDays(30);
    public static final Duration DEFAULT_CLEANUP_INTERVAL = Duration.ofMinutes(10);

    public JobsProperties {
        maxWait = positive(maxWait, DEFAULT_MAX_WAIT, "max-wait");
        defaultWait = defaultWait != null ? defaultWait : DEFAULT_WAIT;
        if (defaultWait.isNegative() || defaultWait.compareTo(maxWait) > 0) {
            defaultWait = maxWait;
        }
        history = history != null ? history : DEFAULT_HISTORY;
        if (history < 1) {
            throw new IllegalArgumentException("allsum.jobs.history must be at least 1, was " + history);
        }
        defaultTimeout = positive(defaultTimeout, Duration.ofSeconds(io.allsum.model.jobs.JobSpec.DEFAULT_TIMEOUT_SECONDS),
                "default-timeout");
        maxSweepSizes = maxSweepSizes != null ? maxSweepSizes : DEFAULT_MAX_SWEEP_SIZES;
        if (maxSweepSizes < 1) {
            throw new IllegalArgumentException("allsum.jobs.max-sweep-sizes must be at least 1, was " + maxSweepSizes);
        }
        maxBytes = maxBytes != null ? maxBytes : DEFAULT_MAX_BYTES;
        if (maxBytes < 1) {
            throw new IllegalArgumentException("allsum.jobs.max-bytes must be at least 1, was " + maxBytes);
        }
        sweepInterval = positive(sweepInterval, DEFAULT_SWEEP_INTERVAL, "sweep-interval");
        retainRemovedGroups = retainRemovedGroups != null ? retainRemovedGroups : DEFAULT_RETAIN_REMOVED_GROUPS;
        maxAge = positive(maxAge, DEFAULT_MAX_AGE, "max-age");
        cleanupInterval = positive(cleanupInterval, DEFAULT_CLEANUP_INTERVAL, "cleanup-interval");
    }

    /** Every default. */
    public static JobsProperties defaults() {
        return new JobsProperties(null, null, null, null, null, null, null, null, null, null);
    }

    private static Duration positive(Duration value, Duration fallback, String name) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("allsum.jobs." + name + " must be positive, was " + value);
        }
        return value;
    }
}
