package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.server.problem.ProblemException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The rendezvous rules as pure decisions: each looks at a {@link Group}'s plain state and a request (or the clock)
 * and returns the next {@link Action}; it changes nothing. {@link GroupTransitions} applies the action; a join asks
 * again until the answer is terminal (answer, park or reject), so one step never both decides and mutates.
 */
final class GroupDecisions {

    private static final int MAX_NAMED_SILENT_MEMBERS = 8;

    /** What to do next. GroupTransitions applies the non-terminal ones and asks again. */
    sealed interface Action {
    }

    /** Refuse the request with this problem; the group is unchanged. */
    record Reject(ProblemCode code, String detail, Duration retryAfter) implements Action {
        ProblemException exception() {
            ProblemException e = new ProblemException(code, detail);
            if (retryAfter != null) {
                e.retryAfter(retryAfter);
            }
            return e;
        }
    }

    /** Refuse the request as invalid (400) naming the field; the group is unchanged. */
    record Invalid(String field, String message) implements Action {
        ProblemException exception() {
            return ProblemException.invalid(field, message);
        }
    }

    /** Fail the current generation: parked joins get 409 generation-failed. */
    record FailGeneration(FailureCause cause, String what, List<Integer> silentRanks) implements Action {
        FailGeneration(FailureCause cause, String what) {
            this(cause, what, List.of());
        }
    }

    /** Open generation {@code number}, empty. */
    record OpenGeneration(long number) implements Action {
    }

    /**
     * Give the joining generation a higher number: a returning member belonged to generation {@code number - 1} of
     * an earlier server incarnation, and its peers only accept generations above the ones they saw.
     */
    record RaiseGeneration(long number) implements Action {
    }

    /** Drop a rank's holder from the joining generation (it went away, or another instance replaces it). */
    record DropSlot(int rank, String why) implements Action {
    }

    /** A member leaves the joining generation: drop it and answer its own parked joins. */
    record Withdraw(int rank) implements Action {
    }

    /** Take the command's rank in the joining generation. */
    record AddToParticipants(JoinCommand command) implements Action {
    }

    /** Every rank is in: complete the generation and answer every parked join. */
    record MarkComplete() implements Action {
    }

    /** Remove the group: parked joins get 410, listeners learn it. */
    record Remove(String why) implements Action {
    }

    /** Record contact from a member. */
    record Touch(int rank) implements Action {
    }

    /** Terminal: answer 200 with the complete generation. */
    record AnswerComplete() implements Action {
    }

    /** Terminal: answer 202 with where the generation stands. */
    record AnswerPending() implements Action {
    }

    /** Terminal: park the join until the generation completes, fails or the wait runs out. */
    record Park() implements Action {
    }

    /** Terminal: nothing to change, answer with the group's state. */
    record Respond() implements Action {
    }

    private final long heartbeatTimeoutNanos;
    private final long joinTimeoutNanos;
    private final long idleEvictionNanos;

    GroupDecisions(Duration heartbeatTimeout, Duration joinTimeout, Duration idleEviction) {
        this.heartbeatTimeoutNanos = heartbeatTimeout.toNanos();
        this.joinTimeoutNanos = joinTimeout.toNanos();
        this.idleEvictionNanos = idleEviction.toNanos();
    }

    static GroupDecisions of(RendezvousProperties properties) {
        return new GroupDecisions(properties.heartbeatTimeout(), properties.joinTimeout(), properties.idleEviction());
    }

    long heartbeatTimeoutNanos() {
        return heartbeatTimeoutNanos;
    }

    long joinTimeoutNanos() {
        return joinTimeoutNanos;
    }

    // ---- join

    /** A join whose worldSize or backend differ from the group's is refused before it touches anything. */
    Optional<Reject> incompatibility(Group group, JoinCommand command) {
        if (command.worldSize() != group.worldSize()) {
            return Optional.of(new Reject(ProblemCode.WORLD_SIZE_MISMATCH, "worldSize " + command.worldSize()
                    + " differs from group '" + group.name() + "', which has worldSize " + group.worldSize(), null));
        }
        if (command.backend() != group.backend()) {
            return Optional.of(new Reject(ProblemCode.BACKEND_MISMATCH, "backend " + command.backend()
                    + " differs from group '" + group.name() + "', which uses backend " + group.backend(), null));
        }
        return Optional.empty();
    }

