package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.JoinPending;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One group and its current generation. Every field but the outbox is guarded by {@link #lock}; the registry holds
 * the lock for each operation and publishes the outbox after releasing it.
 */
final class Group {

    /** Digests of ids handed out by earlier generations: enough to catch a restarted rank 0 replaying its id. */
    private static final int REMEMBERED_IDS = 64;

    final String name;
    final int worldSize;
    final Backend backend;
    final ReentrantLock lock = new ReentrantLock();
    /** Events in the order they happened, published outside {@link #lock} but still in that order. */
    final ConcurrentLinkedQueue<Object> outbox = new ConcurrentLinkedQueue<>();
    final ReentrantLock publishLock = new ReentrantLock();

    boolean removed;
    long generation;
    GenerationState state;
    final TreeMap<Integer, Slot> slots = new TreeMap<>();
    final Set<Waiter> waiters = new LinkedHashSet<>();
    /** Rank 0's id for the current generation; never logged, never in status. */
    String uniqueId;
    EncodedView view;
    long openedNanos;
    long deadlineNanos;
    Instant joinDeadline;
    String failureReason;
    /** The reason the latest failed generation failed; kept after the next one opens, for heartbeats of survivors. */
    String lastFailureReason;
    long lastActivityNanos;
    private final ArrayDeque<String> usedIdDigests = new ArrayDeque<>();

    Group(String name, int worldSize, Backend backend) {
        this.name = name;
        this.worldSize = worldSize;
        this.backend = backend;
    }

    /** Starts generation {@code generation + 1}, empty, with a fresh join deadline. */
    void openNextGeneration(long nowNanos, long joinTimeoutNanos) {
        generation++;
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

    JoinPending pending(int retryAfterSeconds) {
        return new JoinPending(name, generation, joinedRanks(), missingRanks(), joinDeadline, retryAfterSeconds);
    }

    void rememberUsedId(String id) {
        usedIdDigests.addLast(digest(id));
        while (usedIdDigests.size() > REMEMBERED_IDS) {
            usedIdDigests.removeFirst();
        }
    }

    boolean wasUsed(String id) {
        return usedIdDigests.contains(digest(id));
    }

    /** Only a digest of a used id is kept, so that old secrets do not stay in memory. */
    private static String digest(String id) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(id.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "Group[" + name + ", generation " + generation + ", " + state + ", " + slots.size() + "/" + worldSize
                + " joined]";
    }
}
