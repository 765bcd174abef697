package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.server.metrics.JoinOutcome;
import io.allsum.server.metrics.RendezvousMetrics;
import io.allsum.server.rendezvous.JoinAnswer;
import io.allsum.server.rendezvous.RendezvousException;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.rendezvous.RendezvousRegistry;
import jakarta.servlet.http.HttpServletRequest;
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
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Protocol v1 rendezvous endpoints (docs/protocol.md). */
@RestController
public class RendezvousController {

    private final RendezvousRegistry registry;
    private final RendezvousMetrics metrics;
    private final RendezvousProperties properties;
    private final JsonMapper json;

    public RendezvousController(RendezvousRegistry registry, RendezvousMetrics metrics,
                                RendezvousProperties properties, JsonMapper json) {
        this.registry = registry;
        this.metrics = metrics;
        this.properties = properties;
        this.json = json;
    }

    /**
     * Joins a rank. The answer is asynchronous: the request holds no thread while it waits for the other ranks.
     */
    @PostMapping(path = Protocol.RENDEZVOUS_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public CompletableFuture<ResponseEntity<Object>> join(
            @RequestBody JoinRequest request,
            @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer waitSeconds,
            HttpServletRequest http) {
        CompletableFuture<JoinAnswer> answer;
        try {
            answer = registry.join(request, waitFor(waitSeconds));
        } catch (RendezvousException e) {
            metrics.joinAnswered(outcomeOf(e));
            throw e;
        }
        return answer.whenComplete((done, error) -> metrics.joinAnswered(done != null ? outcomeOf(done)
                        : outcomeOf(error instanceof CompletionException c ? c.getCause() : error)))
                .thenApply(done -> toResponse(done, http));
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

    private ResponseEntity<Object> toResponse(JoinAnswer answer, HttpServletRequest http) {
        return switch (answer) {
            case JoinAnswer.Complete complete -> {
                if (complete.delivery() != null) {
                    http.setAttribute(DeliveryInterceptor.ATTRIBUTE, complete.delivery());
                }
                // The same bytes for every rank: encoding an O(worldSize) body per rank would be O(worldSize^2).
                yield ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                        .body(complete.view().bytes(json::writeValueAsBytes));
            }
            case JoinAnswer.Pending pending -> ResponseEntity.status(HttpStatus.ACCEPTED)
                    .header(HttpHeaders.RETRY_AFTER, Integer.toString(pending.pending().retryAfterSeconds()))
                    .body(pending.pending());
        };
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
