package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.server.web.LongPollWait;
import io.allsum.server.web.ProblemException;
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
    private final RendezvousProperties properties;
    private final ViewResponses views;
    private final JoinRequestValidator validator;

    RendezvousController(RendezvousRegistry registry, RendezvousProperties properties, ViewResponses views) {
        this.registry = registry;
        this.properties = properties;
        this.views = views;
        this.validator = new JoinRequestValidator(properties.maxWorldSize());
    }

    /**
     * Joins a rank. Requests run on virtual threads, so a waiting join simply parks its virtual thread on the answer
     * (no platform thread held); when the generation completes, each parked join writes the shared pre-encoded
     * view itself. An async return value would instead re-dispatch every waiter through the filters, the
     * DispatcherServlet and message conversion, which dominated the time from the last join to the last answer.
     * Joins are counted by outcome in one place, {@link JoinMeterFilter}.
     */
    @PostMapping(path = Protocol.RENDEZVOUS_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<JoinPending> join(
            @RequestBody JoinRequest request,
            @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer waitSeconds,
            @RequestParam(name = Protocol.VIEW_PARAM, required = false) String view,
            HttpServletRequest http, HttpServletResponse response) throws IOException {
        Duration wait = LongPollWait.resolve(waitSeconds, properties.defaultWait(), properties.maxWait());
        boolean rankView = rankView(view);
        Joiner joiner = Joiner.from(request, validator);
        JoinAnswer answer = await(registry.join(joiner, wait), wait, joiner);
        return switch (answer) {
            case JoinAnswer.Complete complete -> {
                try {
                    if (rankView) {
                        views.writeRank(complete.view(), joiner.rank(), response);
                    } else {
                        views.write(complete.view(), http, response);
                    }
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

    /** {@code view=rank}: the constant-size answer; absent or {@code full}: the whole view (older clients). */
    private static boolean rankView(String view) {
        if (view == null || view.equals(Protocol.VIEW_FULL)) {
            return false;
        }
        if (view.equals(Protocol.VIEW_RANK)) {
            return true;
        }
        throw ProblemException.invalid(Protocol.VIEW_PARAM, "must be '" + Protocol.VIEW_FULL + "' or '"
                + Protocol.VIEW_RANK + "', got '" + oneLine(view) + "'");
    }

    private static String oneLine(String text) {
        String line = text.replaceAll("\\p{Cntrl}", "?");
        return line.length() > 32 ? line.substring(0, 32) + "..." : line;
    }

    /**
     * The registry answers every parked join by its wait (with 202 at the latest); the extra slack only bounds this
     * thread should that ever fail.
     */
    private static JoinAnswer await(CompletableFuture<JoinAnswer> answer, Duration wait, Joiner request) {
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
        RendezvousRequests.requireGroupName(group);
        return registry.status(group);
    }

    /**
     * The complete generation's full member list, without the unique id, encoded once per generation; 304 when
     * the client's {@code If-None-Match} already names it. {@code generation}: only that one, else 409.
     */
    @GetMapping(path = Protocol.VIEW_PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public void view(@PathVariable String group,
                     @RequestParam(name = Protocol.GENERATION_PARAM, required = false) Long generation,
                     HttpServletRequest http, HttpServletResponse response) throws IOException {
        RendezvousRequests.requireGroupName(group);
        views.writePublic(registry.completeView(group, generation), http, response);
    }

    @PostMapping(path = Protocol.HEARTBEAT_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse heartbeat(@PathVariable String group, @RequestBody HeartbeatRequest request) {
        HeartbeatRequest valid = RendezvousRequests.valid(group, request);
        return registry.heartbeat(group, valid.rank(), valid.instanceId(), valid.generation());
    }

    @PostMapping(path = Protocol.FAILURE_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse reportFailure(@PathVariable String group, @RequestBody FailureReport report) {
        FailureReport valid = RendezvousRequests.valid(group, report);
        return registry.reportFailure(group, valid.reporterRank(), valid.instanceId(), valid.generation(),
                valid.failedRank(), valid.reason());
    }

    @PostMapping(path = Protocol.LEAVE_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public HeartbeatResponse leave(@PathVariable String group, @RequestBody LeaveRequest request) {
        LeaveRequest valid = RendezvousRequests.valid(group, request);
        return registry.leave(group, valid.rank(), valid.instanceId());
    }

    @DeleteMapping(Protocol.GROUP_PATH)
    public ResponseEntity<Void> close(@PathVariable String group) {
        RendezvousRequests.requireGroupName(group);
        registry.close(group);
        return ResponseEntity.noContent().build();
    }
}
