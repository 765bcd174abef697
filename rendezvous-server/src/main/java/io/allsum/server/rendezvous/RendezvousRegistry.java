package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.rendezvous.GroupDecisions.Action;
import io.allsum.server.rendezvous.GroupDecisions.AnswerComplete;
import io.allsum.server.rendezvous.GroupDecisions.AnswerPending;
import io.allsum.server.rendezvous.GroupDecisions.Invalid;
import io.allsum.server.rendezvous.GroupDecisions.MarkComplete;
import io.allsum.server.rendezvous.GroupDecisions.Park;
import io.allsum.server.rendezvous.GroupDecisions.Reject;
import io.allsum.server.rendezvous.GroupDecisions.Respond;
import io.allsum.server.rendezvous.GroupTransitions.Effects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The groups by name, each behind its lock. An operation looks its group up, takes the lock, asks
 * {@link GroupDecisions} what to do, has {@link GroupTransitions} do it, and after unlocking runs the effects. Requests
 * arrive validated ({@link JoinCommand}, {@link RendezvousRequests}).
 */
@Component
public class RendezvousRegistry implements GroupDirectory {

    private static final Duration GROUP_LIMIT_RETRY = Duration.ofSeconds(5);

    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final RendezvousProperties properties;
    private final GroupDecisions decisions;
    private final GroupTransitions transitions;
    private static final Logger log = LoggerFactory.getLogger(RendezvousRegistry.class);

    RendezvousRegistry(RendezvousProperties properties, GroupTransitions transitions) {
        this.properties = properties;
        this.decisions = GroupDecisions.of(properties);
        this.transitions = transitions;
    }

    // ---- joins

    /**
     * Joins {@code command.rank()} into its group's current generation. The future completes with the group once
     * every rank is in, with where it stands when {@code wait} runs out, or exceptionally with a
     * {@link ProblemException} when the generation fails or the group closes meanwhile.
     *
     * @throws ProblemException when the join conflicts with the group
     */
    public CompletableFuture<JoinAnswer> join(JoinCommand command, Duration wait) {
        while (true) {
            Group group = groupFor(command);
            Effects effects = new Effects();
            group.lock().lock();
            try {
                if (group.isRemoved()) {
                    continue; // closed or evicted between lookup and lock: the join starts a new group
                }
                return joinLocked(group, command, wait, effects);
            } finally {
                group.lock().unlock();
                transitions.finish(group, effects);
            }
        }
    }

    private CompletableFuture<JoinAnswer> joinLocked(Group group, JoinCommand command, Duration wait, Effects effects) {
        long now = System.nanoTime();
        Optional<Reject> incompatible = decisions.incompatibility(group, command);
        if (incompatible.isPresent()) {
            throw incompatible.get().exception();
        }
        group.touch(now);
        Delivery delivery = null; // set when this join is the one that completes the generation
        while (true) {
            Action action = decisions.join(group, command, now, !wait.isZero());
            switch (action) {
                case Reject reject -> throw reject.exception();
                case AnswerComplete answer -> {
                    group.slot(command.rank()).contact(now);
                    return CompletableFuture.completedFuture(new JoinAnswer.Complete(group.view(), delivery));
                }
                case AnswerPending answer -> {
                    group.slot(command.rank()).contact(now);
                    return CompletableFuture.completedFuture(new JoinAnswer.Pending(group.pending(1, transitions.epoch())));
                }
                case Park park -> {
                    Slot slot = group.slot(command.rank());
                    slot.contact(now);
                    return transitions.park(group, slot, wait);
                }
                case MarkComplete complete -> delivery = transitions.complete(group, now, effects);
                default -> transitions.apply(group, action, now, effects);
            }
        }
    }

    private Group groupFor(JoinCommand command) {
        Group existing = groups.get(command.group());
        if (existing != null) {
            return existing;
        }
        if (groups.size() >= properties.maxGroups()) {
            throw new ProblemException(ProblemCode.GROUP_LIMIT, "the server holds its maximum of "
                    + properties.maxGroups() + " groups, so group '" + command.group() + "' cannot be created")
                    .retryAfter(GROUP_LIMIT_RETRY);
        }
        return groups.computeIfAbsent(command.group(), name -> {
            Group group = new Group(name, command.worldSize(), command.backend());
            group.openGeneration(1, System.nanoTime(), decisions.joinTimeoutNanos());
            log.info("group {} created: worldSize {}, backend {}", name, group.worldSize(), group.backend());
            return group;
        });
    }

    // ---- heartbeats, failure reports, leave, close

    public HeartbeatResponse heartbeat(String groupName, int rank, String instanceId, long generation) {
        return withGroup(groupName, (group, effects) -> {
            long now = System.nanoTime();
            group.touch(now);
            return respond(group, decisions.heartbeat(group, rank, instanceId, generation), generation, now, effects);
        });
    }

    public HeartbeatResponse reportFailure(String groupName, int reporterRank, String instanceId, long generation,
                                           int failedRank, String reason) {
        return withGroup(groupName, (group, effects) -> {
            long now = System.nanoTime();
            group.touch(now);
            Action action = decisions.reportFailure(group, reporterRank, instanceId, generation, failedRank, reason);
            return respond(group, action, generation, now, effects);
        });
    }

    public HeartbeatResponse leave(String groupName, int rank, String instanceId) {
        return withGroup(groupName, (group, effects) -> {
            long now = System.nanoTime();
            group.touch(now);
            return respond(group, decisions.leave(group, rank, instanceId), group.generation(), now, effects);
        });
    }

