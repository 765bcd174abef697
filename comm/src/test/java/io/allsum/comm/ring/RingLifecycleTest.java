package io.allsum.comm.ring;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.PeerFailedException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Set-up, failure and teardown behaviour: foreign connections, dead peers, abort, generations, split, barrier; with
 * the payload through shared memory and over TCP.
 */
@ParameterizedClass(name = "sharedMemory={0}")
@ValueSource(booleans = {true, false})
class RingLifecycleTest {

    @Parameter
    boolean sharedMemory;
    RingSettings settings;

    @BeforeEach
    void useSharedMemoryOrNot() {
        settings = RingSettings.DEFAULTS.withIoTimeout(Duration.ofSeconds(20)).withSharedMemory(sharedMemory);
    }

    @Test
    void peerAbortedMidCollectiveMakesEverySurvivorFailNamingIt() {
        try (RingCluster cluster = new RingCluster(4, settings).start(1)) {
            String deadEndpoint = cluster.factories.get(3).endpoint();
            long count = 4L << 20; // 16 MiB of float32: many chunks in flight when rank 3 goes away
            CompletableFuture<Void> killer = CompletableFuture.runAsync(() -> {
                sleep(150);
                cluster.comms.get(3).abort();
            });
            List<Object> outcomes = cluster.outcomes(r -> {
                Communicator comm = cluster.comms.get(r);
                try (CommBuffer buf = comm.allocate(count * 4)) {
                    for (int round = 0; round < 1000; round++) { // until rank 3's abort breaks the collective
                        comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
                    }
                    return "completed 1000 all-reduces without noticing the abort";
                }
            });
            killer.join();
            assertThat(outcomes.get(3)).isInstanceOf(CommException.class);
            for (int r = 0; r < 3; r++) {
                assertThat(outcomes.get(r)).as("rank " + r).isInstanceOf(PeerFailedException.class);
                PeerFailedException e = (PeerFailedException) outcomes.get(r);
                // rank 0 reads from rank 3 and sees its socket go; ranks 1 and 2 learn it from an ABORT notice naming
                // it, read after the data frame a neighbour abandoned where one was torn (TornFrameNoticeTest)
                assertThat(e.peerRank()).as("rank " + r + ": " + e.getMessage()).isEqualTo(3);
                assertThat(e.rank()).isEqualTo(r);
                assertThat(e.phase()).isEqualTo("all_reduce");
            }
            // the neighbours see the dead rank's socket directly and name its endpoint
            assertThat(((Exception) outcomes.get(0)).getMessage()).contains(deadEndpoint);
        }
    }

    @Test
    void aSurvivorThatAbortsRightAfterItsFailureStillTellsTheOthersWhichRankFailed() {
        // The worker aborts its communicator as soon as a collective fails (ActiveGeneration.markBroken); the abort
        // must not cut off the ABORT notices the failure queued, or the next rank names this one instead.
        for (int attempt = 0; attempt < 5; attempt++) {
            try (RingCluster cluster = new RingCluster(3, settings).start(1)) {
                CompletableFuture<Void> killer = CompletableFuture.runAsync(() -> {
                    sleep(100);
                    cluster.comms.get(2).abort();
                });
                List<Object> outcomes = cluster.outcomes(r -> {
                    Communicator comm = cluster.comms.get(r);
                    try {
                        for (int round = 0; round < 1_000_000; round++) {
                            comm.barrier();
                        }
                        return "completed every barrier without noticing the abort";
                    } catch (CommException e) {
                        comm.abort();
                        throw e;
                    }
                });
                killer.join();
                for (int r = 0; r < 2; r++) {
                    assertThat(outcomes.get(r)).as("attempt %d, rank %d", attempt, r)
                            .isInstanceOf(PeerFailedException.class);
                    PeerFailedException e = (PeerFailedException) outcomes.get(r);
                    assertThat(e.peerRank()).as("attempt %d, rank %d: %s", attempt, r, e.getMessage()).isEqualTo(2);
                }
            }
        }
    }

