package io.allsum.server.rendezvous;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** How a generation's parked joins are answered once it completes (GroupTransitions.Effects.answerAll). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AnsweringThreadsTest {

    private static final JoinAnswer ANSWER = new JoinAnswer.Pending(null);

    @Test
    void aStalledAnswerHoldsBackOnlyItselfNotTheRestOfItsThreadsShare() throws Exception {
        List<Waiter> waiters = IntStream.range(0, 3 * GroupTransitions.Effects.ANSWER_CHUNK).mapToObj(i -> new Waiter(null))
                .toList();
        CompletableFuture<JoinAnswer> stalled = waiters.getFirst().answer();
        CountDownLatch release = new CountDownLatch(1);
        GroupTransitions.Effects effects = new GroupTransitions.Effects();
        effects.answerAll(waiters, future -> {
            if (future == stalled) {
                awaitQuietly(release); // a write descheduled for as long as this test wants
            }
            future.complete(ANSWER);
        });

        effects.run();

        await().atMost(10, TimeUnit.SECONDS).until(() -> waiters.stream().filter(w -> w.answer().isDone()).count()
                == waiters.size() - 1);
        assertThat(stalled).isNotDone();
        release.countDown();
        assertThat(stalled.get(10, TimeUnit.SECONDS)).isSameAs(ANSWER);
    }

    @Test
    void everyWaiterIsAnsweredExactlyOnceAndNoneOnTheCallingThread() {
        List<Waiter> waiters = IntStream.range(0, 5 * GroupTransitions.Effects.ANSWER_CHUNK + 3)
                .mapToObj(i -> new Waiter(null)).toList();
        Thread caller = Thread.currentThread();
        List<Thread> answeredOn = new CopyOnWriteArrayList<>();
        GroupTransitions.Effects effects = new GroupTransitions.Effects();
        effects.answerAll(waiters, future -> {
            answeredOn.add(Thread.currentThread());
            if (!future.complete(ANSWER)) {
                throw new AssertionError("answered twice");
            }
        });

        effects.run();

        await().atMost(10, TimeUnit.SECONDS).until(() -> waiters.stream().allMatch(w -> w.answer().isDone()));
        assertThat(answeredOn).hasSize(waiters.size()).doesNotContain(caller);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