    /**
     * The next step of a join.
     *
     * @param mayWait false when the join asked for {@code wait=0}: answer pending instead of parking
     */
    Action join(Group group, JoinCommand command, long now, boolean mayWait) {
        int rank = command.rank();
        switch (group.state()) {
            case FAILED -> {
                return new OpenGeneration(Math.addExact(Math.max(group.generation(), command.lastGeneration()), 1));
            }
            case COMPLETE -> {
                Slot holder = group.slot(rank);
                if (holder.heldBy(command.instanceId())) {
                    return new AnswerComplete();
                }
                if (holder.isAlive(now, heartbeatTimeoutNanos)) {
                    return rankHeld(group, holder, command, now);
                }
                return new FailGeneration(FailureCause.HEARTBEAT_TIMEOUT, holder.describe() + " sent no heartbeat for "
                        + seconds(holder.silentNanos(now)) + " and instance " + command.instanceId()
                        + " joined for its rank", List.of(rank));
            }
            case JOINING -> {
                if (command.lastGeneration() >= group.generation()) {
                    return new RaiseGeneration(Math.addExact(command.lastGeneration(), 1));
                }
                Slot slot = group.slot(rank);
                if (slot != null && !slot.heldBy(command.instanceId())) {
                    if (slot.isAlive(now, heartbeatTimeoutNanos)) {
                        return rankHeld(group, slot, command, now);
                    }
                    return new DropSlot(rank, "replaced by instance " + command.instanceId());
                }
                if (slot == null) {
                    if (command.uniqueId() != null && group.wasUsed(command.uniqueId())) {
                        return new Reject(ProblemCode.STALE_UNIQUE_ID, "uniqueId from rank 0 is stale: it was "
                                + "handed out in an earlier generation of group '" + group.name() + "'; an NCCL id "
                                + "is single-use, so call ncclGetUniqueId again for generation "
                                + group.generation(), null);
                    }
                    return new AddToParticipants(command);
                }
                if (group.isFull()) {
                    return new MarkComplete();
                }
                return mayWait ? new Park() : new AnswerPending();
            }
            default -> throw new IllegalStateException("join decided on a removed group " + group);
        }
    }

    private Reject rankHeld(Group group, Slot holder, JoinCommand command, long now) {
        return new Reject(ProblemCode.RANK_HELD, "rank " + holder.rank() + " of group '" + group.name()
                + "' generation " + group.generation() + " is held by live instance " + holder.instanceId()
                + ", not " + command.instanceId() + "; a holder is dropped after " + seconds(heartbeatTimeoutNanos)
                + " without contact",
                Duration.ofNanos(Math.max(heartbeatTimeoutNanos - holder.silentNanos(now), 0)));
    }

    // ---- heartbeat, failure report, leave

    Action heartbeat(Group group, int rank, String instanceId, long generation) {
        if (generation != group.generation()) {
            return new Respond();
        }
        Slot slot = group.slot(rank);
        if (slot != null && slot.heldBy(instanceId)) {
            return new Touch(rank);
        }
        return group.state() == GenerationState.FAILED ? new Respond() : notAMember(group, rank, instanceId);
    }