    @Test
    void peerThatClosesInsteadOfJoiningIsNamedByTheOthers() {
        try (RingCluster cluster = new RingCluster(3, settings).start(1)) {
            List<Object> outcomes = cluster.outcomes(r -> {
                Communicator comm = cluster.comms.get(r);
                if (r == 1) {
                    comm.close();
                    return "closed";
                }
                try (CommBuffer buf = comm.allocate(1 << 20)) {
                    comm.allReduce(buf, buf, 1 << 18, DataType.INT32, ReduceOp.MAX);
                    return "completed without rank 1";
                }
            });
            for (int r : new int[]{0, 2}) {
                assertThat(outcomes.get(r)).as("rank " + r).isInstanceOf(PeerFailedException.class);
                assertThat(((PeerFailedException) outcomes.get(r)).peerRank()).isEqualTo(1);
            }
        }
    }

    @Test
    void abortFromAnotherThreadFailsABlockedReceive() {
        try (RingCluster cluster = new RingCluster(2, settings).start(1)) {
            Communicator comm = cluster.comms.get(0);
            CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> {
                try (CommBuffer buf = comm.allocate(64)) {
                    comm.recv(buf, 16, DataType.INT32, 1); // rank 1 never sends
                    return "received";
                } catch (CommException e) {
                    return e;
                }
            });
            sleep(200);
            comm.abort();
            Object outcome = blocked.orTimeout(10, TimeUnit.SECONDS).join();
            assertThat(outcome).isInstanceOf(CommException.class);
            assertThat(((CommException) outcome).getMessage()).contains("aborted");
            assertThatThrownBy(comm::barrier).isInstanceOf(CommException.class).hasMessageContaining("earlier failure");
        }
    }

    @Test
    void silentPeerFailsTheReadWithinTheDeadline() {
        RingSettings quick = settings.withIoTimeout(Duration.ofMillis(500));
        try (RingCluster cluster = new RingCluster(2, quick).start(1)) {
            Communicator comm = cluster.comms.get(0);
            try (CommBuffer buf = comm.allocate(64)) {
                assertThatThrownBy(() -> comm.recv(buf, 4, DataType.FLOAT32, 1))
                        .isInstanceOf(PeerFailedException.class)
                        .hasMessageContaining("peer rank 1")
                        .hasMessageContaining("sent nothing");
            }
        }
    }

    @Test
    void foreignStaleAndGarbageConnectionsDoNotBreakSetUp() throws Exception {
        try (RingCluster cluster = new RingCluster(3, settings)) {
            cluster.view(1); // opens the listeners
            List<Socket> strangers = new ArrayList<>();
            for (RingCommunicatorFactory f : cluster.factories) {
                var address = Endpoints.parse(f.endpoint());
                Socket garbage = new Socket(address.getHostString(), address.getPort());
                garbage.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                strangers.add(garbage);
                strangers.add(new Socket(address.getHostString(), address.getPort())); // connects, says nothing
                strangers.add(ForgedPeer.hello(f.endpoint(), new Handshake("other-group", 1, "", 0, 1, 3)));
                strangers.add(ForgedPeer.hello(f.endpoint(), new Handshake(cluster.group, 0, "", 0, 1, 3)));
                strangers.add(ForgedPeer.hello(f.endpoint(), new Handshake(cluster.group, 1, "", 0, 1, 3)));
            }
            cluster.start(1);
            cluster.assertSumOfRanks();
            for (Socket s : strangers) {
                s.close();
            }
        }
    }

    @Test
    void nextGenerationReusesTheListenerAndDropsTheOldOne() {
        try (RingCluster cluster = new RingCluster(3, settings).start(1)) {
            List<String> before = cluster.factories.stream().map(RingCommunicatorFactory::endpoint).toList();
            cluster.assertSumOfRanks();
            cluster.start(2);
            cluster.assertSumOfRanks();
            assertThat(cluster.factories.stream().map(RingCommunicatorFactory::endpoint).toList()).isEqualTo(before);
        }
    }

    @Test
    void barrierHoldsEveryRankUntilAllArrived() {
        try (RingCluster cluster = new RingCluster(4, settings).start(1)) {
            AtomicInteger arrived = new AtomicInteger();
            List<List<Integer>> seen = cluster.onEveryRank(r -> {
                List<Integer> counts = new ArrayList<>();
                for (int round = 1; round <= 5; round++) {
                    arrived.incrementAndGet();
                    cluster.comms.get(r).barrier();
                    counts.add(arrived.get());
                    cluster.comms.get(r).barrier(); // nobody starts the next round before all have read the count
                }
                return counts;
            });
            for (int r = 0; r < 4; r++) {
                assertThat(seen.get(r)).as("rank " + r).containsExactly(4, 8, 12, 16, 20);
            }
        }
    }

    @Test
    void splitGroupsByColorOrdersByKeyAndLeavesNegativeColorsOut() {
        try (RingCluster cluster = new RingCluster(4, settings).start(1)) {
            List<int[]> results = cluster.onEveryRank(r -> {
                Communicator comm = cluster.comms.get(r);
                try (Communicator sub = comm.split(r % 2, -r)) {
                    try (CommBuffer buf = sub.allocate(8)) {
                        buf.copyFromHost(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, r), 0);
                        sub.allReduce(buf, buf, 1, DataType.INT64, ReduceOp.SUM);
                        ByteBuffer out = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                        buf.copyToHost(out, 0);
                        Communicator none = comm.split(r == 3 ? -1 : 0, r);
                        int noneSize = none == null ? -1 : none.size();
                        if (none != null) {
                            none.close();
                        }
                        return new int[]{sub.rank(), sub.size(), (int) out.getLong(0), noneSize};
                    }
                }
            });
            // color 0 = {0, 2}, keys {0, -2}: rank 2 comes first; color 1 = {1, 3}, keys {-1, -3}: rank 3 first
            assertThat(results.get(0)).containsExactly(1, 2, 2, 3);
            assertThat(results.get(2)).containsExactly(0, 2, 2, 3);
            assertThat(results.get(1)).containsExactly(1, 2, 4, 3);
            assertThat(results.get(3)).containsExactly(0, 2, 4, -1);
            cluster.assertSumOfRanks(); // the parent still works
        }
    }

    @Test
    void mismatchedCountsFailWithAClearErrorInsteadOfCorruptingData() {
        try (RingCluster cluster = new RingCluster(2, settings).start(1)) {
            List<Object> outcomes = cluster.outcomes(r -> {
                Communicator comm = cluster.comms.get(r);
                try (CommBuffer buf = comm.allocate(4096)) {
                    comm.allReduce(buf, buf, 100 + r, DataType.FLOAT32, ReduceOp.SUM);
                    return "completed";
                }
            });
            assertThat(outcomes).anySatisfy(o -> assertThat(o).isInstanceOf(CommException.class)
                    .extracting(o2 -> ((Exception) o2).getMessage()).asString().contains("different"));
        }
    }

    @Test
    void buffersFromElsewhereOrTooSmallAreRejectedWithoutBreakingTheCommunicator() {
        try (RingCluster cluster = new RingCluster(2, settings).start(1)) {
            Communicator comm = cluster.comms.get(0);
            try (CommBuffer small = comm.allocate(8)) {
                assertThatThrownBy(() -> comm.allReduce(small, small, 4, DataType.INT32, ReduceOp.SUM))
                        .isInstanceOf(CommException.class).hasMessageContaining("needs 16");
                assertThatThrownBy(() -> comm.send(small, 1, DataType.INT8, 0))
                        .isInstanceOf(CommException.class).hasMessageContaining("this rank itself");
            }
            cluster.assertSumOfRanks();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
