package io.allsum.comm.ring;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every collective x every dtype (x every op where it reduces) on 2, 3 and 4 ranks over real loopback sockets,
 * against {@link Reference}. Chunks are tiny (64 B) so that even small buffers cross many pipelined chunks, and the
 * counts are uneven (not divisible by the world size), plus zero. Run with the payload through shared memory (a
 * ring of 1000 bytes, so that chunks wrap around it) and over TCP.
 */
@ParameterizedClass(name = "sharedMemory={0}")
@ValueSource(booleans = {true, false})
class RingCollectivesTest {

    /** 64-byte chunks; all-reduces up to 48 bytes take the one-step direct path, bigger ones the ring. */
    static final RingSettings TINY_CHUNKS = RingSettings.DEFAULTS.withChunkBytes(64).withSmallMessageBytes(48)
            .withIoTimeout(Duration.ofSeconds(30));
    static final long[] COUNTS = {0, 5, 203};
    static final byte CANARY = 0x5A;

    private static final Map<Integer, RingCluster> clusters = new HashMap<>();

    @Parameter
    boolean sharedMemory;

    @BeforeParameterizedClassInvocation
    static void startClusters(boolean sharedMemory) {
        for (int n = 2; n <= 4; n++) {
            RingCluster cluster = new RingCluster(n, TINY_CHUNKS.withSharedMemory(sharedMemory)
                    .withSharedMemoryBytes(1000)).start(1);
            clusters.put(n, cluster);
            cluster.assertSharedMemoryLinks(sharedMemory ? n - 1 : 0);
        }
    }

    @AfterParameterizedClassInvocation
    static void stopClusters() {
        clusters.values().forEach(RingCluster::close);
        clusters.clear();
    }

    static Stream<Arguments> worldsAndTypes() {
        List<Arguments> out = new ArrayList<>();
        for (int n = 2; n <= 4; n++) {
            for (DataType t : DataType.values()) {
                out.add(Arguments.of(n, t));
            }
        }
        return out.stream();
    }

    static Stream<Arguments> worldsTypesAndOps() {
        return worldsAndTypes().flatMap(a -> Stream.of(ReduceOp.values())
                .map(op -> Arguments.of(a.get()[0], a.get()[1], op)));
    }

