package io.allsum;

import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.join.GroupJoin;
import io.allsum.comm.ring.RingBuffer;
import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One rank's communicator over a group formed through the rendezvous server ({@link Allsum#init()}), or split off
 * one ({@link #split}). Every collective is issued in call order on one thread of this communicator, so the
 * {@code *Async} variants may be mixed with blocking calls; every rank must issue the same collectives in the same
 * order. Host data ({@link MemorySegment}, {@link ByteBuffer}, arrays) is copied into the backend's memory and
 * back; {@link #allocate} gives that memory itself (device memory for NCCL) for calls without copies. A failure
 * is a {@link CommException} naming the phase, this rank and the cause (a peer that died, a deadline, the server
 * ending the generation); the communicator is then unusable. {@link #close()} leaves the group.
 */
public final class Communicator implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Communicator.class.getName());
    private static final Duration LEAVE_DEADLINE = Duration.ofSeconds(3);

    private final GroupJoin join;
    private final GroupView view;
    private final io.allsum.comm.Communicator backend;
    private final ExecutorService ordered;
    private final ScheduledExecutorService heartbeats;
    private final AtomicReference<String> broken = new AtomicReference<>();
    private final Object closeLock = new Object();
    private boolean closed;
    /** Staging memory, reused across calls: touched only by the {@link #ordered} thread. */
    private CommBuffer stage;
    private ByteBuffer hostStage;
    /** The last queued call: a blocking call waits for it. */
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);

    /** A joined group's communicator: heartbeats while open, leaves on close. */
    Communicator(GroupJoin join, GroupView view, io.allsum.comm.Communicator backend, Duration heartbeatInterval) {
        this.join = join;
        this.view = view;
        this.backend = backend;
        this.ordered = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
                .name("allsum-comm-r" + backend.rank()).factory());
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("allsum-heartbeat-r" + backend.rank()).factory());
        long every = heartbeatInterval.toMillis();
        heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
        backend.onFailure(this::failedWhileIdle);
    }

    /** A communicator split off another: no membership of its own (the parent's heartbeats cover the process). */
    private Communicator(io.allsum.comm.Communicator backend) {
        this.join = null;
        this.view = null;
        this.backend = backend;
        this.ordered = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon()
                .name("allsum-comm-split-r" + backend.rank()).factory());
        this.heartbeats = null;
        backend.onFailure(e -> broken.compareAndSet(null, e.getMessage()));
    }

    public int rank() {
        return backend.rank();
    }

    public int size() {
        return backend.size();
    }

    public Backend backend() {
        return backend.backend();
    }

    /** The generation of the group this communicator belongs to (0 for a split communicator). */
    public long generation() {
        return view == null ? 0 : view.generation();
    }

    /** The backend's communicator, for callers that drive {@link CommBuffer}s themselves; same ordering rules. */
    public io.allsum.comm.Communicator unwrap() {
        return backend;
    }

    /**
     * {@code bytes} bytes of the backend's memory (device memory for NCCL, off-heap host memory for the ring), for
     * the {@link CommBuffer} overloads, which move no data through the host. The caller closes it.
     */
    public CommBuffer allocate(long bytes) {
        return backend.allocate(bytes);
    }

    // ---- all-reduce ----

    /** In place: every rank's {@code data} becomes the reduction over ranks; {@code AVG} is the mean. */
    public void allReduce(MemorySegment data, DataType type, ReduceOp op) {
        inline("all_reduce", allReduceTask(data, type, op));
    }

    public CompletableFuture<Void> allReduceAsync(MemorySegment data, DataType type, ReduceOp op) {
        return submit("all_reduce", allReduceTask(data, type, op));
    }

    private Runnable allReduceTask(MemorySegment data, DataType type, ReduceOp op) {
        long count = count(data.byteSize(), type);
        return () -> {
            CommBuffer b = stage(data.byteSize());
            toBackend(data, b, 0);
            backend.allReduce(b, b, count, type, op);
            fromBackend(b, 0, data);
        };
    }

    /** In place over the buffer's remaining bytes (position and limit unchanged). */
    public void allReduce(ByteBuffer data, DataType type, ReduceOp op) {
        allReduce(MemorySegment.ofBuffer(data), type, op);
    }

    /** On the backend's memory, without copies: {@code recv[i] = op(send[i])} for {@code i < count}. */
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        inline("all_reduce", () -> backend.allReduce(send, recv, count, type, op));
    }

    /** In place; returns {@code data}. */
    public float[] allReduce(float[] data, ReduceOp op) {
        allReduce(MemorySegment.ofArray(data), DataType.FLOAT32, op);
        return data;
    }

    public double[] allReduce(double[] data, ReduceOp op) {
        allReduce(MemorySegment.ofArray(data), DataType.FLOAT64, op);
        return data;
    }

    public int[] allReduce(int[] data, ReduceOp op) {
        allReduce(MemorySegment.ofArray(data), DataType.INT32, op);
        return data;
    }

    public long[] allReduce(long[] data, ReduceOp op) {
        allReduce(MemorySegment.ofArray(data), DataType.INT64, op);
        return data;
    }

    /** The array is the caller's again once the future completes. */
    public CompletableFuture<float[]> allReduceAsync(float[] data, ReduceOp op) {
        return allReduceAsync(MemorySegment.ofArray(data), DataType.FLOAT32, op).thenApply(v -> data);
    }

    public CompletableFuture<double[]> allReduceAsync(double[] data, ReduceOp op) {
        return allReduceAsync(MemorySegment.ofArray(data), DataType.FLOAT64, op).thenApply(v -> data);
    }

    // ---- all-gather, reduce-scatter, broadcast ----

    /** {@code recv} holds {@code size()} blocks of {@code send}'s size: rank r's block at r x send.byteSize(). */
    public void allGather(MemorySegment send, MemorySegment recv, DataType type) {
        inline("all_gather", allGatherTask(send, recv, type));
    }

    public CompletableFuture<Void> allGatherAsync(MemorySegment send, MemorySegment recv, DataType type) {
        return submit("all_gather", allGatherTask(send, recv, type));
    }

    private Runnable allGatherTask(MemorySegment send, MemorySegment recv, DataType type) {
        long count = count(send.byteSize(), type);
        requireBytes(recv, send.byteSize() * size(), "all_gather's recv");
        return () -> {
            CommBuffer b = stage(recv.byteSize());
            toBackend(send, b, rank() * send.byteSize());
            backend.allGather(b, b, count, type);
            fromBackend(b, 0, recv);
        };
    }

    public float[] allGather(float[] send) {
        float[] recv = new float[Math.multiplyExact(send.length, size())];
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.FLOAT32);
        return recv;
    }

    public double[] allGather(double[] send) {
        double[] recv = new double[Math.multiplyExact(send.length, size())];
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.FLOAT64);
        return recv;
    }

    public int[] allGather(int[] send) {
        int[] recv = new int[Math.multiplyExact(send.length, size())];
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.INT32);
        return recv;
    }

    public long[] allGather(long[] send) {
        long[] recv = new long[Math.multiplyExact(send.length, size())];
        allGather(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.INT64);
        return recv;
    }

    /** {@code send} holds {@code size()} blocks of {@code recv}'s size; this rank receives the reduction of its block. */
    public void reduceScatter(MemorySegment send, MemorySegment recv, DataType type, ReduceOp op) {
        inline("reduce_scatter", reduceScatterTask(send, recv, type, op));
    }

    public CompletableFuture<Void> reduceScatterAsync(MemorySegment send, MemorySegment recv, DataType type,
                                                      ReduceOp op) {
        return submit("reduce_scatter", reduceScatterTask(send, recv, type, op));
    }

    private Runnable reduceScatterTask(MemorySegment send, MemorySegment recv, DataType type,
                                                      ReduceOp op) {
        long count = count(recv.byteSize(), type);
        requireBytes(send, recv.byteSize() * size(), "reduce_scatter's send");
        return () -> {
            CommBuffer b = stage(send.byteSize());
            toBackend(send, b, 0);
            backend.reduceScatter(b, b, count, type, op);
            fromBackend(b, rank() * recv.byteSize(), recv);
        };
    }

    /** This rank's block (length / size() elements) of the reduction; {@code send.length} a multiple of size(). */
    public float[] reduceScatter(float[] send, ReduceOp op) {
        float[] recv = new float[block(send.length)];
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.FLOAT32, op);
        return recv;
    }

    public double[] reduceScatter(double[] send, ReduceOp op) {
        double[] recv = new double[block(send.length)];
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.FLOAT64, op);
        return recv;
    }

    public int[] reduceScatter(int[] send, ReduceOp op) {
        int[] recv = new int[block(send.length)];
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.INT32, op);
        return recv;
    }

    public long[] reduceScatter(long[] send, ReduceOp op) {
        long[] recv = new long[block(send.length)];
        reduceScatter(MemorySegment.ofArray(send), MemorySegment.ofArray(recv), DataType.INT64, op);
        return recv;
    }

    /** In place: every rank's {@code data} becomes {@code root}'s. */
    public void broadcast(MemorySegment data, DataType type, int root) {
        inline("broadcast", broadcastTask(data, type, root));
    }

    public CompletableFuture<Void> broadcastAsync(MemorySegment data, DataType type, int root) {
        return submit("broadcast", broadcastTask(data, type, root));
    }

    private Runnable broadcastTask(MemorySegment data, DataType type, int root) {
        long count = count(data.byteSize(), type);
        return () -> {
            CommBuffer b = stage(data.byteSize());
            if (rank() == root) {
                toBackend(data, b, 0);
            }
            backend.broadcast(b, b, count, type, root);
            fromBackend(b, 0, data);
        };
    }

    public void broadcast(ByteBuffer data, DataType type, int root) {
        broadcast(MemorySegment.ofBuffer(data), type, root);
    }

    public float[] broadcast(float[] data, int root) {
        broadcast(MemorySegment.ofArray(data), DataType.FLOAT32, root);
        return data;
    }

    public double[] broadcast(double[] data, int root) {
        broadcast(MemorySegment.ofArray(data), DataType.FLOAT64, root);
        return data;
    }

    public int[] broadcast(int[] data, int root) {
        broadcast(MemorySegment.ofArray(data), DataType.INT32, root);
        return data;
    }

    public long[] broadcast(long[] data, int root) {
        broadcast(MemorySegment.ofArray(data), DataType.INT64, root);
        return data;
    }

    // ---- the caller's device memory, on the caller's CUDA stream (NCCL) ----

    /**
     * The caller's own device memory (a tensor's data pointer, say, on this rank's device) for the {@link CommBuffer}
     * overloads, without a copy; closing the buffer never frees the memory. NCCL only.
     */
    public CommBuffer wrapDevice(long devicePointer, long bytes) {
        requireNccl("wrap");
        return backend.wrap(devicePointer, bytes);
    }

    /**
     * Enqueued on {@code stream} after the caller's work there, returning without waiting, as ncclAllReduce does:
     * synchronize the stream before reading {@code recv} on the host. A failure NCCL finds later fails a later call.
     */
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op,
                          CudaStream stream) {
        onStream("all_reduce", stream, b -> b.allReduce(send, recv, count, type, op));
    }

    /** As {@link #allReduce(CommBuffer, CommBuffer, long, DataType, ReduceOp, CudaStream)}: enqueued, not waited. */
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type, CudaStream stream) {
        onStream("all_gather", stream, b -> b.allGather(send, recv, sendCount, type));
    }

    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op,
                              CudaStream stream) {
        onStream("reduce_scatter", stream, b -> b.reduceScatter(send, recv, recvCount, type, op));
    }

    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root,
                          CudaStream stream) {
        onStream("broadcast", stream, b -> b.broadcast(send, recv, count, type, root));
    }

    public void send(CommBuffer data, long count, DataType type, int peer, CudaStream stream) {
        onStream("send", stream, b -> b.send(data, count, type, peer));
    }

    public void recv(CommBuffer data, long count, DataType type, int peer, CudaStream stream) {
        onStream("recv", stream, b -> b.recv(data, count, type, peer));
    }

    private void onStream(String phase, CudaStream stream, Consumer<io.allsum.comm.Communicator> calls) {
        requireNccl(phase);
        java.util.Objects.requireNonNull(stream, "stream");
        inline(phase, () -> backend.enqueueOn(stream.handle(), calls));
    }

    private void requireNccl(String phase) {
        if (backend.backend() != Backend.NCCL) {
            throw new CommException(phase, rank(), "device memory and CUDA streams need the NCCL backend, this "
                    + "communicator is " + backend.backend() + ": use the MemorySegment, ByteBuffer or array calls");
        }
    }

    // ---- point to point ----

    /** Sends {@code data} to {@code peer}, which calls {@link #recv} with a buffer of the same size. */
    public void send(MemorySegment data, DataType type, int peer) {
        inline("send", sendTask(data, type, peer));
    }

    public CompletableFuture<Void> sendAsync(MemorySegment data, DataType type, int peer) {
        return submit("send", sendTask(data, type, peer));
    }

    private Runnable sendTask(MemorySegment data, DataType type, int peer) {
        long count = count(data.byteSize(), type);
        return () -> {
            CommBuffer b = stage(data.byteSize());
            toBackend(data, b, 0);
            backend.send(b, count, type, peer);
        };
    }

    /** Receives into {@code data} what {@code peer} sends. */
    public void recv(MemorySegment data, DataType type, int peer) {
        inline("recv", recvTask(data, type, peer));
    }

    public CompletableFuture<Void> recvAsync(MemorySegment data, DataType type, int peer) {
        return submit("recv", recvTask(data, type, peer));
    }

    private Runnable recvTask(MemorySegment data, DataType type, int peer) {
        long count = count(data.byteSize(), type);
        return () -> {
            CommBuffer b = stage(data.byteSize());
            backend.recv(b, count, type, peer);
            fromBackend(b, 0, data);
        };
    }

    public void send(ByteBuffer data, DataType type, int peer) {
        send(MemorySegment.ofBuffer(data), type, peer);
    }

    public void recv(ByteBuffer data, DataType type, int peer) {
        recv(MemorySegment.ofBuffer(data), type, peer);
    }

    public void send(float[] data, int peer) {
        send(MemorySegment.ofArray(data), DataType.FLOAT32, peer);
    }

    public void recv(float[] data, int peer) {
        recv(MemorySegment.ofArray(data), DataType.FLOAT32, peer);
    }

    public void send(double[] data, int peer) {
        send(MemorySegment.ofArray(data), DataType.FLOAT64, peer);
    }

    public void recv(double[] data, int peer) {
        recv(MemorySegment.ofArray(data), DataType.FLOAT64, peer);
    }

    public void send(int[] data, int peer) {
        send(MemorySegment.ofArray(data), DataType.INT32, peer);
    }

    public void recv(int[] data, int peer) {
        recv(MemorySegment.ofArray(data), DataType.INT32, peer);
    }

    public void send(long[] data, int peer) {
        send(MemorySegment.ofArray(data), DataType.INT64, peer);
    }

    public void recv(long[] data, int peer) {
        recv(MemorySegment.ofArray(data), DataType.INT64, peer);
    }

    // ---- group ----

    /** Returns once every rank called it. */
    public void barrier() {
        inline("barrier", backend::barrier);
    }

    public CompletableFuture<Void> barrierAsync() {
        return submit("barrier", backend::barrier);
    }

    /**
     * A communicator over the ranks that pass the same {@code color}, ordered by {@code key} then rank; null on
     * ranks that pass a negative color. Collective over this communicator; close it first, then this one.
     */
    public Communicator split(int color, int key) {
        io.allsum.comm.Communicator[] child = new io.allsum.comm.Communicator[1];
        inline("split", () -> child[0] = backend.split(color, key));
        return child[0] == null ? null : new Communicator(child[0]);
    }

    // ---- failure and shutdown ----

    /**
     * Fails the call in flight and every later one, tells the server that this rank's generation failed (so that
     * the other ranks learn it at once rather than at their deadline), and closes; the server calls wait at most
     * {@code deadline}.
     */
    public void abort(Duration deadline) {
        markBroken("aborted by the application on rank " + rank());
        if (join != null) {
            bounded("report the abort", () -> join.reportFailure(view.generation(),
                    new CommException("abort", rank(), "the application aborted the communicator")), deadline);
        }
        close(deadline);
    }

    /** Leaves the group and releases the backend. Idempotent. */
    @Override
    public void close() {
        close(LEAVE_DEADLINE);
    }

    private void close(Duration deadline) {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (heartbeats != null) {
            heartbeats.shutdownNow();
        }
        ordered.shutdown();
        try {
            if (!ordered.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                backend.abort();
                ordered.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (join != null) {
            bounded("leave the group", join::leave, deadline);
        }
        closeQuietly(stage);
        try {
            backend.close();
        } finally {
            if (join != null) {
                if (join.factory() instanceof AutoCloseable factory) {
                    try {
                        factory.close();
                    } catch (Exception e) {
                        LOG.log(System.Logger.Level.WARNING, "Closing the backend factory failed: " + e);
                    }
                }
                join.client().close();
            }
        }
    }

    private void heartbeat() {
        if (broken.get() != null) {
            return;
        }
        try {
            join.heartbeat(view).ifPresent(this::markBroken);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Rank " + rank() + ": heartbeat failed: " + e.getMessage());
        }
    }

    /** A peer died while the group was idle: the generation is over, and the server hears of it at once. */
    private void failedWhileIdle(CommException e) {
        if (markBroken(e.getMessage())) {
            Thread.ofVirtual().name("allsum-failure-report").start(() -> {
                try {
                    join.reportFailure(view.generation(), e);
                } catch (RuntimeException ignored) {
                    // the server also learns it from the peer's missing heartbeats
                }
            });
        }
    }

    /** The first reason wins and aborts the backend, which fails a call in flight. */
    private boolean markBroken(String reason) {
        if (!broken.compareAndSet(null, reason)) {
            return false;
        }
        LOG.log(System.Logger.Level.WARNING, "Rank " + rank() + ": the communicator is unusable: " + reason);
        try {
            backend.abort();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Aborting the backend failed: " + e);
        }
        return true;
    }

    // ---- plumbing ----

    /** Queues {@code body} after every call issued so far, on this communicator's thread. */
    private synchronized CompletableFuture<Void> submit(String phase, Runnable body) {
        if (ordered.isShutdown()) {
            throw new CommException(phase, rank(), "the communicator is closed");
        }
        CompletableFuture<Void> next = CompletableFuture.runAsync(() -> guarded(phase, body), ordered);
        tail = next;
        return next;
    }

    /** Runs {@code body} on the caller's thread once every queued call is done (so the caller's memory is fine). */
    private void inline(String phase, Runnable body) {
        CompletableFuture<Void> before;
        synchronized (this) {
            if (ordered.isShutdown()) {
                throw new CommException(phase, rank(), "the communicator is closed");
            }
            before = tail;
        }
        before.handle((v, e) -> null).join();
        guarded(phase, body);
    }

    private void guarded(String phase, Runnable body) {
        String why = broken.get();
        if (why != null) {
            throw new CommException(phase, rank(), "the communicator is unusable: " + why);
        }
        try {
            body.run();
        } catch (CommException e) {
            String cause = broken.get();
            throw cause == null || e.getMessage().contains(cause) ? e
                    : new CommException(phase, rank(), cause + " (" + e.getMessage() + ")", e);
        }
    }

    private CommBuffer stage(long bytes) {
        if (stage == null || stage.byteSize() < bytes) {
            closeQuietly(stage);
            stage = null;
            stage = backend.allocate(Math.max(bytes, 64));
        }
        return stage;
    }

    private void toBackend(MemorySegment src, CommBuffer dst, long offset) {
        if (dst instanceof RingBuffer ring) {
            MemorySegment.copy(src, 0, ring.segment(), offset, src.byteSize());
            return;
        }
        ByteBuffer host = host(src.byteSize());
        MemorySegment.ofBuffer(host).copyFrom(src);
        dst.copyFromHost(host, offset);
    }

    private void fromBackend(CommBuffer src, long offset, MemorySegment dst) {
        if (src instanceof RingBuffer ring) {
            MemorySegment.copy(ring.segment(), offset, dst, 0, dst.byteSize());
            return;
        }
        ByteBuffer host = host(dst.byteSize());
        src.copyToHost(host, offset);
        dst.copyFrom(MemorySegment.ofBuffer(host));
    }

    /** A little-endian direct buffer of exactly {@code bytes} remaining, for the NCCL copies. */
    private ByteBuffer host(long bytes) {
        int n = Math.toIntExact(bytes);
        if (hostStage == null || hostStage.capacity() < n) {
            hostStage = ByteBuffer.allocateDirect(Math.max(n, 64)).order(ByteOrder.LITTLE_ENDIAN);
        }
        return hostStage.clear().limit(n);
    }

    private long count(long bytes, DataType type) {
        if (bytes % type.bytes() != 0) {
            throw new IllegalArgumentException(bytes + " bytes are not a whole number of " + type + " elements");
        }
        return bytes / type.bytes();
    }

    private int block(int length) {
        if (length % size() != 0) {
            throw new IllegalArgumentException(length + " elements do not split into " + size() + " equal blocks");
        }
        return length / size();
    }

    private static void requireBytes(MemorySegment segment, long bytes, String what) {
        if (segment.byteSize() != bytes) {
            throw new IllegalArgumentException(what + " must hold " + bytes + " bytes, holds " + segment.byteSize());
        }
    }

    private void bounded(String what, Runnable call, Duration deadline) {
        Thread t = Thread.ofVirtual().name("allsum-" + what.replace(' ', '-')).start(() -> {
            try {
                call.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "Rank " + rank() + " could not " + what + ": " + e.getMessage());
            }
        });
        try {
            if (!t.join(deadline)) {
                LOG.log(System.Logger.Level.WARNING, "Rank " + rank() + " could not " + what + " within " + deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(CommBuffer buffer) {
        if (buffer != null) {
            try {
                buffer.close();
            } catch (RuntimeException ignored) {
                // freeing staging memory of a broken communicator
            }
        }
    }
}
