package io.allsum.comm;

import java.nio.ByteBuffer;

/**
 * Memory a communicator reads and writes: device memory for NCCL, off-heap host memory for the ring.
 * Host data moves in and out through little-endian direct buffers. Freed deterministically by {@link #close()}.
 */
public interface CommBuffer extends AutoCloseable {

    long byteSize();

    /** Copies {@code src.remaining()} bytes from the host into this buffer at {@code offsetBytes}. */
    void copyFromHost(ByteBuffer src, long offsetBytes);

    /** Copies {@code dst.remaining()} bytes from this buffer at {@code offsetBytes} to the host. */
    void copyToHost(ByteBuffer dst, long offsetBytes);

    @Override
    void close();
}
