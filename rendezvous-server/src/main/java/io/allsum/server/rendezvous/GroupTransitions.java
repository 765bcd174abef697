package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.rendezvous.GroupDecisions.Action;
import io.allsum.server.rendezvous.GroupDecisions.AddToParticipants;
import io.allsum.server.rendezvous.GroupDecisions.DropSlot;
import io.allsum.server.rendezvous.GroupDecisions.FailGeneration;
import io.allsum.server.rendezvous.GroupDecisions.OpenGeneration;
import io.allsum.server.rendezvous.GroupDecisions.RaiseGeneration;
import io.allsum.server.rendezvous.GroupDecisions.Remove;
import io.allsum.server.rendezvous.GroupDecisions.Touch;
import io.allsum.server.rendezvous.GroupDecisions.Withdraw;
import io.allsum.server.rendezvous.GroupDirectory.GenerationCompleted;
import io.allsum.server.rendezvous.GroupDirectory.GenerationFailed;
import io.allsum.server.rendezvous.GroupDirectory.GroupRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Applies {@link GroupDecisions}' actions to a {@link Group} under its lock, and collects what must happen after
 * the lock is released ({@link Effects}: waking parked joins) and the group's events, which {@link #finish}
 * publishes in order. Meters and logs are recorded here, once per transition.
 */
@Component
class GroupTransitions {

    private static final Logger log = LoggerFactory.getLogger(GroupTransitions.class);

    private final RendezvousMeters meters;
    private final ApplicationEventPublisher events;
    private final RendezvousScheduler scheduler;
    private final long joinTimeoutNanos;
    private final String epoch;
    private final AtomicInteger waitingJoins = new AtomicInteger();
    /** Numbers completed generations, server-wide: with the epoch, the full view's ETag (unique, no hashing). */
    private final AtomicLong completions = new AtomicLong();

    GroupTransitions(RendezvousMeters meters, ApplicationEventPublisher events, RendezvousScheduler scheduler,
                  RendezvousProperties properties, ServerEpoch epoch) {
        this.meters = meters;
        this.events = events;
        this.scheduler = scheduler;
        this.joinTimeoutNanos = properties.joinTimeout().toNanos();
        this.epoch = epoch.id();
    }

    /**
     * Work that must not run under a group lock, run by {@link #finish} in order: completing parked joins' futures
     * first, then a completed generation's bookkeeping.
     */
    static final class Effects {
        /**
         * Parked joins per answering thread: {@code ceil(waiters / ANSWER_CHUNK)} virtual threads answer a generation's
         * waiters. Answering a join writes its answer (JoinHandler: tens of microseconds each, on the answering
         * thread), so at thousands of waiters one thread answering them all was most of the time until the last answer
         * (docs/benchmarks/rendezvous.md).
         */
        static final int ANSWER_CHUNK = 16;

        private final List<Runnable> afterUnlock = new ArrayList<>();

        private void add(Runnable effect) {
            afterUnlock.add(effect);
        }

        /** Runs the effects, in the order they were added. */
        void run() {
            afterUnlock.forEach(Runnable::run);
        }

        /**
         * Answers every waiter in {@code waiters} with {@code answer}, after the unlock, on several threads that take
         * the next unanswered waiter from one shared cursor: a thread that stalls (descheduled mid-write: 0.3-1.7 ms
         * on the 32-core host, docs/benchmarks/rendezvous.md) holds back the one answer it
         * is writing, not a fixed chunk of them, and threads that start late find less left. None is answered on the
         * calling thread: when that is the last rank's join, its own answer goes out at once.
         */
        void answerAll(List<Waiter> waiters, Consumer<CompletableFuture<JoinAnswer>> answer) {
            if (waiters.isEmpty()) {
                return;
            }
            int size = waiters.size();
            AtomicInteger cursor = new AtomicInteger();
            Runnable answering = () -> {
                for (int i = cursor.getAndIncrement(); i < size; i = cursor.getAndIncrement()) {
                    answer.accept(waiters.get(i).answer());
                }
            };
            int threads = (size + ANSWER_CHUNK - 1) / ANSWER_CHUNK;
            add(() -> Thread.ofVirtual().name("join-answers").start(() -> {
                // This thread answers too, once it has started the others.
                for (int t = 1; t < threads && cursor.get() < size; t++) {
                    Thread.ofVirtual().name("join-answers").start(answering);
                }
                answering.run();
            }));
        }
    }

    String epoch() {
        return epoch;
    }

    int waitingJoins() {
        return waitingJoins.get();
    }

    /** Applies one non-terminal action. Caller holds the group's lock. */
    void apply(Group group, Action action, long now, Effects effects) {
        switch (action) {
            case FailGeneration fail -> fail(group, fail, effects);
            case OpenGeneration open -> group.openGeneration(open.number(), now, joinTimeoutNanos);
            case RaiseGeneration raise -> {
                log.info("group {}: generation {} renumbered {}, above generation {} that a returning member "
                        + "reported", group.name(), group.generation(), raise.number(), raise.number() - 1);
                group.renumber(raise.number());
            }
            case DropSlot drop -> dropSlot(group, drop.rank(), drop.why());
            case AddToParticipants add -> group.addSlot(new Slot(add.command(), now), add.command().uniqueId());
            case Withdraw withdraw -> withdraw(group, withdraw.rank(), effects);
            case Remove remove -> remove(group, remove.why(), effects);
            case Touch touch -> group.slot(touch.rank()).contact(now);
            default -> throw new IllegalArgumentException(action + " is not a transition");
        }
    }

