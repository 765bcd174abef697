package io.allsum.server.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One scheduled thread for the whole server: ends running jobs at their deadline (every {@code sweep-interval}) and
 * enforces the history's retention (at startup, then every {@code cleanup-interval}).
 */
@Component
class JobDeadlineSweeper implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(JobDeadlineSweeper.class);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("allsum-job-deadlines").daemon().factory());

    JobDeadlineSweeper(JobService jobs, JobsProperties properties) {
        long periodMillis = Math.max(1, properties.sweepInterval().toMillis());
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                jobs.sweep();
            } catch (RuntimeException e) {
                // A failed sweep must not cancel the schedule: later sweeps still enforce every deadline.
                log.error("job deadline sweep failed", e);
            }
        }, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        long cleanupMillis = Math.max(1, properties.cleanupInterval().toMillis());
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                jobs.cleanUp();
            } catch (RuntimeException e) {
                log.error("job history cleanup failed (retried in {} ms)", cleanupMillis, e);
            }
        }, 0, cleanupMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void destroy() {
        scheduler.shutdownNow();
    }
}
