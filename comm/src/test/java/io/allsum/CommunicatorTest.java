package io.allsum;

import io.allsum.comm.CommException;
import io.allsum.comm.CommBuffer;
import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The library's communicator over the real ring, 4 ranks as threads, joined through an in-memory rendezvous. */
class CommunicatorTest {

    private static final int N = 4;

    private static <T> List<T> onEveryRank(IntFunction<T> body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(N);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int r = 0; r < N; r++) {
                int rank = r;
                futures.add(pool.submit(() -> body.apply(rank)));
            }
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get(60, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    private static Communicator join(InMemoryRendezvous server, int rank) {
        return new Allsum.Builder().group("lib").rank(rank).worldSize(N).backend("ring")
                .heartbeatInterval(Duration.ofMillis(100)).collectiveDeadline(Duration.ofSeconds(20))
                .init(server.client());
    }

    @Test
    void everyOperationGivesTheSameAnswerOnEveryRank() throws Exception {
        InMemoryRendezvous server = new InMemoryRendezvous(N);
        List<String> results = onEveryRank(rank -> {
            try (Communicator comm = join(server, rank)) {
                assertThat(comm.rank()).isEqualTo(rank);
                assertThat(comm.size()).isEqualTo(N);
                assertThat(comm.backend()).isEqualTo(Backend.RING);
                float[] sum = comm.allReduce(new float[] {rank, 1, 2 * rank}, ReduceOp.SUM);
                assertThat(sum).containsExactly(6f, 4f, 12f);
                double[] avg = comm.allReduce(new double[] {rank, 10}, ReduceOp.AVG);
                assertThat(avg).containsExactly(1.5, 10.0);
                assertThat(comm.allReduce(new int[] {rank}, ReduceOp.MAX)).containsExactly(3);
                assertThat(comm.allReduce(new long[] {rank + 1}, ReduceOp.PROD)).containsExactly(24L);
                assertThat(comm.allReduce(new int[] {rank + 5}, ReduceOp.MIN)).containsExactly(5);
                assertThat(comm.allGather(new int[] {rank, -rank})).containsExactly(0, 0, 1, -1, 2, -2, 3, -3);
                assertThat(comm.reduceScatter(new long[] {1, 2, 3, 4, 5, 6, 7, 8}, ReduceOp.SUM))
                        .containsExactly(4L * (2 * rank + 1), 4L * (2 * rank + 2));
                assertThat(comm.broadcast(new double[] {rank, rank}, 2)).containsExactly(2.0, 2.0);
                // A ring of send/recv: even ranks send first, odd ranks receive first.
                float[] got = new float[2];
                int next = (rank + 1) % N;
                int prev = (rank + N - 1) % N;
                if (rank % 2 == 0) {
                    comm.send(new float[] {rank, 7}, next);
                    comm.recv(got, prev);
                } else {
                    comm.recv(got, prev);
                    comm.send(new float[] {rank, 7}, next);
                }
                assertThat(got).containsExactly(prev, 7f);
                // Direct and heap ByteBuffers, a native segment, asynchronous calls in order.
                ByteBuffer direct = ByteBuffer.allocateDirect(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, rank);
                comm.allReduce(direct, DataType.INT64, ReduceOp.SUM);
                assertThat(direct.getLong(0)).isEqualTo(6);
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment seg = arena.allocate(ValueLayout.JAVA_FLOAT, 3);
                    seg.setAtIndex(ValueLayout.JAVA_FLOAT, 1, rank);
                    var first = comm.allReduceAsync(seg, DataType.FLOAT32, ReduceOp.SUM);
                    var second = comm.allReduceAsync(new float[] {1}, ReduceOp.SUM);
                    comm.barrier();
                    first.join();
                    assertThat(seg.getAtIndex(ValueLayout.JAVA_FLOAT, 1)).isEqualTo(6f);
                    assertThat(second.join()).containsExactly(4f);
                }
                // Evens and odds: two communicators of two ranks each.
                try (Communicator half = comm.split(rank % 2, rank)) {
                    assertThat(half.size()).isEqualTo(2);
                    assertThat(half.allReduce(new int[] {rank}, ReduceOp.SUM)).containsExactly(rank % 2 == 0 ? 2 : 4);
                }
                return "ok";
            }
        });
        assertThat(results).containsOnly("ok");
        assertThat(server.events).anyMatch(e -> e.endsWith(" left"));
    }

    @Test
    void aRankThatAbortsFailsTheOthersWithAnErrorNamingTheirRank() throws Exception {
        InMemoryRendezvous server = new InMemoryRendezvous(N);
        List<Object> outcomes = onEveryRank(rank -> {
            Communicator comm = join(server, rank);
            try {
                comm.allReduce(new float[] {1}, ReduceOp.SUM);
                if (rank == 3) {
                    comm.abort(Duration.ofSeconds(2));
                    return "aborted";
                }
                comm.allReduce(new float[1 << 16], ReduceOp.SUM);
                return "completed";
            } catch (CommException e) {
                return e;
            } finally {
                comm.close();
            }
        });
        assertThat(outcomes.get(3)).isEqualTo("aborted");
        for (int r = 0; r < 3; r++) {
            assertThat(outcomes.get(r)).as("rank " + r).isInstanceOf(CommException.class);
            assertThat(((CommException) outcomes.get(r)).getMessage()).contains("on rank " + r);
        }
        assertThat(server.events).anyMatch(e -> e.startsWith("failure reported by rank 3"));
    }

    @Test
    void deviceMemoryAndStreamsOnTheRingAreAClearErrorAndTheCommunicatorGoesOn() throws Exception {
        InMemoryRendezvous server = new InMemoryRendezvous(N);
        List<String> results = onEveryRank(rank -> {
            try (Communicator comm = join(server, rank); CommBuffer buffer = comm.allocate(16)) {
                assertThatThrownBy(() -> comm.wrapDevice(1 << 20, 16)).isInstanceOf(CommException.class)
                        .hasMessageContaining("on rank " + rank).hasMessageContaining("need the NCCL backend");
                assertThatThrownBy(() -> comm.allReduce(buffer, buffer, 4, DataType.FLOAT32, ReduceOp.SUM,
                        CudaStream.LEGACY_DEFAULT)).isInstanceOf(CommException.class)
                        .hasMessageContaining("this communicator is ring");
                return Arrays.toString(comm.allReduce(new int[] {1}, ReduceOp.SUM));
            }
        });
        assertThat(results).containsOnly("[" + N + "]");
    }

    @Test
    void theEnvironmentGivesTheSettingsThroughTheWorkersAliasTable() {
        Allsum.Builder b = new Allsum.Builder().fromEnvironment(Map.of("RANK", "2", "WORLD_SIZE", "4",
                "ALLSUM_GROUP", "g", "ALLSUM_BACKEND", "RING"));
        assertThatThrownBy(() -> new Allsum.Builder().fromEnvironment(Map.of("RANK", "x")))
                .hasMessageContaining("RANK must be an integer");
        assertThatThrownBy(() -> new Allsum.Builder().init(new InMemoryRendezvous(1).client()))
                .hasMessageContaining("ALLSUM_RANK");
        assertThat(b).isNotNull();
    }
}
