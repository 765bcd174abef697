package io.allsum;

import io.allsum.comm.CommBuffer;
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

import static org.assertj.core.api.Assertions.assertThat;
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
 * The caller's device memory, one stage at a time, so that a wrong result says which stage lost the data: the
 * caller's own copy, the communicator's buffers on the caller's stream, and wrapped memory with and without it.
 */
@NcclAvailable
class DeviceMemoryStagesGpuTest {

    private static final int COUNT = 1 << 12;
    private static Communicator comm;

    @BeforeAll
    static void joinAlone() {
        InMemoryRendezvous server = new InMemoryRendezvous(1);
        comm = new Allsum.Builder().group("stages").rank(0).worldSize(1).backend("nccl")
                .heartbeatInterval(Duration.ofMillis(200)).collectiveDeadline(Duration.ofSeconds(30))
                .init(server.client());
    }

    @AfterAll
    static void leave() {
        if (comm != null) {
            comm.close();
        }
    }

    private static float expected(int i) {
        return i * 0.25f - 3;
    }

    private static void fill(Pointer device) {
        try (FloatPointer host = new FloatPointer(COUNT)) {
            for (int i = 0; i < COUNT; i++) {
                host.put(i, expected(i));
            }
            assertThat(cudaMemcpy(device, host, COUNT * 4L, cudaMemcpyHostToDevice)).isZero();
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

    private static void assertExpected(String stage, float[] values) {
        int wrong = 0;
        for (int i = 0; i < COUNT; i++) {
            if (values[i] != expected(i)) {
                wrong++;
            }
        }
        System.out.printf("stage %-40s wrong %d of %d, element 0 = %s%n", stage, wrong, COUNT, values[0]);
        assertThat(wrong).as(stage + ": wrong elements").isZero();
    }

    @Test
    void theCallersCopyRoundTrips() {
        CUctx_st context = new CUctx_st();
        System.out.println("test thread context rc " + cuCtxGetCurrent(context) + " ctx 0x"
                + Long.toHexString(context.address()));
        Pointer send = new Pointer();
        assertThat(cudaMalloc(send, COUNT * 4L)).isZero();
        try {
            fill(send);
            assertExpected("caller memcpy round trip", read(send));
        } finally {
            cudaFree(send);
        }
    }

    @Test
    void wrappedMemoryBlocking() {
        Pointer send = new Pointer();
        Pointer recv = new Pointer();
        assertThat(cudaMalloc(send, COUNT * 4L)).isZero();
        assertThat(cudaMalloc(recv, COUNT * 4L)).isZero();
        try {
            fill(send);
            assertThat(cudaMemset(recv, 0, COUNT * 4L)).isZero();
            try (CommBuffer s = comm.wrapDevice(send.address(), COUNT * 4L);
                 CommBuffer r = comm.wrapDevice(recv.address(), COUNT * 4L)) {
                comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM);
                ByteBuffer viaBuffer = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.LITTLE_ENDIAN);
                r.copyToHost(viaBuffer, 0);
                float[] values = new float[COUNT];
                viaBuffer.asFloatBuffer().get(values);
                assertExpected("wrapped blocking, read by CommBuffer", values);
            }
            assertThat(cudaDeviceSynchronize()).isZero();
            assertExpected("wrapped blocking, read by caller", read(recv));
        } finally {
            cudaFree(send);
            cudaFree(recv);
        }
    }

    @Test
    void ownBuffersOnTheCallersStream() {
        CUstream_st stream = new CUstream_st();
        assertThat(cudaStreamCreate(stream)).isZero();
        try (CommBuffer s = comm.allocate(COUNT * 4L); CommBuffer r = comm.allocate(COUNT * 4L)) {
            ByteBuffer host = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < COUNT; i++) {
                host.putFloat(expected(i));
            }
            host.flip();
            s.copyFromHost(host, 0);
            comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM, new CudaStream(stream.address()));
            assertThat(cudaStreamSynchronize(stream)).isZero();
            System.out.println("last error after own-buffer stream call " + cudaGetLastError());
            ByteBuffer back = ByteBuffer.allocateDirect(COUNT * 4).order(ByteOrder.LITTLE_ENDIAN);
            r.copyToHost(back, 0);
            float[] values = new float[COUNT];
            back.asFloatBuffer().get(values);
            assertExpected("own buffers, caller stream", values);
        } finally {
            cudaStreamDestroy(stream);
        }
    }

    @Test
    void wrappedMemoryOnTheCallersStream() {
        Pointer send = new Pointer();
        Pointer recv = new Pointer();
        CUstream_st stream = new CUstream_st();
        assertThat(cudaMalloc(send, COUNT * 4L)).isZero();
        assertThat(cudaMalloc(recv, COUNT * 4L)).isZero();
        assertThat(cudaStreamCreate(stream)).isZero();
        System.out.println("caller stream 0x" + Long.toHexString(stream.address()) + " send 0x"
                + Long.toHexString(send.address()) + " recv 0x" + Long.toHexString(recv.address()));
        try {
            fill(send);
            assertThat(cudaMemset(recv, 0, COUNT * 4L)).isZero();
            try (CommBuffer s = comm.wrapDevice(send.address(), COUNT * 4L);
                 CommBuffer r = comm.wrapDevice(recv.address(), COUNT * 4L)) {
                comm.allReduce(s, r, COUNT, DataType.FLOAT32, ReduceOp.SUM, new CudaStream(stream.address()));
                int sync = cudaStreamSynchronize(stream);
                System.out.println("stream sync " + sync + ", last error " + cudaGetLastError());
                assertExpected("wrapped, caller stream, after stream sync", read(recv));
            }
            assertThat(cudaDeviceSynchronize()).isZero();
            assertExpected("wrapped, caller stream, after device sync", read(recv));
        } finally {
            cudaStreamDestroy(stream);
            cudaFree(send);
            cudaFree(recv);
        }
    }
}