    Action reportFailure(Group group, int reporterRank, String instanceId, long generation, int failedRank,
                         String reason) {
        boolean current = generation == group.generation()
                && (group.state() == GenerationState.JOINING || group.state() == GenerationState.COMPLETE);
        if (!current) {
            return new Respond(); // that generation is already over
        }
        if (failedRank < 0 || failedRank >= group.worldSize()) {
            return new Invalid("failedRank", "must be between 0 and " + (group.worldSize() - 1) + ", got "
                    + failedRank);
        }
        Slot reporter = group.slot(reporterRank);
        if (reporter == null || !reporter.heldBy(instanceId)) {
            return notAMember(group, reporterRank, instanceId);
        }
        Slot failed = group.slot(failedRank);
        String who = failed == null ? "rank " + failedRank + " (not joined)" : failed.describe();
        String because = reason == null || reason.isBlank() ? "" : ": " + oneLine(reason);
        return new FailGeneration(FailureCause.REPORTED_FAILURE, who + " was reported failed by rank " + reporterRank
                + because);
    }

    Action leave(Group group, int rank, String instanceId) {
        Slot slot = group.slot(rank);
        if (slot == null || !slot.heldBy(instanceId)) {
            return new Respond(); // not a member (any more): leaving is idempotent
        }
        return switch (group.state()) {
            case COMPLETE -> new FailGeneration(FailureCause.MEMBER_LEFT, slot.describe() + " left");
            case JOINING -> new Withdraw(rank);
            default -> new Respond();
        };
    }

    private static Reject notAMember(Group group, int rank, String instanceId) {
        Slot slot = group.slot(rank);
        return new Reject(ProblemCode.NOT_A_MEMBER, "instance " + instanceId + " does not hold rank " + rank
                + " in generation " + group.generation() + " of group '" + group.name() + "'"
                + (slot == null ? "" : "; instance " + slot.instanceId() + " does"), null);
    }

    // ---- the sweeper

    /** What one sweep does to a group's generation: join deadline, silent members. Empty when nothing is due. */
    List<Action> sweep(Group group, long now) {
        List<Action> actions = new ArrayList<>();
        if (group.state() == GenerationState.JOINING) {
            if (group.deadlinePassed(now)) {
                actions.add(new FailGeneration(FailureCause.JOIN_DEADLINE, "not complete by its join deadline ("
                        + seconds(joinTimeoutNanos) + " after it opened); missing ranks "
                        + RankRanges.describe(group.missingRanks()) + ", " + group.joinedCount() + " of "
                        + group.worldSize() + " joined"));
            } else {
                // A joined rank that neither waits nor calls any more has gone away: free its rank.
                for (Slot slot : group.slots()) {
                    if (!slot.isAlive(now, heartbeatTimeoutNanos)) {
                        actions.add(new DropSlot(slot.rank(), "not heard from for " + seconds(slot.silentNanos(now))));
                    }
                }
            }
        } else if (group.state() == GenerationState.COMPLETE) {
            List<Slot> silent = group.slots().stream()
                    .filter(slot -> slot.silentNanos(now) > heartbeatTimeoutNanos).toList();
            if (!silent.isEmpty()) {
                actions.add(new FailGeneration(FailureCause.HEARTBEAT_TIMEOUT, describeSilent(silent, now)
                        + " (heartbeat timeout " + seconds(heartbeatTimeoutNanos) + ")",
                        silent.stream().map(Slot::rank).toList()));
            }
        }
        return actions;
    }

    /** A group nobody has contacted for the idle-eviction time, with no parked join, goes (asked after the sweep). */
    Optional<Remove> eviction(Group group, long now) {
        if (!group.hasWaiters() && group.idleNanos(now) > idleEvictionNanos) {
            return Optional.of(new Remove("evicted after " + seconds(group.idleNanos(now)) + " without contact"));
        }
        return Optional.empty();
    }

    private static String describeSilent(List<Slot> silent, long now) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < silent.size() && i < MAX_NAMED_SILENT_MEMBERS; i++) {
            Slot slot = silent.get(i);
            out.append(i == 0 ? "" : ", ").append(slot.describe()).append(" sent no heartbeat for ")
                    .append(seconds(slot.silentNanos(now)));
        }
        if (silent.size() > MAX_NAMED_SILENT_MEMBERS) {
            out.append(" and ").append(silent.size() - MAX_NAMED_SILENT_MEMBERS).append(" more ranks");
        }
        return out.toString();
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\p{Cntrl}+", " ").strip();
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
