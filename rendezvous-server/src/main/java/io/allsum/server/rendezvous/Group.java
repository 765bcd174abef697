package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.UniqueId;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One group and its current generation: plain state. {@link GroupDecisions} reads it, {@link GroupTransitions}
 * changes it; both under {@link #lock()}, which the registry takes for each operation. Only the event outbox is
 * touched outside the lock.
 */
final class Group {

    /** Digests of ids handed out by earlier generations: enough to catch a restarted rank 0 replaying its id. */
    private static final int REMEMBERED_IDS = 64;

    private final String name;
    private final int worldSize;
    private final Backend backend;
    private final ReentrantLock lock = new ReentrantLock();
    /** Events in the order they happened, published outside {@link #lock} but still in that order. */
    private final ConcurrentLinkedQueue<Object> outbox = new ConcurrentLinkedQueue<>();
    private final ReentrantLock publishLock = new ReentrantLock();

    private boolean removed;
    private long generation;
    private GenerationState state;
    private final TreeMap<Integer, Slot> slots = new TreeMap<>();
    private final Set<Waiter> waiters = new LinkedHashSet<>();
    /** Rank 0's id for the current generation; never logged, never in status. */
    private UniqueId uniqueId;
    private EncodedView view;
    private long openedNanos;
    private long deadlineNanos;
    private Instant joinDeadline;
    private String failureReason;
    /** The reason the latest failed generation failed; kept after the next one opens, for heartbeats of survivors. */
    private String lastFailureReason;
    private long lastActivityNanos;
    private final ArrayDeque<String> usedIdDigests = new ArrayDeque<>();

    Group(String name, int worldSize, Backend backend) {
        this.name = name;
        this.worldSize = worldSize;
        this.backend = backend;
    }

    // ---- reading

    String name() {
        return name;
    }

    int worldSize() {
        return worldSize;
    }

    Backend backend() {
        return backend;
    }

    ReentrantLock lock() {
        return lock;
    }

    boolean isRemoved() {
        return removed;
    }

    long generation() {
        return generation;
    }

    GenerationState state() {
        return state;
    }

    Slot slot(int rank) {
        return slots.get(rank);
    }

    Collection<Slot> slots() {
        return slots.values();
    }

    int joinedCount() {
        return slots.size();
    }

    boolean isFull() {
        return slots.size() == worldSize;
    }

    UniqueId uniqueId() {
        return uniqueId;
    }

    EncodedView view() {
        return view;
    }

    long openedNanos() {
        return openedNanos;
    }

    boolean deadlinePassed(long nowNanos) {
        return nowNanos - deadlineNanos > 0;
    }

    String failureReason() {
        return failureReason;
    }

    String lastFailureReason() {
        return lastFailureReason;
    }

    long idleNanos(long nowNanos) {
        return nowNanos - lastActivityNanos;
    }

    boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    int waiterCount() {
        return waiters.size();
    }

    boolean wasUsed(UniqueId id) {
        return usedIdDigests.contains(id.digest());
    }

    /** Whether {@code instanceId} holds {@code rank} in a generation that is still joining or complete. */
    boolean isLiveMember(int rank, String instanceId) {
        Slot slot = slots.get(rank);
        return !removed && slot != null && slot.heldBy(instanceId)
                && (state == GenerationState.JOINING || state == GenerationState.COMPLETE);
    }

    List<Integer> joinedRanks() {
        return List.copyOf(slots.keySet());
    }

    List<Integer> missingRanks() {
        List<Integer> missing = new ArrayList<>(worldSize - slots.size());
        for (int rank = 0; rank < worldSize; rank++) {
            if (!slots.containsKey(rank)) {
                missing.add(rank);
            }
        }
        return missing;
    }

    JoinPending pending(int retryAfterSeconds, String epoch) {
        return new JoinPending(name, generation, joinedRanks(), missingRanks(), joinDeadline, retryAfterSeconds,
                epoch);
    }

    GroupStatus status(long nowNanos, String epoch) {
        return new GroupStatus(name, generation, state, worldSize, backend, joinedRanks(), missingRanks(),
                slots.values().stream().map(slot -> slot.toStatus(nowNanos)).toList(), joinDeadline, failureReason,
                epoch);
    }

    // ---- changing (GroupTransitions only)

    /** Starts generation {@code number}, empty, with a fresh join deadline. */
    void openGeneration(long number, long nowNanos, long joinTimeoutNanos) {
        generation = number;
        state = GenerationState.JOINING;
        slots.clear();
        uniqueId = null;
        view = null;
        failureReason = null;
        openedNanos = nowNanos;
        deadlineNanos = nowNanos + joinTimeoutNanos;
        joinDeadline = Instant.now().plusNanos(joinTimeoutNanos);
        lastActivityNanos = nowNanos;
    }

    /** Gives the joining generation a higher number; its members and deadline stay. */
    void renumber(long number) {
        generation = number;
    }

    void touch(long nowNanos) {
        lastActivityNanos = nowNanos;
    }

    void addSlot(Slot slot, UniqueId id) {
        slots.put(slot.rank(), slot);
        if (id != null) {
            uniqueId = id;
        }
    }

    void dropSlot(int rank) {
        slots.remove(rank);
        if (rank == 0) {
            uniqueId = null;
        }
    }

    void complete(EncodedView completed) {
        state = GenerationState.COMPLETE;
        view = completed;
        if (uniqueId != null) {
            usedIdDigests.addLast(uniqueId.digest());
            while (usedIdDigests.size() > REMEMBERED_IDS) {
                usedIdDigests.removeFirst();
            }
        }
    }

    void fail(String reason) {
        state = GenerationState.FAILED;
        failureReason = reason;
        lastFailureReason = reason;
    }

    void markRemoved() {
        removed = true;
        state = GenerationState.CLOSED;
    }

    void addWaiter(Waiter waiter) {
        waiters.add(waiter);
    }

    boolean removeWaiter(Waiter waiter) {
        return waiters.remove(waiter);
    }

    /** Removes and returns every parked join (all of them, or only those of one slot). */
    List<Waiter> takeWaiters(Slot of) {
        if (of == null) { // a completed generation: plain loops, since code that runs once per generation stays cold
            List<Waiter> all = new ArrayList<>(waiters);
            waiters.clear();
            return all;
        }
        List<Waiter> taken = waiters.stream().filter(w -> w.slot() == of).toList();
        taken.forEach(waiters::remove);
        return taken;
    }

    // ---- events

    void queueEvent(Object event) {
        outbox.add(event);
    }

    /** Publishes the queued events in order; callers must not hold {@link #lock()}. */
    void publishEvents(Consumer<Object> publisher) {
        if (outbox.isEmpty()) {
            return;
        }
        publishLock.lock();
        try {
            Object event;
            while ((event = outbox.poll()) != null) {
                publisher.accept(event);
            }
        } finally {
            publishLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "Group[" + name + ", generation " + generation + ", " + state + ", " + slots.size() + "/" + worldSize
                + " joined]";
    }
}
