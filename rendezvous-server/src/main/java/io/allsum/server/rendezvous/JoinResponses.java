package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;
import io.allsum.server.web.ProblemDetailsAdvice;
import io.allsum.server.web.HttpAnswer;
import io.allsum.server.web.ProblemException;
import io.allsum.server.web.ProblemWriter;
import jakarta.annotation.PreDestroy;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Makes a join's answer ({@link #answer}, for both join paths) and writes it on the servlet path: the joins
 * {@link JoinHandler} leaves to Spring MVC. It writes at once when the registry answered at once, else from a parked
 * request.
 *
 * <p>A parked join is a servlet async request: while it waits it holds no thread and no stack, only the container's
 * request objects (a few KB with Jetty; docs/benchmarks.md, "Rendezvous at scale"). When the registry completes its
 * answer, a short-lived virtual thread writes the pre-encoded bytes and completes the request, so thousands of answers
 * are written in parallel, and none goes through the filters or the DispatcherServlet a second time (an async
 * re-dispatch, as a {@code DeferredResult} does, cost more than the answer itself).
 */
@Component
class JoinResponses {

    private static final Logger log = LoggerFactory.getLogger(JoinResponses.class);
    private static final Duration ANSWER_SLACK = Duration.ofSeconds(60);

    private final ViewResponses views;
    private final JsonMapper json;
    private final ProblemWriter problems;
    private final ExecutorService writers = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("join-answer-", 0).factory());

    JoinResponses(ViewResponses views, JsonMapper json, ProblemWriter problems) {
        this.views = views;
        this.json = json;
        this.problems = problems;
    }

    @PreDestroy
    void stop() {
        writers.shutdown();
    }

    /** Writes an answer the registry gave at once; a failure propagates to Spring MVC's exception handling. */
    void write(JoinAnswer answer, int rank, boolean rankView, HttpServletRequest http, HttpServletResponse response)
            throws IOException {
        try {
            boolean gzip = !rankView && AcceptEncoding.allowsGzip(http.getHeaders(HttpHeaders.ACCEPT_ENCODING));
            answer(answer, rank, rankView, gzip).writeTo(response);
        } finally {
            delivered(answer);
        }
    }

    /** {@code answer} as the bytes a rank gets. */
    HttpAnswer answer(JoinAnswer answer, int rank, boolean rankView, boolean gzip) {
        return switch (answer) {
            case JoinAnswer.Complete complete ->
                    rankView ? views.rank(complete.view(), rank) : views.full(complete.view(), gzip);
            case JoinAnswer.Pending pending -> new HttpAnswer(HttpStatus.ACCEPTED.value(), List.of(
                    HttpHeaders.RETRY_AFTER, Integer.toString(pending.pending().retryAfterSeconds()),
                    HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE),
                    json.writeValueAsBytes(pending.pending()));
        };
    }

    /**
     * Parks the request until {@code answer} completes, at most {@code limit} (the registry answers by the join's
     * wait, 202 at the latest; the limit only bounds a registry that never does). Whatever ends it first (the
     * answer, the limit, a broken connection) writes the response; the rest find it taken.
     */
    void park(CompletableFuture<JoinAnswer> answer, Duration limit, Joiner joiner, boolean rankView,
              HttpServletRequest http, HttpServletResponse response) {
        AsyncContext async = http.startAsync(http, response);
        async.setTimeout(limit.toMillis());
        AtomicBoolean taken = new AtomicBoolean();
        async.addListener(new AsyncListener() {
            @Override
            public void onTimeout(AsyncEvent event) {
                if (taken.compareAndSet(false, true)) {
                    answer.cancel(false);
                    fail(http, response, noAnswer(joiner, limit));
                    async.complete();
                }
            }

            @Override
            public void onError(AsyncEvent event) {
                // The connection broke while the join waited: nobody is left to answer. The registry's answer,
                // when it comes, finds the request taken (and still counts towards delivery).
                if (taken.compareAndSet(false, true)) {
                    async.complete();
                }
            }

            @Override
            public void onComplete(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        answer.whenCompleteAsync((done, error) -> {
            if (!taken.compareAndSet(false, true)) {
                delivered(done);
                return;
            }
            try {
                if (error == null) {
                    write(done, joiner.rank(), rankView, http, response);
                } else {
                    fail(http, response, error);
                }
            } catch (IOException | RuntimeException e) {
                log.debug("answer to rank {} of group '{}' not written: {}", joiner.rank(), joiner.group(),
                        e.toString());
            } finally {
                async.complete();
            }
        }, writers);
    }

    /**
     * How long a parked join waits for the registry, whichever path parked it: its wait plus a minute. The registry
     * answers by the wait (202 at the latest); the limit only bounds a registry that never does.
     */
    static Duration answerLimit(Duration wait) {
        return wait.plus(ANSWER_SLACK);
    }

    /** The problem a parked join gets when the registry did not answer within {@code limit}. */
    static ProblemException noAnswer(Joiner joiner, Duration limit) {
        return new ProblemException(ProblemCode.INTERNAL_ERROR, "join of rank " + joiner.rank() + " to group '"
                + joiner.group() + "' got no answer from the registry within " + limit);
    }

    /** Counts a complete answer towards its generation's delivery: it was written, or its client is gone. */
    static void delivered(JoinAnswer answer) {
        if (answer instanceof JoinAnswer.Complete complete && complete.delivery() != null) {
            complete.delivery().answered();
        }
    }

    /** What Spring MVC's advice would write for {@code error}, written here because no handler runs any more. */
    private void fail(HttpServletRequest http, HttpServletResponse response, Throwable error) {
        ProblemException problem = problem(error);
        if (response.isCommitted()) {
            return;
        }
        try {
            http.setAttribute(ProblemDetailsAdvice.PROBLEM_CODE_ATTRIBUTE, problem.code());
            problems.write(http, response, problem);
        } catch (IOException | RuntimeException e) {
            log.debug("problem answer not written: {}", e.toString());
        }
    }

    /** The problem a failed join answer is: the registry's own, or a 503/500 for a cancelled or broken wait. */
    static ProblemException problem(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return switch (cause) {
            case ProblemException p -> p;
            case CancellationException c -> new ProblemException(ProblemCode.SERVICE_UNAVAILABLE,
                    "the join's wait was cancelled by the server; join again");
            default -> {
                log.error("unexpected error answering a join", cause);
                yield new ProblemException(ProblemCode.INTERNAL_ERROR, "the server failed to answer: "
                        + cause.getClass().getSimpleName());
            }
        };
    }
}
