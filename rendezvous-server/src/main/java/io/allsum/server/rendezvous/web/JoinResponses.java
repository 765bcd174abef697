package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.JoinAnswer;
import io.allsum.server.rendezvous.JoinCommand;
import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.web.HttpAnswer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/** Makes a join's answer: the bytes a rank gets, and the problem a failed answer is. */
@Component
class JoinResponses {

    private static final Logger log = LoggerFactory.getLogger(JoinResponses.class);
    private static final Duration ANSWER_SLACK = Duration.ofSeconds(60);

    private final ViewResponses views;
    private final JsonMapper json;

    JoinResponses(ViewResponses views, JsonMapper json) {
        this.views = views;
        this.json = json;
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
     * How long a parked join waits for the registry: its wait plus a minute. The registry
     * answers by the wait (202 at the latest); the limit only bounds a registry that never does.
     */
    static Duration answerLimit(Duration wait) {
        return wait.plus(ANSWER_SLACK);
    }

    /** The problem a parked join gets when the registry did not answer within {@code limit}. */
    static ProblemException noAnswer(JoinCommand command, Duration limit) {
        return new ProblemException(ProblemCode.INTERNAL_ERROR, "join of rank " + command.rank() + " to group '"
                + command.group() + "' got no answer from the registry within " + limit);
    }

    /** Counts a complete answer towards its generation's delivery: it was written, or its client is gone. */
    static void delivered(JoinAnswer answer) {
        if (answer instanceof JoinAnswer.Complete complete && complete.delivery() != null) {
            complete.delivery().answered();
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
