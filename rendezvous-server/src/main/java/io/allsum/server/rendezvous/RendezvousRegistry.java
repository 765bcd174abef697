package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.model.rendezvous.JoinRequestValidator.Violation;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.server.metrics.RendezvousMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rendezvous: groups in memory, one lock per group, one scheduler thread for join waits, join deadlines,
 * heartbeat timeouts and idle eviction. Waiting joins are futures, never threads.
 */
@Component
public class RendezvousRegistry implements GroupDirectory, SmartLifecycle, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(RendezvousRegistry.class);
    private static final int MAX_REASON_LENGTH = 512;
    private static final int MAX_NAMED_SILENT_MEMBERS = 8;
    private static final Duration GROUP_LIMIT_RETRY = Duration.ofSeconds(5);

    private final RendezvousProperties properties;
    private final RendezvousMetrics metrics;
    private final ApplicationEventPublisher events;
    private final JoinRequestValidator validator;
    private final ViewEncoder encoder;
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final AtomicInteger waitingJoins = new AtomicInteger();
    private final ScheduledThreadPoolExecutor scheduler;
    private final long heartbeatTimeoutNanos;
    private final long joinTimeoutNanos;
    private volatile ScheduledFuture<?> sweeper;

    public RendezvousRegistry(RendezvousProperties properties, RendezvousMetrics metrics,
                              ApplicationEventPublisher events, ViewEncoder encoder) {
        this.properties = properties;
        this.encoder = encoder;
        this.metrics = metrics;
        this.events = events;
        this.validator = new JoinRequestValidator(properties.maxWorldSize());
        this.heartbeatTimeoutNanos = properties.heartbeatTimeout().toNanos();
        this.joinTimeoutNanos = properties.joinTimeout().toNanos();
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "rendezvous-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        // Answered joins cancel their expiry; without this, 10,000 cancelled tasks would sit in the queue.
        scheduler.setRemoveOnCancelPolicy(true);
        metrics.watch(groups::size, waitingJoins::get);
    }

    // ---- joins ------------------------------------------------------------------------------------------------

    /**
     * Joins {@code request.rank()} into its group's current generation. The future completes with the group once
     * every rank is in, with where it stands when {@code wait} runs out, or exceptionally with a
     * {@link RendezvousException} when the generation fails or the group closes meanwhile.
     *
     * @throws RendezvousException when the request is invalid or conflicts with the group
     */
    public CompletableFuture<JoinAnswer> join(JoinRequest request, Duration wait) {
        List<Violation> violations = validator.validate(request);
        if (!violations.isEmpty()) {
            throw RendezvousException.invalid(violations);
        }
        while (true) {
            Group group = groupFor(request);
            List<Runnable> afterUnlock = new ArrayList<>();
            group.lock.lock();
            try {
                if (group.removed) {
                    continue; // closed or evicted between lookup and lock: the join starts a new group
                }
                return joinLocked(group, request, wait, afterUnlock);
            } finally {
                group.lock.unlock();
                finish(group, afterUnlock);
            }
        }
    }

    private Group groupFor(JoinRequest request) {
        Group existing = groups.get(request.group());
        if (existing != null) {
            return existing;
        }
        if (groups.size() >= properties.maxGroups()) {
            throw new RendezvousException(ProblemCode.GROUP_LIMIT, "the server holds its maximum of "
                    + properties.maxGroups() + " groups, so group '" + request.group() + "' cannot be created")
                    .retryAfter(GROUP_LIMIT_RETRY);
        }
        return groups.computeIfAbsent(request.group(), name -> {
            Group group = new Group(name, request.worldSize(), request.backend());
            group.openNextGeneration(System.nanoTime(), joinTimeoutNanos);
            log.info("group {} created: worldSize {}, backend {}", name, group.worldSize, group.backend);
            return group;
        });
    }

    private CompletableFuture<JoinAnswer> joinLocked(Group group, JoinRequest request, Duration wait,
                                                     List<Runnable> afterUnlock) {
        long now = System.nanoTime();
        if (request.worldSize() != group.worldSize) {
            throw new RendezvousException(ProblemCode.WORLD_SIZE_MISMATCH, "worldSize " + request.worldSize()
                    + " differs from group '" + group.name + "', which has worldSize " + group.worldSize);
        }
        if (request.backend() != group.backend) {
            throw new RendezvousException(ProblemCode.BACKEND_MISMATCH, "backend " + request.backend()
                    + " differs from group '" + group.name + "', which uses backend " + group.backend);
        }
        group.lastActivityNanos = now;
        int rank = request.rank();
        if (group.state == GenerationState.FAILED) {
            group.openNextGeneration(now, joinTimeoutNanos);
        } else if (group.state == GenerationState.COMPLETE) {
            Slot holder = group.slots.get(rank);
            if (holder.instanceId.equals(request.instanceId())) {
                holder.lastContactNanos = now;
                return CompletableFuture.completedFuture(new JoinAnswer.Complete(group.view, null));
            }
            if (holder.isAlive(now, heartbeatTimeoutNanos)) {
                throw rankHeld(group, holder, request);
            }
            failGeneration(group, FailureCause.HEARTBEAT_TIMEOUT, holder.describe() + " sent no heartbeat for "
                    + seconds(now - holder.lastContactNanos) + " and instance " + request.instanceId()
                    + " joined for its rank", afterUnlock);
            group.openNextGeneration(now, joinTimeoutNanos);
        }
        Slot slot = group.slots.get(rank);
        if (slot != null && !slot.instanceId.equals(request.instanceId())) {
            if (slot.isAlive(now, heartbeatTimeoutNanos)) {
                throw rankHeld(group, slot, request);
            }
            dropSlot(group, slot, "replaced by instance " + request.instanceId());
            slot = null;
        }
        if (slot == null) {
            if (request.uniqueId() != null && group.wasUsed(request.uniqueId())) {
                throw new RendezvousException(ProblemCode.STALE_UNIQUE_ID, "uniqueId from rank 0 is stale: it was "
                        + "handed out in an earlier generation of group '" + group.name + "'; an NCCL id is "
                        + "single-use, so call ncclGetUniqueId again for generation " + group.generation);
            }
            slot = new Slot(rank, request.instanceId(), request.endpoint(), request.host(), request.device(), now);
            group.slots.put(rank, slot);
            if (request.uniqueId() != null) {
                group.uniqueId = request.uniqueId();
            }
        } else {
            slot.lastContactNanos = now;
        }
        if (group.slots.size() == group.worldSize) {
            Delivery delivery = completeGeneration(group, now, afterUnlock);
            return CompletableFuture.completedFuture(new JoinAnswer.Complete(group.view, delivery));
        }
        if (wait.isZero()) {
            return CompletableFuture.completedFuture(new JoinAnswer.Pending(group.pending(1)));
        }
        Waiter waiter = new Waiter(slot);
        slot.parkedJoins++;
        group.waiters.add(waiter);
        waitingJoins.incrementAndGet();
        waiter.expiry = scheduler.schedule(() -> expire(group, waiter), wait.toNanos(), TimeUnit.NANOSECONDS);
        return waiter.answer;
    }

    private RendezvousException rankHeld(Group group, Slot holder, JoinRequest request) {
        long silentNanos = System.nanoTime() - holder.lastContactNanos;
        return new RendezvousException(ProblemCode.RANK_HELD, "rank " + holder.rank + " of group '" + group.name
                + "' generation " + group.generation + " is held by live instance " + holder.instanceId
                + ", not " + request.instanceId() + "; a holder is dropped after "
                + seconds(heartbeatTimeoutNanos) + " without contact")
                .retryAfter(Duration.ofNanos(Math.max(heartbeatTimeoutNanos - silentNanos, 0)));
    }

    private Delivery completeGeneration(Group group, long now, List<Runnable> afterUnlock) {
        group.state = GenerationState.COMPLETE;
        group.view = new EncodedView(new GroupView(group.name, group.generation, group.worldSize, group.backend,
                group.uniqueId, group.slots.values().stream().map(Slot::toMember).toList()));
        if (group.uniqueId != null) {
            group.rememberUsedId(group.uniqueId);
        }
        // Members were alive until now (they were waiting); their heartbeat clock starts at completion.
        for (Slot slot : group.slots.values()) {
            slot.lastContactNanos = now;
            slot.parkedJoins = 0;
        }
        List<Waiter> answered = List.copyOf(group.waiters);
        group.waiters.clear();
        waitingJoins.addAndGet(-answered.size());
        Delivery delivery = new Delivery(now, answered.size() + 1, metrics::generationDelivered);
        JoinAnswer.Complete answer = new JoinAnswer.Complete(group.view, delivery);
        for (Waiter waiter : answered) {
            waiter.expiry.cancel(false);
        }
        EncodedView view = group.view;
        afterUnlock.add(() -> {
            // Encode before waking anyone: otherwise the woken joins queue up behind the first one's encoding.
            encoder.bodies(view);
            answered.forEach(waiter -> waiter.answer.complete(answer));
        });
        metrics.generationCompleted(Duration.ofNanos(now - group.openedNanos));
        group.outbox.add(new GenerationCompleted(group.name, group.generation, group.worldSize, group.backend));
        log.info("group {} generation {} complete: {} ranks, backend {}", group.name, group.generation,
                group.worldSize, group.backend);
        return delivery;
    }

    private void expire(Group group, Waiter waiter) {
        JoinAnswer.Pending pending;
        group.lock.lock();
        try {
            if (!group.waiters.remove(waiter)) {
                return; // answered meanwhile
            }
            waitingJoins.decrementAndGet();
            waiter.slot.parkedJoins--;
            waiter.slot.lastContactNanos = System.nanoTime();
            // Retry-After 0: the join is a long poll, re-posting at once keeps the rank waiting.
            pending = new JoinAnswer.Pending(group.pending(0));
        } finally {
            group.lock.unlock();
        }
        waiter.answer.complete(pending);
    }

    // ---- failure, heartbeats, leave, close ----------------------------------------------------------------------

    /** Fails the current generation; parked joins get 409 generation-failed. Caller holds the lock. */
    private void failGeneration(Group group, FailureCause cause, String what, List<Runnable> afterUnlock) {
        String reason = "generation " + group.generation + " of group '" + group.name + "' failed: " + what;
        group.state = GenerationState.FAILED;
        group.failureReason = reason;
        group.lastFailureReason = reason;
        List<Waiter> waiting = List.copyOf(group.waiters);
        group.waiters.clear();
        waitingJoins.addAndGet(-waiting.size());
        for (Waiter waiter : waiting) {
            waiter.expiry.cancel(false);
        }
        long next = group.generation + 1;
        afterUnlock.add(() -> waiting.forEach(waiter -> waiter.answer.completeExceptionally(new RendezvousException(
                ProblemCode.GENERATION_FAILED, reason + "; join again to enter generation " + next))));
        metrics.generationFailed(cause);
        group.outbox.add(new GenerationFailed(group.name, group.generation, reason));
        log.warn(reason);
    }

    public HeartbeatResponse heartbeat(String groupName, HeartbeatRequest request) {
        requireGroupName(groupName);
        List<Violation> violations = request == null ? List.of(new Violation("body", "a JSON object is required"))
                : missing(request.rank(), request.instanceId(), request.generation(), "generation");
        if (!violations.isEmpty()) {
            throw RendezvousException.invalid(violations);
        }
        return withGroup(groupName, (group, afterUnlock) -> {
            long now = System.nanoTime();
            group.lastActivityNanos = now;
            if (request.generation() == group.generation) {
                Slot slot = group.slots.get(request.rank());
                boolean member = slot != null && slot.instanceId.equals(request.instanceId());
                if (!member && group.state != GenerationState.FAILED) {
                    throw notAMember(group, request.rank(), request.instanceId());
                }
                if (member) {
                    slot.lastContactNanos = now;
                }
            }
            return response(group, request.generation());
        });
    }

    public HeartbeatResponse reportFailure(String groupName, FailureReport report) {
        requireGroupName(groupName);
        if (report == null) {
            throw RendezvousException.invalid("body", "a JSON object is required");
        }
        List<Violation> violations = new ArrayList<>(
                missing(report.reporterRank(), report.instanceId(), report.generation(), "generation"));
        violations.replaceAll(v -> v.field().equals("rank") ? new Violation("reporterRank", v.message()) : v);
        if (report.failedRank() == null) {
            violations.add(new Violation("failedRank", "is required"));
        }
        if (!violations.isEmpty()) {
            throw RendezvousException.invalid(violations);
        }
        if (report.reason() != null && report.reason().length() > MAX_REASON_LENGTH) {
            throw RendezvousException.invalid("reason", "must be at most " + MAX_REASON_LENGTH + " characters");
        }
        return withGroup(groupName, (group, afterUnlock) -> {
            group.lastActivityNanos = System.nanoTime();
            boolean current = report.generation() == group.generation
                    && (group.state == GenerationState.JOINING || group.state == GenerationState.COMPLETE);
            if (!current) {
                return response(group, report.generation()); // that generation is already over
            }
            if (report.failedRank() < 0 || report.failedRank() >= group.worldSize) {
                throw RendezvousException.invalid("failedRank", "must be between 0 and " + (group.worldSize - 1)
                        + ", got " + report.failedRank());
            }
            Slot reporter = group.slots.get(report.reporterRank());
            if (reporter == null || !reporter.instanceId.equals(report.instanceId())) {
                throw notAMember(group, report.reporterRank(), report.instanceId());
            }
            Slot failed = group.slots.get(report.failedRank());
            String who = failed == null ? "rank " + report.failedRank() + " (not joined)" : failed.describe();
            String because = report.reason() == null || report.reason().isBlank() ? "" : ": " + oneLine(report.reason());
            failGeneration(group, FailureCause.REPORTED_FAILURE, who + " was reported failed by rank "
                    + report.reporterRank() + because, afterUnlock);
            return response(group, report.generation());
        });
    }

    public HeartbeatResponse leave(String groupName, LeaveRequest request) {
        requireGroupName(groupName);
        List<Violation> violations = request == null ? List.of(new Violation("body", "a JSON object is required"))
                : missing(request.rank(), request.instanceId(), 1L, "generation");
        if (!violations.isEmpty()) {
            throw RendezvousException.invalid(violations);
        }
        return withGroup(groupName, (group, afterUnlock) -> {
            group.lastActivityNanos = System.nanoTime();
            Slot slot = group.slots.get(request.rank());
            if (slot == null || !slot.instanceId.equals(request.instanceId())) {
                return response(group, group.generation); // not a member (any more): leaving is idempotent
            }
            if (group.state == GenerationState.COMPLETE) {
                failGeneration(group, FailureCause.MEMBER_LEFT, slot.describe() + " left", afterUnlock);
            } else if (group.state == GenerationState.JOINING) {
                dropSlot(group, slot, "left");
                List<Waiter> own = group.waiters.stream().filter(w -> w.slot == slot).toList();
                own.forEach(group.waiters::remove);
                waitingJoins.addAndGet(-own.size());
                own.forEach(w -> w.expiry.cancel(false));
                String detail = slot.describe() + " left group '" + group.name + "' while this join waited";
                afterUnlock.add(() -> own.forEach(w -> w.answer.completeExceptionally(
                        new RendezvousException(ProblemCode.NOT_A_MEMBER, detail))));
            }
            return response(group, group.generation);
        });
    }

    /** Closes and removes a group: parked joins are answered 410, listeners get {@link GroupRemoved}. */
    public void close(String groupName) {
        requireGroupName(groupName);
        Group group = groups.remove(groupName);
        if (group == null) {
            throw RendezvousException.unknownGroup(groupName);
        }
        List<Runnable> afterUnlock = new ArrayList<>();
        group.lock.lock();
        try {
            remove(group, "closed by request", afterUnlock);
            afterUnlock.add(() -> log.info("group {} closed", groupName));
        } finally {
            group.lock.unlock();
            finish(group, afterUnlock);
        }
    }

    private void remove(Group group, String why, List<Runnable> afterUnlock) {
        group.removed = true;
        group.state = GenerationState.CLOSED;
        List<Waiter> waiting = List.copyOf(group.waiters);
        group.waiters.clear();
        waitingJoins.addAndGet(-waiting.size());
        waiting.forEach(w -> w.expiry.cancel(false));
        String detail = "group '" + group.name + "' was " + why + " while this join waited";
        afterUnlock.add(() -> waiting.forEach(w -> w.answer.completeExceptionally(
                new RendezvousException(ProblemCode.GROUP_CLOSED, detail))));
        group.outbox.add(new GroupRemoved(group.name, why));
    }

    // ---- status and directory -----------------------------------------------------------------------------------

    public GroupStatus status(String groupName) {
        requireGroupName(groupName);
        return withGroup(groupName, (group, afterUnlock) -> {
            long now = System.nanoTime();
            return new GroupStatus(group.name, group.generation, group.state, group.worldSize, group.backend,
                    group.joinedRanks(), group.missingRanks(),
                    group.slots.values().stream().map(slot -> slot.toStatus(now)).toList(),
                    group.joinDeadline, group.failureReason);
        });
    }

    @Override
    public Optional<CurrentGeneration> current(String groupName) {
        Group group = groups.get(groupName);
        if (group == null) {
            return Optional.empty();
        }
        group.lock.lock();
        try {
            return group.removed ? Optional.empty() : Optional.of(new CurrentGeneration(group.name,
                    group.generation, group.state, group.worldSize, group.backend));
        } finally {
            group.lock.unlock();
        }
    }

    @Override
    public boolean isMember(String groupName, int rank, String instanceId) {
        Group group = groups.get(groupName);
        if (group == null || instanceId == null) {
            return false;
        }
        group.lock.lock();
        try {
            Slot slot = group.slots.get(rank);
            return !group.removed && slot != null && slot.instanceId.equals(instanceId)
                    && (group.state == GenerationState.JOINING || group.state == GenerationState.COMPLETE);
        } finally {
            group.lock.unlock();
        }
    }

    /** Joins parked on the server, in all groups. */
    public int waitingJoins() {
        return waitingJoins.get();
    }

    /** Joins parked on the server for one group; 0 for an unknown group. */
    public int parkedJoins(String groupName) {
        Group group = groups.get(groupName);
        if (group == null) {
            return 0;
        }
        group.lock.lock();
        try {
            return group.waiters.size();
        } finally {
            group.lock.unlock();
        }
    }

    // ---- the sweeper --------------------------------------------------------------------------------------------

    /** One pass over every group: join deadlines, silent members, idle groups. */
    void sweep() {
        for (Group group : groups.values()) {
            List<Runnable> afterUnlock = new ArrayList<>();
            group.lock.lock();
            try {
                if (!group.removed) {
                    sweepLocked(group, System.nanoTime(), afterUnlock);
                }
            } finally {
                group.lock.unlock();
                finish(group, afterUnlock);
            }
        }
    }

    private void sweepLocked(Group group, long now, List<Runnable> afterUnlock) {
        if (group.state == GenerationState.JOINING) {
            if (now - group.deadlineNanos > 0) {
                failGeneration(group, FailureCause.JOIN_DEADLINE, "not complete by its join deadline ("
                        + seconds(joinTimeoutNanos) + " after it opened); missing ranks "
                        + RankRanges.describe(group.missingRanks()) + ", " + group.slots.size() + " of "
                        + group.worldSize + " joined", afterUnlock);
            } else {
                // A joined rank that neither waits nor calls any more has gone away: free its rank.
                List<Slot> gone = group.slots.values().stream()
                        .filter(slot -> !slot.isAlive(now, heartbeatTimeoutNanos)).toList();
                gone.forEach(slot -> dropSlot(group, slot, "not heard from for " + seconds(now - slot.lastContactNanos)));
            }
        } else if (group.state == GenerationState.COMPLETE) {
            List<Slot> silent = group.slots.values().stream()
                    .filter(slot -> now - slot.lastContactNanos > heartbeatTimeoutNanos).toList();
            if (!silent.isEmpty()) {
                failGeneration(group, FailureCause.HEARTBEAT_TIMEOUT, describeSilent(silent, now)
                        + " (heartbeat timeout " + seconds(heartbeatTimeoutNanos) + ")", afterUnlock);
            }
        }
        if (group.waiters.isEmpty() && now - group.lastActivityNanos > properties.idleEviction().toNanos()) {
            groups.remove(group.name, group);
            String why = "evicted after " + seconds(now - group.lastActivityNanos) + " without contact";
            remove(group, why, afterUnlock);
            log.info("group {} {}", group.name, why);
        }
    }

    private static String describeSilent(List<Slot> silent, long now) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < silent.size() && i < MAX_NAMED_SILENT_MEMBERS; i++) {
            Slot slot = silent.get(i);
            out.append(i == 0 ? "" : ", ").append(slot.describe()).append(" sent no heartbeat for ")
                    .append(seconds(now - slot.lastContactNanos));
        }
        if (silent.size() > MAX_NAMED_SILENT_MEMBERS) {
            out.append(" and ").append(silent.size() - MAX_NAMED_SILENT_MEMBERS).append(" more ranks");
        }
        return out.toString();
    }

    @Override
    public void start() {
        long interval = properties.effectiveSweepInterval().toNanos();
        sweeper = scheduler.scheduleWithFixedDelay(this::sweepSafely, interval, interval, TimeUnit.NANOSECONDS);
    }

    private void sweepSafely() {
        try {
            sweep();
        } catch (RuntimeException e) {
            log.error("rendezvous sweep failed; retrying at the next interval", e);
        }
    }

    /** Pauses the sweeper; {@link #start()} resumes it (Spring may stop and restart a context). */
    @Override
    public void stop() {
        ScheduledFuture<?> running = sweeper;
        if (running != null) {
            running.cancel(false);
        }
        sweeper = null;
    }

    @Override
    public void destroy() {
        stop();
        scheduler.shutdownNow();
    }

    @Override
    public boolean isRunning() {
        return sweeper != null;
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    private interface LockedAction<T> {
        T apply(Group group, List<Runnable> afterUnlock);
    }

    private <T> T withGroup(String groupName, LockedAction<T> action) {
        Group group = groups.get(groupName);
        if (group == null) {
            throw RendezvousException.unknownGroup(groupName);
        }
        List<Runnable> afterUnlock = new ArrayList<>();
        group.lock.lock();
        try {
            if (group.removed) {
                throw RendezvousException.unknownGroup(groupName);
            }
            return action.apply(group, afterUnlock);
        } finally {
            group.lock.unlock();
            finish(group, afterUnlock);
        }
    }

    /** Runs what must not run under the group lock, then publishes the group's events in order. */
    private void finish(Group group, List<Runnable> afterUnlock) {
        afterUnlock.forEach(Runnable::run);
        if (group.outbox.isEmpty()) {
            return;
        }
        group.publishLock.lock();
        try {
            Object event;
            while ((event = group.outbox.poll()) != null) {
                try {
                    events.publishEvent(event);
                } catch (RuntimeException e) {
                    log.warn("a listener of {} failed; the rendezvous goes on", event, e);
                }
            }
        } finally {
            group.publishLock.unlock();
        }
    }

    private void dropSlot(Group group, Slot slot, String why) {
        group.slots.remove(slot.rank);
        if (slot.rank == 0) {
            group.uniqueId = null;
        }
        log.info("group {} generation {}: {} lost its place: {}", group.name, group.generation, slot.describe(), why);
    }

    private static HeartbeatResponse response(Group group, long askedGeneration) {
        String reason = group.failureReason != null ? group.failureReason
                : askedGeneration < group.generation ? group.lastFailureReason : null;
        return new HeartbeatResponse(group.name, group.generation, group.state, reason);
    }

    private static RendezvousException notAMember(Group group, int rank, String instanceId) {
        Slot slot = group.slots.get(rank);
        return new RendezvousException(ProblemCode.NOT_A_MEMBER, "instance " + instanceId + " does not hold rank "
                + rank + " in generation " + group.generation + " of group '" + group.name + "'"
                + (slot == null ? "" : "; instance " + slot.instanceId + " does"));
    }

    private static List<Violation> missing(Integer rank, String instanceId, Long generation, String generationField) {
        List<Violation> violations = new ArrayList<>();
        if (rank == null) {
            violations.add(new Violation("rank", "is required"));
        } else if (rank < 0) {
            violations.add(new Violation("rank", "must not be negative, got " + rank));
        }
        if (instanceId == null) {
            violations.add(new Violation("instanceId", "is required"));
        } else if (instanceId.isEmpty() || instanceId.length() > Protocol.INSTANCE_ID_MAX_LENGTH) {
            violations.add(new Violation("instanceId", "must be 1 to " + Protocol.INSTANCE_ID_MAX_LENGTH
                    + " characters"));
        }
        if (generation == null) {
            violations.add(new Violation(generationField, "is required"));
        } else if (generation < 1) {
            violations.add(new Violation(generationField, "must be at least 1, got " + generation));
        }
        return violations;
    }

    private static void requireGroupName(String group) {
        if (group == null || !Protocol.GROUP_NAME.matcher(group).matches()) {
            throw RendezvousException.invalid("group", "must match " + Protocol.GROUP_NAME.pattern());
        }
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\p{Cntrl}+", " ").strip();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
