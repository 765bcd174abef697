package io.allsum;

import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.nccl.NcclAvailable;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreate;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamSynchronize;

/**
 * The library on memory and a stream the caller made with CUDA itself, as a program holding a tensor would: one NCCL
 * rank on the first GPU (NCCL allows one rank per GPU). Skipped with the reason where there is no GPU or libnccl.
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
}
