package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.server.web.LongPollWait;
import io.allsum.server.web.ProblemException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
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
import java.util.concurrent.CompletionException;

/** Protocol v1 rendezvous endpoints (docs/protocol.md). */
@RestController
public class RendezvousController {

    private final RendezvousRegistry registry;
    private final RendezvousProperties properties;
    private final ViewResponses views;
    private final JoinRequestValidator validator;
    private final JoinResponses answers;

    RendezvousController(RendezvousRegistry registry, RendezvousProperties properties, ViewResponses views,
                         JoinResponses answers) {
        this.registry = registry;
        this.properties = properties;
        this.views = views;
        this.answers = answers;
        this.validator = new JoinRequestValidator(properties.maxWorldSize());
    }

    /**
     * Joins a rank. A join the registry answers at once is written at once; a join that must wait is parked as a
     * servlet async request, holding no thread while it waits, and its answer is written when the generation
     * completes, fails or its wait runs out ({@link JoinResponses}). Joins are counted by outcome in one place,
     * {@link JoinMeterFilter}.
     */
    @PostMapping(path = Protocol.RENDEZVOUS_PATH, consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public void join(
            @RequestBody JoinRequest request,
            @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer waitSeconds,
            @RequestParam(name = Protocol.VIEW_PARAM, required = false) String view,
            HttpServletRequest http, HttpServletResponse response) throws IOException {
        Duration wait = LongPollWait.resolve(waitSeconds, properties.defaultWait(), properties.maxWait());
        boolean rankView = rankView(view);
        Joiner joiner = Joiner.from(request, validator);
        CompletableFuture<JoinAnswer> answer = registry.join(joiner, wait);
        if (answer.isDone()) {
            answers.write(now(answer, joiner), joiner.rank(), rankView, http, response);
        } else {
            answers.park(answer, JoinResponses.answerLimit(wait), joiner, rankView, http, response);
        }
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

    /** The answer of a completed future; its failure (a ProblemException) goes to the exception advice. */
    private static JoinAnswer now(CompletableFuture<JoinAnswer> answer, Joiner request) {
        try {
            return answer.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("join of rank " + request.rank() + " to group '" + request.group()
                    + "' failed", e.getCause());
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