    @ParameterizedTest(name = "n={0} {1} {2}")
    @MethodSource("worldsTypesAndOps")
    void allReduceMatchesReferenceInPlaceAndOutOfPlace(int n, DataType type, ReduceOp op) {
        RingCluster cluster = clusters.get(n);
        for (long count : COUNTS) {
            for (boolean inPlace : new boolean[]{false, true}) {
                List<ByteBuffer> results = collective(cluster, type, count, op, count, inPlace,
                        (comm, send, recv, r) -> comm.allReduce(send, recv, count, type, op));
                for (int r = 0; r < n; r++) {
                    String what = "all_reduce n=" + n + " " + type + " " + op + " count=" + count + " inPlace="
                            + inPlace + " rank " + r;
                    assertElements(results.get(r), type, count, i -> expected(type, op, n, i), what);
                    if (!inPlace) {
                        assertCanaries(results.get(r), count * type.bytes(), what);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1} {2}")
    @MethodSource("worldsTypesAndOps")
    void reduceScatterGivesEachRankItsReducedBlock(int n, DataType type, ReduceOp op) {
        RingCluster cluster = clusters.get(n);
        for (long recvCount : new long[]{0, 3, 61}) {
            List<ByteBuffer> results = collective(cluster, type, recvCount * n, op, recvCount, false,
                    (comm, send, recv, r) -> comm.reduceScatter(send, recv, recvCount, type, op));
            for (int r = 0; r < n; r++) {
                long base = r * recvCount;
                String what = "reduce_scatter n=" + n + " " + type + " " + op + " recvCount=" + recvCount + " rank " + r;
                assertElements(results.get(r), type, recvCount, j -> expected(type, op, n, base + j), what);
                assertCanaries(results.get(r), recvCount * type.bytes(), what);
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1} {2}")
    @MethodSource("worldsTypesAndOps")
    void reduceDeliversToRootOnlyForEveryRoot(int n, DataType type, ReduceOp op) {
        RingCluster cluster = clusters.get(n);
        for (int root = 0; root < n; root++) {
            int theRoot = root;
            for (long count : COUNTS) {
                List<ByteBuffer> results = collective(cluster, type, count, op, count, false,
                        (comm, send, recv, r) -> comm.reduce(send, recv, count, type, op, theRoot));
                for (int r = 0; r < n; r++) {
                    String what = "reduce n=" + n + " " + type + " " + op + " root " + theRoot + " count=" + count
                            + " rank " + r;
                    if (r == theRoot) {
                        assertElements(results.get(r), type, count, i -> expected(type, op, n, i), what);
                        assertCanaries(results.get(r), count * type.bytes(), what);
                    } else {
                        assertCanaries(results.get(r), 0, what + " (not root: recv untouched)");
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1}")
    @MethodSource("worldsAndTypes")
    void allGatherPlacesEveryRanksBlockInRankOrder(int n, DataType type) {
        RingCluster cluster = clusters.get(n);
        for (long count : COUNTS) {
            List<ByteBuffer> results = collective(cluster, type, count, ReduceOp.MAX, count * n, false,
                    (comm, send, recv, r) -> comm.allGather(send, recv, count, type));
            for (int r = 0; r < n; r++) {
                String what = "all_gather n=" + n + " " + type + " count=" + count + " rank " + r;
                assertElements(results.get(r), type, count * n, k -> input(type, ReduceOp.MAX, (int) (k / count),
                        k % count), what);
                assertCanaries(results.get(r), count * n * type.bytes(), what);
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1}")
    @MethodSource("worldsAndTypes")
    void allGatherInPlaceTakesEachRanksInputFromItsOwnBlockLikeNccl(int n, DataType type) {
        RingCluster cluster = clusters.get(n);
        for (long count : COUNTS) {
            List<ByteBuffer> results = cluster.onEveryRank(r -> {
                Communicator comm = cluster.comms.get(r);
                // Only block r holds this rank's input; the other blocks hold another rank's pattern (garbage here).
                try (CommBuffer buf = comm.allocate(count * n * type.bytes())) {
                    buf.copyFromHost(Reference.encode(type, count * n,
                            k -> input(type, ReduceOp.MAX, k / count == r ? r : (r + 1) % n, k % count)), 0);
                    comm.allGather(buf, buf, count, type);
                    return read(buf);
                }
            });
            for (int r = 0; r < n; r++) {
                String what = "in-place all_gather n=" + n + " " + type + " count=" + count + " rank " + r;
                assertElements(results.get(r), type, count * n, k -> input(type, ReduceOp.MAX, (int) (k / count),
                        k % count), what);
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1} {2}")
    @MethodSource("worldsTypesAndOps")
    void reduceScatterInPlaceLeavesTheResultInTheRanksOwnBlockLikeNccl(int n, DataType type, ReduceOp op) {
        RingCluster cluster = clusters.get(n);
        long recvCount = 61;
        List<ByteBuffer> results = cluster.onEveryRank(r -> {
            Communicator comm = cluster.comms.get(r);
            try (CommBuffer buf = filled(comm, type, recvCount * n, r, op, 0)) {
                comm.reduceScatter(buf, buf, recvCount, type, op);
                return read(buf);
            }
        });
        for (int r = 0; r < n; r++) {
            long base = r * recvCount;
            String what = "in-place reduce_scatter n=" + n + " " + type + " " + op + " rank " + r;
            ByteBuffer block = results.get(r).slice((int) (base * type.bytes()), (int) (recvCount * type.bytes()))
                    .order(ByteOrder.LITTLE_ENDIAN);
            assertElements(block, type, recvCount, j -> expected(type, op, n, base + j), what);
        }
    }

    @ParameterizedTest(name = "n={0} {1}")
    @MethodSource("worldsAndTypes")
    void broadcastCopiesRootsBufferEverywhereForEveryRoot(int n, DataType type) {
        RingCluster cluster = clusters.get(n);
        for (int root = 0; root < n; root++) {
            int theRoot = root;
            for (long count : COUNTS) {
                for (boolean inPlace : new boolean[]{false, true}) {
                    List<ByteBuffer> results = collective(cluster, type, count, ReduceOp.MIN, count, inPlace,
                            (comm, send, recv, r) -> comm.broadcast(send, recv, count, type, theRoot));
                    for (int r = 0; r < n; r++) {
                        String what = "broadcast n=" + n + " " + type + " root " + theRoot + " count=" + count
                                + " rank " + r;
                        assertElements(results.get(r), type, count, i -> input(type, ReduceOp.MIN, theRoot, i), what);
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "n={0} {1}")
    @MethodSource("worldsAndTypes")
    void sendRecvShiftsAroundTheRingAndSendReachesItsPeer(int n, DataType type) {
        RingCluster cluster = clusters.get(n);
        for (long count : COUNTS) {
            List<ByteBuffer> shifted = collective(cluster, type, count, ReduceOp.SUM, count, false,
                    (comm, send, recv, r) -> comm.sendRecv(send, (r + 1) % n, recv, (r + n - 1) % n, count, type));
            // rank 0 sends a distinct buffer to every other rank with plain send/recv
            List<ByteBuffer> received = cluster.onEveryRank(r -> {
                Communicator comm = cluster.comms.get(r);
                if (r == 0) {
                    for (int peer = 1; peer < n; peer++) {
                        try (CommBuffer send = filled(comm, type, count, peer, ReduceOp.PROD, 0)) {
                            comm.send(send, count, type, peer);
                        }
                    }
                    return null;
                }
                try (CommBuffer recv = canaries(comm, count * type.bytes() + 8)) {
                    comm.recv(recv, count, type, 0);
                    return read(recv);
                }
            });
            for (int r = 0; r < n; r++) {
                int from = (r + n - 1) % n;
                String what = "send_recv n=" + n + " " + type + " count=" + count + " rank " + r;
                assertElements(shifted.get(r), type, count, i -> input(type, ReduceOp.SUM, from, i), what);
                assertCanaries(shifted.get(r), count * type.bytes(), what);
                if (r > 0) {
                    int me = r;
                    assertElements(received.get(r), type, count, i -> input(type, ReduceOp.PROD, me, i),
                            "send/recv " + what);
                    assertCanaries(received.get(r), count * type.bytes(), "send/recv " + what);
                }
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    static Number input(DataType type, ReduceOp op, int rank, long i) {
        return type.isFloatingPoint() ? Reference.floatInput(rank, i, op) : Reference.intInput(rank, i);
    }

    static Number expected(DataType type, ReduceOp op, int n, long i) {
        List<Number> contributions = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            contributions.add(input(type, op, r, i));
        }
        return Reference.expected(type, op, contributions);
    }

    /** One collective call of a rank, into {@code recv}: the send buffer itself when in place. */
    private interface Collective {
        void call(Communicator comm, CommBuffer send, CommBuffer recv, int rank);
    }

    /**
     * Each rank's result of {@code call} on a send buffer of its {@code pattern} input: the send buffer in place,
     * else a recv of {@code recvCount} elements and 8 canary bytes after them.
     */
    private static List<ByteBuffer> collective(RingCluster cluster, DataType type, long sendCount, ReduceOp pattern,
                                               long recvCount, boolean inPlace, Collective call) {
        return cluster.onEveryRank(r -> {
            Communicator comm = cluster.comms.get(r);
            try (CommBuffer send = filled(comm, type, sendCount, r, pattern, 0);
                 CommBuffer recv = inPlace ? null : canaries(comm, recvCount * type.bytes() + 8)) {
                CommBuffer target = inPlace ? send : recv;
                call.call(comm, send, target, r);
                return read(target);
            }
        });
    }

    static CommBuffer filled(Communicator comm, DataType type, long count, int rank, ReduceOp op, long unused) {
        CommBuffer buf = comm.allocate(count * type.bytes());
        buf.copyFromHost(Reference.encode(type, count, i -> input(type, op, rank, i)), 0);
        return buf;
    }

    static CommBuffer canaries(Communicator comm, long bytes) {
        CommBuffer buf = comm.allocate(bytes);
        ByteBuffer fill = ByteBuffer.allocate((int) bytes);
        for (int i = 0; i < bytes; i++) {
            fill.put(i, CANARY);
        }
        buf.copyFromHost(fill, 0);
        return buf;
    }

    static ByteBuffer read(CommBuffer buf) {
        ByteBuffer out = ByteBuffer.allocate((int) buf.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        buf.copyToHost(out, 0);
        return out;
    }

    static void assertElements(ByteBuffer actual, DataType type, long count,
                               java.util.function.LongFunction<Number> expected, String what) {
        for (long i = 0; i < count; i++) {
            Number want = expected.apply(i);
            Number got = Reference.decode(type, actual, i);
            if (type.isFloatingPoint()) {
                assertThat(got.doubleValue() + 0.0).as(what + " element " + i).isEqualTo(want.doubleValue() + 0.0);
            } else {
                assertThat(Reference.wrap(type, got.longValue())).as(what + " element " + i)
                        .isEqualTo(Reference.wrap(type, want.longValue()));
            }
        }
    }

    static void assertCanaries(ByteBuffer actual, long from, String what) {
        for (int i = (int) from; i < actual.capacity(); i++) {
            assertThat(actual.get(i)).as(what + ": byte " + i + " past the result must be untouched").isEqualTo(CANARY);
        }
    }
}
