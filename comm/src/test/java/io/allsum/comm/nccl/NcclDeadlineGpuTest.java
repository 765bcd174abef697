package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory.JoinContribution;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Blocking collectives keep their deadlines: init without its peer, and a collective that one rank never joins, end
 * in an abort that names the phase and the rank. Skipped with the reason where there is no GPU or libnccl (and the
 * collective case where fewer than 2 GPUs are visible).
 */
@NcclAvailable
class NcclDeadlineGpuTest {

    private static GroupView twoRanks(String uniqueId) {
        return new GroupView("deadline", 1, 2, Backend.NCCL, uniqueId,
                List.of(new Member(0, "r0", null, null, null), new Member(1, "r1", null, null, null)));
    }

    @Test
    void initWhosePeerNeverJoinsIsAbortedAtItsDeadlineNamingInitAndTheRank() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(0, Duration.ofSeconds(5))) {
            JoinContribution join = factory.prepareJoin(0);
            long began = System.nanoTime();
            assertThatThrownBy(() -> factory.create(twoRanks(join.uniqueId()), 0, Duration.ofSeconds(2)))
                    .isInstanceOf(CommTimeoutException.class)
                    .hasMessageContaining("init failed on rank 0")
                    .hasMessageContaining("deadline");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(15));
        }
    }

    @Test
    void allReduceThatThePeerNeverJoinsIsAbortedAtTheOperationDeadline() throws Exception {
        try (TwoRanks ranks = TwoRanks.connect(Duration.ofSeconds(3));
             CommBuffer b0 = ranks.r0().allocate(1 << 20)) {
            Communicator r0 = ranks.r0(), r1 = ranks.r1();
            // Both ranks work together first (the blocking data communicator is connected and fast) ...
            CommBuffer b1 = r1.allocate(1 << 20);
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() ->
                    r1.allReduce(b1, b1, 1 << 18, DataType.FLOAT32, ReduceOp.SUM));
            r0.allReduce(b0, b0, 1 << 18, DataType.FLOAT32, ReduceOp.SUM);
            peer.get(30, TimeUnit.SECONDS);
            // ... then rank 1 stops taking part: rank 0's next call must end at its 3 s deadline, aborted.
            long began = System.nanoTime();
            assertThatThrownBy(() -> r0.allReduce(b0, b0, 1 << 18, DataType.FLOAT32, ReduceOp.SUM))
                    .isInstanceOf(CommTimeoutException.class)
                    .hasMessageContaining("all_reduce failed on rank 0")
                    .hasMessageContaining("communicator aborted");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isBetween(Duration.ofSeconds(3),
                    Duration.ofSeconds(20));
            assertThatThrownBy(() -> r0.barrier()).isInstanceOf(CommException.class)
                    .hasMessageContaining("aborted");
            r1.abort();
        }
    }

    @Test
    void firstAllReduceThatThePeerNeverJoinsIsAbortedByTheWatchdog() throws Exception {
        try (TwoRanks ranks = TwoRanks.connect(Duration.ofSeconds(3));
             CommBuffer b0 = ranks.r0().allocate(1 << 20)) {
            Communicator r0 = ranks.r0(), r1 = ranks.r1();
            // The first collective sets up NCCL's connections inside the blocking enqueue and needs the peer
            // for that: with rank 1 absent, the call blocks in NCCL, and only the watchdog can end it.
            long began = System.nanoTime();
            assertThatThrownBy(() -> r0.allReduce(b0, b0, 1 << 18, DataType.FLOAT32, ReduceOp.SUM))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("all_reduce failed on rank 0")
                    .hasMessageContaining("aborted by the watchdog");
            // Before the caller's own backstop (deadline + 10 s) would give up on the GPU thread.
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isBetween(Duration.ofSeconds(3),
                    Duration.ofSeconds(12));
            r1.abort();
        }
    }

    /**
     * Two ranks on GPUs 0 and 1 with communicators whose operation deadline is {@code deadline}, connected (init
     * done); skipped where fewer than 2 GPUs are visible. Closes the communicators before their factories.
     */
    private record TwoRanks(NcclCommunicatorFactory f0, NcclCommunicatorFactory f1, Communicator r0, Communicator r1)
            implements AutoCloseable {

        static TwoRanks connect(Duration deadline) throws Exception {
            Assumptions.assumeTrue(secondGpuVisible(), "needs 2 visible GPUs");
            NcclCommunicatorFactory f0 = new NcclCommunicatorFactory(0, deadline);
            NcclCommunicatorFactory f1 = new NcclCommunicatorFactory(1, deadline);
            try {
                GroupView view = twoRanks(f0.prepareJoin(0).uniqueId());
                f1.prepareJoin(1);
                CompletableFuture<Communicator> c1 = CompletableFuture.supplyAsync(() ->
                        f1.create(view, 1, Duration.ofSeconds(60)));
                Communicator r0 = f0.create(view, 0, Duration.ofSeconds(60));
                return new TwoRanks(f0, f1, r0, c1.get(90, TimeUnit.SECONDS));
            } catch (Exception | Error e) {
                f1.close();
                f0.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try (f0; f1; r0; r1) {
                // Closed in reverse order of declaration: r1, r0, then the factories.
            }
        }
    }

    private static boolean secondGpuVisible() {
        try (NcclCommunicatorFactory second = new NcclCommunicatorFactory(1)) {
            second.device();
            return true;
        } catch (CommException e) {
            return false;
        }
    }
}
