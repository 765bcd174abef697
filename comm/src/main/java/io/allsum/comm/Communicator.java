package io.allsum.comm;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.util.Map;
import java.util.function.Consumer;

/**
 * One communicator per group generation: the same collectives whatever the backend (like MLX's group interface).
 * Buffers come from {@link #allocate}; counts are in elements. Every call either completes or throws a
 * {@link CommException} (never hangs past the communicator's deadline, never exits the JVM). Calls are made from
 * one thread at a time, in the same order on every rank.
 */
public interface Communicator extends AutoCloseable {

    int rank();

    int size();

    Backend backend();

    /**
     * A buffer of {@code bytes} bytes in this backend's memory (device memory for NCCL, off-heap for ring);
     * {@link OutOfMemoryError} when that memory is not there, which leaves the communicator usable.
     */
    CommBuffer allocate(long bytes);

    /** Bytes {@link #allocate} can hand out now on this rank: host memory for ring, free device memory for NCCL. */
    long allocatableBytes();

    /** Bytes the backend allocates by itself, beyond the caller's buffers, for calls of {@code op} of {@code shape}. */
    default long workspaceBytes(CollectiveOp op, CollectiveOp.Shape shape) {
        return 0;
    }

    /** The largest {@code value} over ranks (every rank calls it): for the ranks to agree before a job's buffers. */
    default int maxOverRanks(int value) {
        if (size() == 1) {
            return value;
        }
        java.nio.ByteBuffer host = java.nio.ByteBuffer.allocateDirect(Integer.BYTES)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, value);
        try (CommBuffer buffer = allocate(Integer.BYTES)) {
            buffer.copyFromHost(host, 0);
            allReduce(buffer, buffer, 1, DataType.INT32, ReduceOp.MAX);
            buffer.copyToHost(host, 0);
        }
        return host.getInt(0);
    }

    /** recv[i] = op over ranks of send[i], for i < count. send == recv is in-place. */
    void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op);

    /**
     * recv holds size() x sendCount elements: rank r's send at offset r x sendCount. In-place (send == recv, as in
     * NCCL): this rank's input is already at element offset rank() x sendCount of that buffer.
     */
    void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type);

    /**
     * send holds size() x recvCount elements; rank r receives the reduction of block r. In-place (send == recv, as
     * in NCCL): the result lands at element offset rank() x recvCount of that buffer; the other blocks are undefined.
     */
    void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op);

    /** recv = root's send on every rank. */
    void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root);

    /** root's recv = op over ranks of send; recv on other ranks is untouched. */
    void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root);

    void send(CommBuffer buffer, long count, DataType type, int peer);

    void recv(CommBuffer buffer, long count, DataType type, int peer);

    /**
     * Point-to-point exchange in one step: send to {@code sendPeer} while receiving from {@code recvPeer}
     * (both sides posted together so that a ring of exchanges cannot deadlock).
     */
    void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type);

    void barrier();

    /**
     * A new communicator over the ranks that passed the same {@code color}, ordered by {@code key} then by rank.
     * Collective over this communicator. Returns null on ranks that passed a negative color.
     */
    Communicator split(int color, int key);

    /**
     * Runs {@code body} (which issues collectives on this communicator) and returns the elapsed nanoseconds,
     * measured the backend's way once the work is complete: CUDA events on the stream for NCCL, System.nanoTime
     * for the ring.
     */
    long timeNanos(Runnable body);

    /**
     * Registers who hears of a failure found outside any call, such as a peer whose connection closed while the
     * group was idle (called at most once, on a backend thread). Backends that cannot see such failures ignore it.
     */
    default void onFailure(Consumer<CommException> listener) {
    }

    /**
     * The kernel's TCP counters of this rank's connection to each peer, by peer rank, read now: empty where the
     * backend's traffic is not this process's TCP (NCCL) or the kernel does not say (Linux only).
     */
    default Map<Integer, TcpCounts> tcpCounters() {
        return Map.of();
    }

    /**
     * The caller's own memory at {@code address} as a buffer of {@code bytes} (for NCCL: device memory of this rank's
     * device, such as a tensor's data pointer), without a copy; closing the buffer never frees the memory.
     *
     * @throws CommException when the memory is not the backend's kind, or on another device
     */
    default CommBuffer wrap(long address, long bytes) {
        throw new UnsupportedOperationException("the " + backend() + " backend does not wrap a caller's memory");
    }

    /**
     * Runs {@code calls} (collectives on the communicator it is given, this one) enqueued on the caller's CUDA stream
     * {@code cudaStream} (a cudaStream_t; 0 is the legacy default stream) and returns without waiting for them, as
     * NCCL's own calls do: the stream orders them among the caller's kernels. A failure NCCL finds later fails the
     * next call. NCCL only.
     */
    default void enqueueOn(long cudaStream, Consumer<Communicator> calls) {
        throw new UnsupportedOperationException("the " + backend() + " backend has no CUDA stream");
    }

    /** Tears the communicator down at once, failing any call in flight; safe from any thread. */
    void abort();

    /** Releases connections, streams and the communicator. Idempotent. */
    @Override
    void close();
}
