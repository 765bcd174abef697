package io.allsum.comm.ring;

import io.allsum.comm.CommBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Off-heap host memory for the ring backend, owned by its own shared arena so that {@link #close()} frees it at once.
 * Copies do not move the host buffer's position (they are absolute, like NIO's absolute bulk operations).
 */
public final class RingBuffer implements CommBuffer {

    private static final long ALIGNMENT = 64; // a cache line: keeps vectorised reduction loops aligned

    private final Arena arena;
    private final MemorySegment segment;

    public RingBuffer(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("buffer size must be >= 0, was " + bytes);
        }
        this.arena = Arena.ofShared();
        this.segment = arena.allocate(Math.max(bytes, 1), ALIGNMENT).asSlice(0, bytes);
    }

    /** The memory itself, for the communicator and for callers that fill buffers without copies. */
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }

    @Override
    public void copyFromHost(ByteBuffer src, long offsetBytes) {
        Objects.requireNonNull(src, "src");
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, segment, offsetBytes, src.remaining());
    }

    @Override
    public void copyToHost(ByteBuffer dst, long offsetBytes) {
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("destination buffer is read-only");
        }
        MemorySegment.copy(segment, offsetBytes, MemorySegment.ofBuffer(dst), 0, dst.remaining());
    }

    /** Frees the memory; idempotent. Any later access throws IllegalStateException. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
