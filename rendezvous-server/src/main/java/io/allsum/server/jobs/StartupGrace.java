package io.allsum.server.jobs;

import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.rendezvous.RendezvousProperties;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

import java.time.Duration;

/**
 * A server that just started holds no group: the workers of groups that lived on the previous server re-join once
 * their next heartbeat reaches it, well within one heartbeat timeout. Until then a submission to a group nobody
 * joined yet is answered 503 with {@code Retry-After} (the client retries), after it 404 unknown-group.
 */
@Component
class StartupGrace {

    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private volatile long startedNanos = System.nanoTime();
    private final Duration grace;

    @Autowired
    StartupGrace(RendezvousProperties rendezvous) {
        this(rendezvous.heartbeatTimeout());
    }

    StartupGrace(Duration grace) {
        this.grace = grace;
    }

    /** The grace counts from when the server took requests, not from when this bean was made. */
    @EventListener(ApplicationReadyEvent.class)
    void ready() {
        startedNanos = System.nanoTime();
    }

    /** The answer to a job request naming a group that has no generation on this server. */
    ProblemException unknownGroup(String group) {
        Duration up = Duration.ofNanos(System.nanoTime() - startedNanos);
        if (up.compareTo(grace) >= 0) {
            return JobProblems.unknownGroup(group);
        }
        return new ProblemException(ProblemCode.SERVICE_UNAVAILABLE, "group '" + group + "' has no members yet: the"
                + " server started " + up.toSeconds() + " s ago and its workers may still be re-joining; retry (after "
                + grace.toSeconds() + " s without members the group is unknown)").retryAfter(RETRY_AFTER);
    }
}
