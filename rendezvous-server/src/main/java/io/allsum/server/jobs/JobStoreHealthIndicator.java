package io.allsum.server.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Health contributor {@code jobStore}: UP while the job history database takes a write. Each check writes and
 * deletes a row in one transaction (a read alone succeeds on a full disk), so that health turns DOWN, naming the
 * error, while submissions are answered 503, and UP again as soon as the database writes again.
 */
@Component
class JobStoreHealthIndicator implements HealthIndicator {

    private static final Logger log = LoggerFactory.getLogger(JobStoreHealthIndicator.class);
    /** Below the container's health check timeout (docker/server.Dockerfile), with the pool's 5 s to connect. */
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(2);

    private final JobStore store;
    private final TransactionTemplate transaction;
    /** One probe at a time: concurrent checks share the last answer rather than queue on the database. */
    private final ReentrantLock probing = new ReentrantLock();
    private volatile Health last = Health.unknown().build();
    private volatile Instant failingSince;

    JobStoreHealthIndicator(JobStore store, PlatformTransactionManager transactions) {
        this.store = store;
        this.transaction = new TransactionTemplate(transactions);
        this.transaction.setTimeout((int) STATEMENT_TIMEOUT.toSeconds());
    }

    @Override
    public Health health() {
        try {
            if (!probing.tryLock(STATEMENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                return last;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return last;
        }
        try {
            last = probe();
            return last;
        } finally {
            probing.unlock();
        }
    }

    private Health probe() {
        try {
            transaction.executeWithoutResult(status -> store.probeWrite());
        } catch (RuntimeException e) {
            if (failingSince == null) {
                failingSince = Instant.now();
                log.warn("job history database cannot write; health DOWN until it can: {}", e.getMessage());
            }
            return Health.down(e).withDetail("since", failingSince.toString()).build();
        }
        if (failingSince != null) {
            log.info("job history database writes again (failing since {}); health UP", failingSince);
            failingSince = null;
        }
        return Health.up().build();
    }
}
