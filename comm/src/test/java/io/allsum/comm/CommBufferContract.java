package io.allsum.comm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every backend's {@link CommBuffer} copies must do, run on the ring by {@code CommBufferContractTest} and on
 * NCCL by {@code NcclCommunicatorGpuTest}: absolute copies from and to the host buffer's position, which stays put.
 */
public final class CommBufferContract {

    private CommBufferContract() {
    }

    /** Checks {@code buffer} (at least 64 bytes, its contents overwritten) with direct and heap host buffers. */
    public static void check(CommBuffer buffer) {
        for (boolean direct : new boolean[] {true, false}) {
            ByteBuffer host = (direct ? ByteBuffer.allocateDirect(48) : ByteBuffer.allocate(48))
                    .order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 12; i++) {
                host.putInt(i * 4, 100 + i);
            }
            host.position(8).limit(40); // 32 bytes: ints 2..9
            buffer.copyFromHost(host, 16);
            assertThat(host.position()).as("direct=%s: position after copyFromHost", direct).isEqualTo(8);
            assertThat(host.limit()).as("direct=%s: limit after copyFromHost", direct).isEqualTo(40);

            ByteBuffer back = (direct ? ByteBuffer.allocateDirect(48) : ByteBuffer.allocate(48))
                    .order(ByteOrder.LITTLE_ENDIAN);
            back.position(4).limit(36);
            buffer.copyToHost(back, 16);
            assertThat(back.position()).as("direct=%s: position after copyToHost", direct).isEqualTo(4);
            assertThat(back.limit()).as("direct=%s: limit after copyToHost", direct).isEqualTo(36);
            ByteBuffer whole = back.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 8; i++) {
                assertThat(whole.getInt(4 + i * 4)).as("direct=%s: int %d", direct, i).isEqualTo(102 + i);
            }
            assertThat(whole.getInt(0)).as("direct=%s: before the position", direct).isZero();
            assertThat(whole.getInt(36)).as("direct=%s: after the limit", direct).isZero();

            buffer.copyFromHost(host, 16); // the same host buffer again: a round trip needs no rewind
            buffer.copyToHost(back, 16);
            assertThat(back.getInt(4)).as("direct=%s: round trip", direct).isEqualTo(102);
        }
    }
}
