package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.RendezvousRegistry;
import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.LeaveRequest;
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

/** Protocol v1 rendezvous endpoints but the join, which {@link JoinHandler} serves (docs/protocol.md). */
@RestController
public class RendezvousController {

    private final RendezvousRegistry registry;
    private final ViewResponses views;

    RendezvousController(RendezvousRegistry registry, ViewResponses views) {
        this.registry = registry;
        this.views = views;
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
