package io.allsum.worker.jobs;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.problem.ProblemCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Delivers this rank's job reports until the server takes them, so that a result survives a server restart or a
 * network blip. The first attempt runs on the caller's thread (the usual case costs nothing more); a report that
 * could not be delivered is retried on a virtual thread with exponential backoff and jitter until the server takes
 * it, answers that the job is gone (unknown job or group), refuses it for good (invalid, unauthorized, a job
 * conflict, not a member), or
 * {@link Settings#deadline()} passes. At most {@link Settings#maxPending()} reports wait at once.
 */
public final class ReportDelivery implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReportDelivery.class);
    /** The job or its group is gone; the generic codes stand for answers that carried no code of their own. */
    private static final Set<ProblemCode> GONE = EnumSet.of(ProblemCode.UNKNOWN_JOB, ProblemCode.UNKNOWN_GROUP,
            ProblemCode.GROUP_CLOSED, ProblemCode.NOT_FOUND, ProblemCode.GONE);
    /** No retry changes these: invalid (or forbidden) report, bad token, too large, not this job's generation. */
    private static final Set<ProblemCode> REFUSED = EnumSet.of(ProblemCode.INVALID_REQUEST, ProblemCode.UNAUTHORIZED,
            ProblemCode.BODY_TOO_LARGE, ProblemCode.JOB_CONFLICT, ProblemCode.NOT_A_MEMBER, ProblemCode.CONFLICT);

    /**
     * @param initialBackoff the pause ceiling before the first retry; doubled per retry up to {@code maxBackoff}
     * @param maxBackoff     the largest pause between two attempts
     * @param deadline       how long after the first attempt a report is still retried
     * @param maxPending     reports retried at once; one more is dropped with a warning
     */
    public record Settings(Duration initialBackoff, Duration maxBackoff, Duration deadline, int maxPending) {
        /** A server restart takes seconds to a minute; ten minutes covers a slow one without waiting forever. */
        public static final Settings DEFAULT =
                new Settings(Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofMinutes(10), 256);

        public Settings {
            Objects.requireNonNull(initialBackoff, "initialBackoff");
            Objects.requireNonNull(maxBackoff, "maxBackoff");
            Objects.requireNonNull(deadline, "deadline");
            if (initialBackoff.isNegative() || initialBackoff.isZero() || maxBackoff.compareTo(initialBackoff) < 0) {
                throw new IllegalArgumentException("backoff must be 0 < initial <= max, was " + initialBackoff
                        + " .. " + maxBackoff);
            }
            if (deadline.isNegative() || maxPending < 1) {
                throw new IllegalArgumentException("deadline must be >= 0 and maxPending >= 1, was " + deadline
                        + " and " + maxPending);
            }
        }
    }

    /** How a delivery ended. */
    public enum Outcome {
        /** The server took the report. */
        DELIVERED,
        /** The server no longer knows the job (404, 410): nothing left to report to. */
        GONE,
        /** The server refused the report for good (a 4xx that no retry changes). */
        REFUSED,
        /** The deadline passed, too many reports were pending, or the worker is stopping. */
        GAVE_UP
    }

    private final AllsumClient client;
    private final Settings settings;
    private final ExecutorService retries = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("allsum-report-retry-", 0).factory());
    private final Semaphore pending;

    public ReportDelivery(AllsumClient client, Settings settings) {
        this.client = client;
        this.settings = settings;
        this.pending = new Semaphore(settings.maxPending());
    }

    /** Delivers {@code report} for {@code jobId}; the future completes once the delivery ended, one way or another. */
    public CompletableFuture<Outcome> deliver(String group, String jobId, RankReport report) {
        long deadline = System.nanoTime() + settings.deadline().toNanos();
        Attempt first = attempt(group, jobId, report);
        if (first.outcome() != null) {
            return CompletableFuture.completedFuture(first.outcome());
        }
        if (!pending.tryAcquire()) {
            log.warn("Report of rank {} on job {} dropped: {} reports already wait for the server (last error: {})",
                    report.rank(), jobId, settings.maxPending(), first.error());
            return CompletableFuture.completedFuture(Outcome.GAVE_UP);
        }
        log.warn("Report of rank {} on job {} not delivered yet ({}); retrying for up to {}", report.rank(), jobId,
                first.error(), settings.deadline());
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        try {
            retries.execute(() -> {
                try {
                    outcome.complete(retry(group, jobId, report, deadline));
                } finally {
                    pending.release();
                }
            });
        } catch (RuntimeException stopped) {
            pending.release();
            log.warn("Report of rank {} on job {} not delivered: the worker is stopping", report.rank(), jobId);
            outcome.complete(Outcome.GAVE_UP);
        }
        return outcome;
    }

    private Outcome retry(String group, String jobId, RankReport report, long deadline) {
        String lastError = "";
        for (int retry = 0; ; retry++) {
            long ceiling = Math.min(settings.maxBackoff().toNanos(),
                    settings.initialBackoff().toNanos() << Math.min(retry, 20));
            // Full jitter: every rank of a group lost the same server at once; they must not all come back together.
            long pause = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
            if (System.nanoTime() + pause - deadline > 0) {
                log.warn("Report of rank {} on job {} not delivered within {}; giving up (last error: {})",
                        report.rank(), jobId, settings.deadline(), lastError);
                return Outcome.GAVE_UP;
            }
            try {
                Thread.sleep(Duration.ofNanos(pause));
            } catch (InterruptedException e) {
                log.warn("Report of rank {} on job {} not delivered: the worker is stopping", report.rank(), jobId);
                return Outcome.GAVE_UP;
            }
            Attempt attempt = attempt(group, jobId, report);
            if (attempt.outcome() != null) {
                if (attempt.outcome() == Outcome.DELIVERED) {
                    log.info("Report of rank {} on job {} delivered after {} retries", report.rank(), jobId, retry + 1);
                }
                return attempt.outcome();
            }
            lastError = attempt.error();
        }
    }

    private record Attempt(Outcome outcome, String error) {
    }

    /** One call: an outcome when the delivery is over, else the error to retry after. */
    private Attempt attempt(String group, String jobId, RankReport report) {
        try {
            client.report(group, jobId, report);
            return new Attempt(Outcome.DELIVERED, null);
        } catch (AllsumClientException e) {
            if (e.code().map(GONE::contains).orElse(false)) {
                log.info("Report of rank {} on job {} not needed: the server answered {} ({})", report.rank(), jobId,
                        e.status(), e.getMessage());
                return new Attempt(Outcome.GONE, null);
            }
            if (e.code().map(REFUSED::contains).orElse(false)) {
                log.warn("Report of rank {} on job {} refused: {}", report.rank(), jobId, e.getMessage());
                return new Attempt(Outcome.REFUSED, null);
            }
            return new Attempt(null, e.getMessage());
        } catch (RuntimeException e) {
            return new Attempt(null, e.toString());
        }
    }

    /** Stops retrying: pending reports end GAVE_UP (each logged). */
    @Override
    public void close() {
        retries.shutdownNow();
    }
}
