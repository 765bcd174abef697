package io.allsum.server.dashboard;

import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.server.jobs.JobService;
import io.allsum.server.rendezvous.RendezvousRegistry;
import io.allsum.server.rendezvous.ServerEpoch;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one read model the page needs beyond the protocol's own APIs: the list of groups. Everything else (a group's
 * jobs, a job, submitting one) the page reads from the job API itself, so it shows what any client sees.
 */
@RestController
class DashboardController {

    private final RendezvousRegistry registry;
    private final JobService jobs;
    private final ServerEpoch epoch;

    DashboardController(RendezvousRegistry registry, JobService jobs, ServerEpoch epoch) {
        this.registry = registry;
        this.jobs = jobs;
        this.epoch = epoch;
    }

    @GetMapping(path = DashboardPaths.GROUPS, produces = MediaType.APPLICATION_JSON_VALUE)
    DashboardGroups groups() {
        List<GroupStatus> live = registry.statuses();
        Set<String> liveNames = live.stream().map(GroupStatus::group).collect(Collectors.toSet());
        List<String> history;
        try {
            history = jobs.groupsWithHistory().stream().filter(name -> !liveNames.contains(name)).toList();
        } catch (ResponseStatusException e) {
            // The live groups are worth showing while the history database is away.
            history = List.of();
        }
        return new DashboardGroups(epoch.id(), live, history);
    }
}