    /** Completes the generation: every parked join is answered (after unlock) with the shared view. */
    Delivery complete(Group group, long now, Effects effects) {
        // Loops rather than streams from here to the answers: this runs once per generation, so it is never
        // compiled, and interpreted streams cost tens of microseconds more (docs/benchmarks/rendezvous.md).
        List<Member> members = new ArrayList<>(group.worldSize());
        for (Slot slot : group.slots()) {
            members.add(slot.toMember());
        }
        EncodedView view = new EncodedView(new GroupView(group.name(), group.generation(), group.worldSize(),
                group.backend(), group.uniqueId() == null ? null : group.uniqueId().base64(),
                Collections.unmodifiableList(members), epoch), epoch + "-" + completions.incrementAndGet());
        group.complete(view);
        // Members were alive until now (they were waiting); their heartbeat clock starts at completion.
        for (Slot slot : group.slots()) {
            slot.contact(now);
            slot.clearParked();
        }
        List<Waiter> answered = group.takeWaiters(null);
        waitingJoins.addAndGet(-answered.size());
        Delivery delivery = new Delivery(now, answered.size() + 1, meters::generationDelivered);
        JoinAnswer.Complete answer = new JoinAnswer.Complete(view, delivery);
        // The full view is encoded by the first join that wants it (EncodedView.bodies), not here: joins that ask
        // for the compact rank view (view=rank) never need it, and at 16,384 members it costs milliseconds.
        effects.answerAll(answered, future -> future.complete(answer));
        // The rest waits until the answers are on their way: a generation completes once, so this code never gets
        // hot, and the log line alone took 0.2 ms before the first answer (docs/benchmarks/rendezvous.md).
        // A timer that fires meanwhile finds its waiter gone (expire) and does nothing.
        Duration formed = Duration.ofNanos(now - group.openedNanos());
        String name = group.name();
        long generation = group.generation();
        int worldSize = group.worldSize();
        Backend backend = group.backend();
        effects.add(() -> {
            answered.forEach(Waiter::cancelExpiry);
            meters.generationCompleted(formed);
            log.info("group {} generation {} complete: {} ranks, backend {}", name, generation, worldSize, backend);
        });
        group.queueEvent(new GenerationCompleted(name, generation, worldSize, backend));
        return delivery;
    }

    /** Parks a join until the generation completes, fails, or {@code wait} runs out (then 202). */
    CompletableFuture<JoinAnswer> park(Group group, Slot slot, Duration wait) {
        Waiter waiter = new Waiter(slot);
        slot.parked();
        group.addWaiter(waiter);
        waitingJoins.incrementAndGet();
        waiter.expiresBy(scheduler.schedule(() -> expire(group, waiter), wait));
        return waiter.answer();
    }

    private void expire(Group group, Waiter waiter) {
        JoinAnswer.Pending pending;
        group.lock().lock();
        try {
            if (!group.removeWaiter(waiter)) {
                return; // answered meanwhile
            }
            waitingJoins.decrementAndGet();
            waiter.slot().unparked();
            waiter.slot().contact(System.nanoTime());
            // Retry-After 0: the join is a long poll, re-posting at once keeps the rank waiting.
            pending = new JoinAnswer.Pending(group.pending(0, epoch));
        } finally {
            group.lock().unlock();
        }
        waiter.answer().complete(pending);
    }

    private void fail(Group group, FailGeneration failure, Effects effects) {
        String reason = "generation " + group.generation() + " of group '" + group.name() + "' failed: "
                + failure.what();
        group.fail(reason);
        List<Waiter> waiting = takeWaiters(group, null);
        long next = Math.addExact(group.generation(), 1);
        // One exception for all waiters (JoinResponses only reads it), as in withdraw and remove: not thousands of
        // stack traces at once.
        ProblemException failed = new ProblemException(ProblemCode.GENERATION_FAILED,
                reason + "; join again to enter generation " + next);
        effects.answerAll(waiting, future -> future.completeExceptionally(failed));
        meters.generationFailed(failure.cause());
        group.queueEvent(new GenerationFailed(group.name(), group.generation(), reason, failure.silentRanks()));
        log.warn(reason);
    }

    private void withdraw(Group group, int rank, Effects effects) {
        Slot slot = group.slot(rank);
        dropSlot(group, rank, "left");
        List<Waiter> own = takeWaiters(group, slot);
        String detail = slot.describe() + " left group '" + group.name() + "' while this join waited";
        ProblemException left = new ProblemException(ProblemCode.NOT_A_MEMBER, detail);
        effects.answerAll(own, future -> future.completeExceptionally(left));
    }

    private void remove(Group group, String why, Effects effects) {
        group.markRemoved();
        List<Waiter> waiting = takeWaiters(group, null);
        String detail = "group '" + group.name() + "' was " + why + " while this join waited";
        ProblemException closed = new ProblemException(ProblemCode.GROUP_CLOSED, detail);
        effects.answerAll(waiting, future -> future.completeExceptionally(closed));
        group.queueEvent(new GroupRemoved(group.name(), why));
    }

    private List<Waiter> takeWaiters(Group group, Slot of) {
        List<Waiter> taken = group.takeWaiters(of);
        waitingJoins.addAndGet(-taken.size());
        taken.forEach(Waiter::cancelExpiry);
        return taken;
    }

    private void dropSlot(Group group, int rank, String why) {
        Slot slot = group.slot(rank);
        group.dropSlot(rank);
        log.info("group {} generation {}: {} lost its place: {}", group.name(), group.generation(), slot.describe(),
                why);
    }

    /** Runs what must not run under the group lock, then publishes the group's events in order. */
    void finish(Group group, Effects effects) {
        effects.run();
        group.publishEvents(event -> {
            try {
                events.publishEvent(event);
            } catch (RuntimeException e) {
                log.warn("a listener of {} failed; the rendezvous goes on", event, e);
            }
        });
    }
}
