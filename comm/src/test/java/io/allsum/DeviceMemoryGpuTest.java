package io.allsum;

import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.nccl.NcclAvailable;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.bytedeco.cuda.cudart.CUctx_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bytedeco.cuda.global.cudart.cuCtxGetCurrent;
import static org.bytedeco.cuda.global.cudart.cudaDeviceSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

/**
 * The library on memory and a stream the caller made with CUDA itself, as a program holding a tensor would: one NCCL
 * rank on the first GPU (NCCL allows one rank per GPU). Skipped with the reason where there is no GPU or libnccl.
 * The {@code stage} tests take the whole path one step at a time, so that a wrong result says which step lost it.
 */
@NcclAvailable
class DeviceMemoryGpuTest {

    private static final int COUNT = 1 << 16;
    private static Communicator comm;

    @BeforeAll
    static void joinAlone() {
        InMemoryRendezvous server = new InMemoryRendezvous(1);
        comm = new Allsum.Builder().group("device").rank(0).worldSize(1).backend("nccl")
                .heartbeatInterval(Duration.ofMillis(200)).collectiveDeadline(Duration.ofSeconds(30))
                .init(server.client());
    }

    @AfterAll
    static void leave() {
        if (comm != null) {
            comm.close();
        }
    }

    @Test
    void aCallersDeviceMemoryIsReducedOnTheCallersStreamWithoutACopyAndIsNotFreedByClose() {
        Pointer send = new Pointer();
        Pointer recv = new Pointer();
        CUstream_st stream = new CUstream_st();
        assertThat(cudaMalloc(send, COUNT * 4L)).isZero();
        assertThat(cudaMalloc(recv, COUNT * 4L)).isZero();
        assertThat(cudaStreamCreate(stream)).isZero();
        try (FloatPointer host = new FloatPointer(COUNT)) {
            for (int i = 0; i < COUNT; i++) {
                host.put(i, i * 0.25f - 3);
            }
            assertThat(cudaMemcpy(send, host, COUNT * 4L, cudaMemcpyHostToDevice)).isZero();
            try (CommBuffer s = comm.wrapDevice(send.address(), COUNT * 4L);
                 CommBuffer r = comm.wrapDevice(recv.address(), COUNT * 4L)) {
                comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM, new CudaStream(stream.address()));
                comm.broadcast(r, s, COUNT, DataType.FLOAT32, 0, new CudaStream(stream.address()));
                assertThat(cudaStreamSynchronize(stream)).isZero();
            }
            try (FloatPointer back = new FloatPointer(COUNT)) {
                // still the caller's memory after the wrappers closed: readable, and freed below without an error
                assertThat(cudaMemcpy(back, recv, COUNT * 4L, cudaMemcpyDeviceToHost)).isZero();
                for (int i = 0; i < COUNT; i += 997) {
                    assertThat(back.get(i)).as("element %d", i).isEqualTo(i * 0.25f - 3);
                }
            }
            // the blocking calls go on on the communicator's own stream
            assertThat(comm.allReduce(new float[] {2, 3}, ReduceOp.SUM)).containsExactly(2, 3);
        } finally {
            assertThat(cudaStreamDestroy(stream)).isZero();
            assertThat(cudaFree(send)).isZero();
            assertThat(cudaFree(recv)).isZero();
        }
    }

    @Test
    void hostMemoryIsRefusedAsDeviceMemoryAndTheCommunicatorGoesOn() {
        try (FloatPointer host = new FloatPointer(16)) {
            assertThatThrownBy(() -> comm.wrapDevice(host.address(), 64)).isInstanceOf(CommException.class)
                    .hasMessageContaining("is not device memory of device 0");
        }
        assertThatThrownBy(() -> comm.wrapDevice(0, 64)).isInstanceOf(CommException.class)
                .hasMessageContaining("needs a device address");
        assertThat(comm.allReduce(new int[] {7}, ReduceOp.MAX)).containsExactly(7);
    }

    private static float expected(int i) {
        return i * 0.25f - 3;
    }

    /** Runs {@code body} on two cudaMalloc'd buffers of COUNT floats: send holds the expected values, recv zeros. */
    private static void withCallersMemory(BiConsumer<Pointer, Pointer> body) {
        Pointer send = new Pointer();
        Pointer recv = new Pointer();
        assertThat(cudaMalloc(send, COUNT * 4L)).isZero();
        assertThat(cudaMalloc(recv, COUNT * 4L)).isZero();
        try (FloatPointer host = new FloatPointer(COUNT)) {
            for (int i = 0; i < COUNT; i++) {
                host.put(i, expected(i));
            }
            assertThat(cudaMemcpy(send, host, COUNT * 4L, cudaMemcpyHostToDevice)).isZero();
            assertThat(cudaMemset(recv, 0, COUNT * 4L)).isZero();
            body.accept(send, recv);
        } finally {
            cudaFree(send);
            cudaFree(recv);
        }
    }

    private static float[] read(Pointer device) {
        try (FloatPointer back = new FloatPointer(COUNT)) {
            assertThat(cudaMemcpy(back, device, COUNT * 4L, cudaMemcpyDeviceToHost)).isZero();
            float[] out = new float[COUNT];
            back.get(out);
            return out;
        }
    }

    private static float[] read(CommBuffer buffer) {
        ByteBuffer back = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.LITTLE_ENDIAN);
        buffer.copyToHost(back, 0);
        float[] out = new float[COUNT];
        back.asFloatBuffer().get(out);
        return out;
    }

    private static void assertExpected(String stage, float[] values) {
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) {
            wrong += values[i] != expected(i) ? 1 : 0;
        }
        System.out.printf("stage %-40s wrong %d of %d, element 0 = %s%n", stage, wrong, COUNT, values[0]);
        assertThat(wrong).as(stage + ": wrong elements").isZero();
    }

    @Test
    void stageTheCallersCopyRoundTrips() {
        CUctx_st context = new CUctx_st();
        System.out.println("test thread context rc " + cuCtxGetCurrent(context) + " ctx 0x"
                + Long.toHexString(context.address()));
        withCallersMemory((send, recv) -> assertExpected("caller memcpy round trip", read(send)));
    }

    @Test
    void stageWrappedMemoryBlocking() {
        withCallersMemory((send, recv) -> {
            try (CommBuffer s = comm.wrapDevice(send.address(), COUNT * 4L);
                 CommBuffer r = comm.wrapDevice(recv.address(), COUNT * 4L)) {
                comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                assertExpected("wrapped blocking, read by CommBuffer", read(r));
            }
            assertThat(cudaDeviceSynchronize()).isZero();
            assertExpected("wrapped blocking, read by caller", read(recv));
        });
    }

    @Test
    void stageOwnBuffersOnTheCallersStream() {
        CUstream_st stream = new CUstream_st();
        assertThat(cudaStreamCreate(stream)).isZero();
        try (CommBuffer s = comm.allocate(COUNT * 4L); CommBuffer r = comm.allocate(COUNT * 4L)) {
            ByteBuffer host = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < COUNT; i++) {
                host.putFloat(expected(i));
            }
            s.copyFromHost(host.flip(), 0);
            comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM, new CudaStream(stream.address()));
            assertThat(cudaStreamSynchronize(stream)).isZero();
            System.out.println("last error after own-buffer stream call " + cudaGetLastError());
            assertExpected("own buffers, caller stream", read(r));
        } finally {
            cudaStreamDestroy(stream);
        }
    }

    @Test
    void stageWrappedMemoryOnTheCallersStream() {
        CUstream_st stream = new CUstream_st();
        assertThat(cudaStreamCreate(stream)).isZero();
        try {
            withCallersMemory((send, recv) -> {
                System.out.println("caller stream 0x" + Long.toHexString(stream.address()) + " send 0x"
                        + Long.toHexString(send.address()) + " recv 0x" + Long.toHexString(recv.address()));
                try (CommBuffer s = comm.wrapDevice(send.address(), COUNT * 4L);
                     CommBuffer r = comm.wrapDevice(recv.address(), COUNT * 4L)) {
                    comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM, new CudaStream(stream.address()));
                    int sync = cudaStreamSynchronize(stream);
                    System.out.println("stream sync " + sync + ", last error " + cudaGetLastError());
                    assertExpected("wrapped, caller stream, after stream sync", read(recv));
                }
                assertThat(cudaDeviceSynchronize()).isZero();
                assertExpected("wrapped, caller stream, after device sync", read(recv));
            });
        } finally {
            cudaStreamDestroy(stream);
        }
    }
}
