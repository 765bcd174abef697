package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.server.metrics.JoinOutcome;
import io.allsum.server.metrics.RendezvousMetrics;
import io.allsum.server.rendezvous.JoinAnswer;
import io.allsum.server.rendezvous.RendezvousException;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.rendezvous.RendezvousRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Protocol v1 rendezvous endpoints (docs/protocol.md). */
@RestController
public class RendezvousController {

    private static final Duration AWAIT_SLACK = Duration.ofSeconds(60);

    private final RendezvousRegistry registry;
    private final RendezvousMetrics metrics;
    private final RendezvousProperties properties;
    private final ViewResponses views;

    public RendezvousController(RendezvousRegistry registry, RendezvousMetrics metrics,
                                RendezvousProperties properties, ViewResponses views) {
        this.registry = registry;
        this.metrics = metrics;
        this.properties = properties;
        this.views = views;
    }

    /**
     * Joins a rank. Requests run on virtual threads, so a waiting join simply parks its virtual thread on the answer
     * (no platform thread held); when the generation completes, each parked join writes the shared pre-encoded
     * view itself. An async return value would instead re-dispatch every waiter through the filters, the
     * DispatcherServlet and message conversion, which dominated the time from the last join to the last answer.
     */
    @PostMapping(path = Protocol.RENDEZVOUS_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<JoinPending> join(
            @RequestBody JoinRequest request,
            @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer waitSeconds,
            HttpServletRequest http, HttpServletResponse response) throws IOException {
        JoinAnswer answer;
        try {
            Duration wait = waitFor(waitSeconds);
            answer = await(registry.join(request, wait), wait, request);
        } catch (RuntimeException e) {
            metrics.joinAnswered(outcomeOf(e));
            throw e;
        }
        metrics.joinAnswered(outcomeOf(answer));
        return switch (answer) {
            case JoinAnswer.Complete complete -> {
                try {
                    views.write(complete.view(), http, response);
                } finally {
                    if (complete.delivery() != null) {
                        complete.delivery().answered();
                    }
                }
                yield null; // written above
            }
            case JoinAnswer.Pending pending -> ResponseEntity.status(HttpStatus.ACCEPTED)
                    .header(HttpHeaders.RETRY_AFTER, Integer.toString(pending.pending().retryAfterSeconds()))
                    .body(pending.pending());
        };
    }

    /**
     * The registry answers every parked join by its wait (with 202 at the latest); the extra slack only bounds this
     * thread should that ever fail.
     */
    private static JoinAnswer await(CompletableFuture<JoinAnswer> answer, Duration wait, JoinRequest request) {
        try {
            return answer.get(wait.plus(AWAIT_SLACK).toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("join of rank " + request.rank() + " to group '" + request.group()
                    + "' failed", e.getCause());
        } catch (TimeoutException e) {
            answer.cancel(false);
            throw new IllegalStateException("join of rank " + request.rank() + " to group '" + request.group()
                    + "' got no answer from the registry within " + wait.plus(AWAIT_SLACK), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("join of rank " + request.rank() + " to group '" + request.group()
                    + "' was interrupted while it waited (server shutting down)", e);
        }
    }

    @GetMapping(path = Protocol.GROUP_PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public GroupStatus status(@PathVariable String group) {
        return registry.status(group);
    }

    @PostMapping(path = Protocol.HEARTBEAT_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse heartbeat(@PathVariable String group, @RequestBody HeartbeatRequest request) {
        return registry.heartbeat(group, request);
    }

    @PostMapping(path = Protocol.FAILURE_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse reportFailure(@PathVariable String group, @RequestBody FailureReport report) {
        return registry.reportFailure(group, report);
    }

    @PostMapping(path = Protocol.LEAVE_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse leave(@PathVariable String group, @RequestBody LeaveRequest request) {
        return registry.leave(group, request);
    }

    @DeleteMapping(Protocol.GROUP_PATH)
    public ResponseEntity<Void> close(@PathVariable String group) {
        registry.close(group);
        return ResponseEntity.noContent().build();
    }

    private Duration waitFor(Integer waitSeconds) {
        if (waitSeconds == null) {
            return properties.defaultWait();
        }
        if (waitSeconds < 0) {
            throw RendezvousException.invalid(Protocol.WAIT_PARAM, "must not be negative, got " + waitSeconds);
        }
        Duration asked = Duration.ofSeconds(waitSeconds);
        return asked.compareTo(properties.maxWait()) > 0 ? properties.maxWait() : asked;
    }

    private static JoinOutcome outcomeOf(JoinAnswer answer) {
        return answer instanceof JoinAnswer.Complete ? JoinOutcome.COMPLETE : JoinOutcome.PENDING;
    }

    static JoinOutcome outcomeOf(Throwable error) {
        if (!(error instanceof RendezvousException e)) {
            return JoinOutcome.INVALID;
        }
        return switch (e.code()) {
            case INVALID_REQUEST, UNKNOWN_GROUP -> JoinOutcome.INVALID;
            case RANK_HELD, WORLD_SIZE_MISMATCH, BACKEND_MISMATCH, NOT_A_MEMBER -> JoinOutcome.CONFLICT;
            case STALE_UNIQUE_ID -> JoinOutcome.STALE_ID;
            case GENERATION_FAILED -> JoinOutcome.GENERATION_FAILED;
            case GROUP_CLOSED -> JoinOutcome.CLOSED;
            case GROUP_LIMIT -> JoinOutcome.GROUP_LIMIT;
        };
    }
}
