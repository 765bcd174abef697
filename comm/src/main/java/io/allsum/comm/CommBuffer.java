package io.allsum.comm;

import java.nio.ByteBuffer;

/**
 * Memory a communicator reads and writes: device memory for NCCL, off-heap host memory for the ring.
 * Host data moves in and out through little-endian direct buffers. Freed deterministically by {@link #close()}.
 */
public interface CommBuffer extends AutoCloseable {

    long byteSize();

    /**
     * Copies {@code src.remaining()} bytes, from its position on, into this buffer at {@code offsetBytes}. An absolute
     * copy: {@code src}'s position and limit stay as they were, so one host buffer serves a round trip.
     */
    void copyFromHost(ByteBuffer src, long offsetBytes);

    /**
     * Copies {@code dst.remaining()} bytes from this buffer at {@code offsetBytes} into {@code dst} from its position
     * on. An absolute copy: {@code dst}'s position and limit stay as they were.
     */
    void copyToHost(ByteBuffer dst, long offsetBytes);

    @Override
    void close();
}