    private HeartbeatResponse respond(Group group, Action action, long askedGeneration, long now, Effects effects) {
        switch (action) {
            case Reject reject -> throw reject.exception();
            case Invalid invalid -> throw invalid.exception();
            case Respond respond -> {
            }
            default -> transitions.apply(group, action, now, effects);
        }
        String reason = group.failureReason() != null ? group.failureReason()
                : askedGeneration < group.generation() ? group.lastFailureReason() : null;
        return new HeartbeatResponse(group.name(), group.generation(), group.state(), reason, transitions.epoch());
    }

    /** Closes and removes a group: parked joins are answered 410, listeners get {@link GroupRemoved}. */
    public void close(String groupName) {
        Group group = groups.remove(groupName);
        if (group == null) {
            throw unknownGroup(groupName);
        }
        Effects effects = new Effects();
        group.lock().lock();
        try {
            transitions.apply(group, new GroupDecisions.Remove("closed by request"), System.nanoTime(), effects);
        } finally {
            group.lock().unlock();
            transitions.finish(group, effects);
        }
        log.info("group {} closed", groupName);
    }

    // ---- status and directory

    public GroupStatus status(String groupName) {
        return withGroup(groupName, (group, effects) -> group.status(System.nanoTime(), transitions.epoch()));
    }

    /** Every group's status, by name (the dashboard's list); a group removed meanwhile is left out. */
    public List<GroupStatus> statuses() {
        long now = System.nanoTime();
        return groups.keySet().stream().sorted()
                .map(name -> read(name, group -> group.isRemoved() ? null : group.status(now, transitions.epoch())))
                .flatMap(Optional::stream).toList();
    }

    /**
     * The complete generation's view, for {@code GET /rendezvous/{group}/view}.
     *
     * @param generation the generation the caller wants, or null for whichever is complete
     * @throws ProblemException 404 for an unknown group; 409 when no generation (or not that one) is complete
     */
    public EncodedView completeView(String groupName, Long generation) {
        return withGroup(groupName, (group, effects) -> {
            if (group.state() != GenerationState.COMPLETE || group.view() == null) {
                throw new ProblemException(ProblemCode.CONFLICT, "generation " + group.generation()
                        + " of group '" + group.name() + "' is " + group.state().name().toLowerCase(Locale.ROOT)
                        + ": there is no complete view");
            }
            if (generation != null && generation != group.generation()) {
                throw new ProblemException(ProblemCode.CONFLICT, "generation " + generation + " of group '"
                        + group.name() + "' is over; generation " + group.generation() + " is complete");
            }
            return group.view();
        });
    }

    @Override
    public Optional<CurrentGeneration> current(String groupName) {
        return read(groupName, group -> group.isRemoved() ? null : new CurrentGeneration(group.name(),
                group.generation(), group.state(), group.worldSize(), group.backend()));
    }

    @Override
    public boolean isMember(String groupName, int rank, String instanceId) {
        return instanceId != null && read(groupName, group -> group.isLiveMember(rank, instanceId) ? true : null)
                .isPresent();
    }

    /** Joins parked on the server, in all groups. */
    public int waitingJoins() {
        return transitions.waitingJoins();
    }

    /** Groups held by the server. */
    public int groupCount() {
        return groups.size();
    }

    /** Joins parked on the server for one group; 0 for an unknown group. */
    public int parkedJoins(String groupName) {
        return read(groupName, Group::waiterCount).orElse(0);
    }

    // ---- the sweep

    /** One pass over every group: join deadlines, silent members, idle groups. */
    void sweep() {
        for (Group group : groups.values()) {
            Effects effects = new Effects();
            group.lock().lock();
            try {
                if (!group.isRemoved()) {
                    sweepLocked(group, System.nanoTime(), effects);
                }
            } finally {
                group.lock().unlock();
                transitions.finish(group, effects);
            }
        }
    }

    private void sweepLocked(Group group, long now, Effects effects) {
        for (Action action : decisions.sweep(group, now)) {
            transitions.apply(group, action, now, effects);
        }
        decisions.eviction(group, now).ifPresent(eviction -> {
            groups.remove(group.name(), group);
            transitions.apply(group, eviction, now, effects);
            log.info("group {} {}", group.name(), eviction.why());
        });
    }

    private static ProblemException unknownGroup(String groupName) {
        return new ProblemException(ProblemCode.UNKNOWN_GROUP, "group '" + groupName + "' does not exist");
    }

    // ---- locking

    private <T> T withGroup(String groupName, BiFunction<Group, Effects, T> action) {
        Group group = groups.get(groupName);
        if (group == null) {
            throw unknownGroup(groupName);
        }
        Effects effects = new Effects();
        group.lock().lock();
        try {
            if (group.isRemoved()) {
                throw unknownGroup(groupName);
            }
            return action.apply(group, effects);
        } finally {
            group.lock().unlock();
            transitions.finish(group, effects);
        }
    }

    private <T> Optional<T> read(String groupName, java.util.function.Function<Group, T> reader) {
        Group group = groupName == null ? null : groups.get(groupName);
        if (group == null) {
            return Optional.empty();
        }
        group.lock().lock();
        try {
            return Optional.ofNullable(reader.apply(group));
        } finally {
            group.lock().unlock();
        }
    }
}
