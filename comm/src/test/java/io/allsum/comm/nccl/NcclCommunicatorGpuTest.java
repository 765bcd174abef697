package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommBufferContract;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory.JoinContribution;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;

/** World size 1 on the first GPU: skipped with the reason where there is no GPU or libnccl. */
@NcclAvailable
class NcclCommunicatorGpuTest {

    private static NcclCommunicatorFactory factory;
    private static Communicator comm;

    @BeforeAll
    static void joinAlone() {
        factory = new NcclCommunicatorFactory(null, Duration.ofSeconds(60));
        JoinContribution join = factory.prepareJoin(0);
        assertThat(Base64.getDecoder().decode(join.uniqueId())).hasSize(128);
        assertThat(join.device()).contains("GPU-");
        GroupView view = new GroupView("test", 1, 1, Backend.NCCL, join.uniqueId(),
                List.of(new Member(0, "t", null, null, join.device())));
        comm = factory.create(view, 0, Duration.ofSeconds(60));
    }

    @AfterAll
    static void tearDown() {
        if (comm != null) {
            comm.close();
        }
        if (factory != null) {
            factory.close();
        }
    }

    @Test
    void everyOpAndDtypeMatchesTheHostReference() {
        List<CollectiveChecks.Result> results = CollectiveChecks.runAll(comm, 257);
        assertThat(results).hasSizeGreaterThan(DataType.values().length * 30);
        assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.name() + " " + r.error()).isTrue());
    }

    @Test
    void buffersCopyAsTheContractSays() {
        try (CommBuffer buffer = comm.allocate(64)) {
            CommBufferContract.check(buffer);
        }
    }

    @Test
    void aBufferLargerThanTheFreeDeviceMemoryIsAnOutOfMemoryErrorAndTheCommunicatorGoesOn() {
        long free = comm.allocatableBytes();
        assertThat(free).isPositive();

        assertThatThrownBy(() -> comm.allocate(free + (1L << 30))).isInstanceOf(OutOfMemoryError.class)
                .hasMessageContaining("out of device memory");
        // the cudaMalloc ran on this thread: its error must not linger in the thread's CUDA state
        assertThat(cudaGetLastError()).isEqualTo(cudaSuccess);
        assertThat(comm.maxOverRanks(7)).isEqualTo(7);
        try (CommBuffer small = comm.allocate(1024)) {
            comm.allReduce(small, small, 256, DataType.FLOAT32, ReduceOp.SUM);
        }
    }

    @Test
    void allReduceSumOfFloatsKeepsTheInputOnOneRank() {
        int count = 1000;
        try (CommBuffer send = comm.allocate(count * 4L); CommBuffer recv = comm.allocate(count * 4L)) {
            upload(send, count, i -> i * 0.5f - 7);
            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
            assertHolds(recv, count, i -> i * 0.5f - 7);
        }
    }

    /** Platform threads run calls themselves when the GPU is free, virtual ones hand off: all at once, none mixed up. */
    @Test
    void callsFromManyPlatformAndVirtualThreadsAtOnceEachSumTheirOwnData() throws Exception {
        int count = 4096;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < 8; t++) {
            int seed = t;
            Runnable calls = () -> {
                try (CommBuffer send = comm.allocate(count * 4L); CommBuffer recv = comm.allocate(count * 4L)) {
                    for (int round = 0; round < 50; round++) {
                        int offset = seed * 1000 + round;
                        upload(send, count, i -> i + offset);
                        comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
                        assertHolds(recv, count, i -> i + offset);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            };
            threads.add(t % 2 == 0 ? Thread.ofPlatform().start(calls) : Thread.ofVirtual().start(calls));
        }
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void timeNanosMeasuresEnqueuedWork() {
        try (CommBuffer buf = comm.allocate(1 << 20)) {
            long nanos = comm.timeNanos(() -> {
                for (int i = 0; i < 10; i++) {
                    comm.allReduce(buf, buf, (1 << 20) / 4, DataType.FLOAT32, ReduceOp.SUM);
                }
            });
            assertThat(nanos).isPositive();
        }
    }

    @Test
    void graphReplaysTheCapturedAllReducesAndTheStreamStaysUsable() {
        int count = 256;
        try (CommBuffer send = comm.allocate(count * 4L); CommBuffer recv = comm.allocate(count * 4L)) {
            upload(send, count, i -> i - 100f);
            NcclCommunicator nccl = (NcclCommunicator) comm;
            long nanos = nccl.graphTimeNanos(() -> {
                for (int i = 0; i < 10; i++) {
                    comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
                }
            }, 3);
            assertThat(nanos).isPositive();
            assertHolds(recv, count, i -> i - 100f);
            // A body that fails mid-capture ends the capture: the next plain call still works.
            assertThatThrownBy(() -> nccl.graphTimeNanos(() -> comm.allReduce(send, recv, count * 2L,
                    DataType.FLOAT32, ReduceOp.SUM), 1)).isInstanceOf(CommException.class);
            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
            assertThatThrownBy(() -> nccl.graphTimeNanos(() -> { }, 0)).hasMessageContaining("at least 1");
        }
    }

    @Test
    void bareAllReducesOfTheJniColumnAreTimedOnTheHostAndSumAsTheCommunicatorDoes() {
        int count = 256;
        try (CommBuffer send = comm.allocate(count * 4L); CommBuffer recv = comm.allocate(count * 4L)) {
            upload(send, count, i -> 3 * i + 0.25f);

            long nanos = ((NcclCommunicator) comm).bareAllReduceHostNanos(send, recv, count, 20);

            assertThat(nanos).isPositive();
            assertHolds(recv, count, i -> 3 * i + 0.25f);
            comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
        }
    }

    @Test
    void splitWithNegativeColorReturnsNullAndPositiveColorAWorkingCommunicator() {
        assertThat(comm.split(-1, 0)).isNull();
        try (Communicator sub = comm.split(0, 0)) {
            assertThat(sub.size()).isEqualTo(1);
            assertThat(sub.rank()).isZero();
            sub.barrier();
        }
    }

    @Test
    void tooSmallBufferAndBadRootFailClearly() {
        try (CommBuffer small = comm.allocate(8)) {
            assertThatThrownBy(() -> comm.allReduce(small, small, 100, DataType.FLOAT32, ReduceOp.SUM))
                    .isInstanceOf(CommException.class).hasMessageContaining("all_reduce failed on rank 0");
            assertThatThrownBy(() -> comm.broadcast(small, small, 1, DataType.FLOAT32, 3))
                    .hasMessageContaining("root 3");
            assertThatThrownBy(() -> comm.send(small, 1, DataType.FLOAT32, 0)).hasMessageContaining("sendRecv");
        }
    }

    /** The float at each index of a test pattern. */
    private interface Pattern {
        float at(int i);
    }

    private static void upload(CommBuffer buffer, int count, Pattern pattern) {
        ByteBuffer host = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            host.putFloat(pattern.at(i));
        }
        buffer.copyFromHost(host.flip(), 0);
    }

    private static void assertHolds(CommBuffer buffer, int count, Pattern pattern) {
        ByteBuffer back = ByteBuffer.allocateDirect(count * 4).order(ByteOrder.LITTLE_ENDIAN);
        buffer.copyToHost(back, 0);
        for (int i = 0; i < count; i++) {
            assertThat(back.getFloat(i * 4)).as("element %d", i).isEqualTo(pattern.at(i));
        }
    }
}
