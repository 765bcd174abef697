package io.allsum.server.jobs;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

import java.time.Duration;

/**
 * {@code allsum.jobs.*}: settings of the job sequencer; the defaults here are the only place they are written
 * (docs/jobs.md, "Configuration", describes them).
 *
 * @param maxWait             the longest a worker's long-poll for the next job may wait on the server
 * @param defaultWait         how long a long-poll waits when the request names no {@code wait} (at most max-wait)
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
@Validated
@ConfigurationProperties("allsum.jobs")
public record JobsProperties(
        @NotNull @DefaultValue("60s") Duration maxWait,
        @NotNull @DefaultValue("30s") Duration defaultWait,
        @Min(1) @DefaultValue("1000") int history,
        @NotNull @DefaultValue(JobSpec.DEFAULT_TIMEOUT_SECONDS + "s") Duration defaultTimeout,
        @Min(1) @DefaultValue("" + JobSpecRules.DEFAULT_MAX_SWEEP_SIZES) int maxSweepSizes,
        @Min(1) @DefaultValue("" + JobSpecRules.DEFAULT_MAX_BYTES) long maxBytes,
        @NotNull @DefaultValue("1s") Duration sweepInterval,
        @NotNull @DefaultValue("10m") Duration retainRemovedGroups,
        @NotNull @DefaultValue("30d") Duration maxAge,
        @NotNull @DefaultValue("10m") Duration cleanupInterval) {

    public JobsProperties {
        requirePositive("max-wait", maxWait);
        requirePositive("default-timeout", defaultTimeout);
        requirePositive("sweep-interval", sweepInterval);
        requirePositive("max-age", maxAge);
        requirePositive("cleanup-interval", cleanupInterval);
        if (defaultWait != null && defaultWait.isNegative()) {
            throw new IllegalArgumentException("allsum.jobs.default-wait must not be negative, got " + defaultWait);
        }
        if (history < 1) {
            throw new IllegalArgumentException("allsum.jobs.history must be at least 1, got " + history);
        }
        if (maxSweepSizes < 1) {
            throw new IllegalArgumentException("allsum.jobs.max-sweep-sizes must be at least 1, got " + maxSweepSizes);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("allsum.jobs.max-bytes must be at least 1, got " + maxBytes);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value != null && (value.isNegative() || value.isZero())) {
            throw new IllegalArgumentException("allsum.jobs." + name + " must be positive, got " + value);
        }
    }
}
