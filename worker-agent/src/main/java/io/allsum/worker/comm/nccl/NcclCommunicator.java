package io.allsum.worker.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.worker.comm.CommBuffer;
import io.allsum.worker.comm.CommException;
import io.allsum.worker.comm.CommTimeoutException;
import io.allsum.worker.comm.Communicator;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventQuery;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemset;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaStreamDestroy;
import static org.bytedeco.cuda.global.cudart.cudaStreamNonBlocking;
import static org.bytedeco.cuda.global.cudart.cudaStreamQuery;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;
import static org.bytedeco.cuda.global.nccl.NCCL_SPLIT_NOCOLOR;
import static org.bytedeco.cuda.global.nccl.ncclAllGather;
import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclBroadcast;
import static org.bytedeco.cuda.global.nccl.ncclCommAbort;
import static org.bytedeco.cuda.global.nccl.ncclCommCount;
import static org.bytedeco.cuda.global.nccl.ncclCommDestroy;
import static org.bytedeco.cuda.global.nccl.ncclCommFinalize;
import static org.bytedeco.cuda.global.nccl.ncclCommGetAsyncError;
import static org.bytedeco.cuda.global.nccl.ncclCommInitRankConfig;
import static org.bytedeco.cuda.global.nccl.ncclCommSplit;
import static org.bytedeco.cuda.global.nccl.ncclCommUserRank;
import static org.bytedeco.cuda.global.nccl.ncclGroupEnd;
import static org.bytedeco.cuda.global.nccl.ncclGroupStart;
import static org.bytedeco.cuda.global.nccl.ncclInProgress;
import static org.bytedeco.cuda.global.nccl.ncclInt32;
import static org.bytedeco.cuda.global.nccl.ncclRecv;
import static org.bytedeco.cuda.global.nccl.ncclReduce;
import static org.bytedeco.cuda.global.nccl.ncclReduceScatter;
import static org.bytedeco.cuda.global.nccl.ncclSend;
import static org.bytedeco.cuda.global.nccl.ncclSuccess;
import static org.bytedeco.cuda.global.nccl.ncclSum;

/**
 * An NCCL communicator on one GPU. Every CUDA/NCCL call runs on the factory's {@link GpuThread}. The communicator is
 * non-blocking ({@code ncclConfig_t.blocking = 0}), so every wait (init, each collective, finalize) polls
 * {@code ncclCommGetAsyncError} against a deadline and aborts the communicator when the deadline passes.
 * <p>
 * A collective called from another thread enqueues and waits for the stream. Inside {@link #timeNanos} the body runs on
 * the GPU thread itself and collectives only enqueue (nccl-tests' method: back-to-back launches, then one sync), with
 * no thread hand-off and no JavaCPP Pointer allocated per call.
 */
public final class NcclCommunicator implements Communicator {

    /** Extra wait for the GPU thread beyond the operation's own deadline, before the caller gives up on it. */
    private static final Duration HANDOFF_GRACE = Duration.ofSeconds(10);
    /** Spin this long on a wait before parking: small collectives finish in microseconds. */
    private static final long SPIN_NANOS = 2_000_000;
    private static final long PARK_NANOS = 20_000;

    private final GpuThread gpu;
    private final int device;
    private final int rank;
    private final int size;
    private final int ncclVersion;
    private final Duration operationTimeout;
    private final ncclComm comm;
    private final CUstream_st stream = new CUstream_st();
    private final CUevent_st start = new CUevent_st();
    private final CUevent_st stop = new CUevent_st();
    private final IntPointer asyncState = new IntPointer(1);
    private final FloatPointer elapsedMillis = new FloatPointer(1);
    private final Set<NcclBuffer> liveBuffers = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean commReleased = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean abortRequested;
    private volatile String abortCause;
    private NcclBuffer barrierBuffer;
    /** GPU thread only: inside timeNanos, collectives enqueue without waiting. */
    private boolean enqueueOnly;

    private NcclCommunicator(GpuThread gpu, int device, int rank, int size, int ncclVersion,
                             Duration operationTimeout, ncclComm comm) {
        this.gpu = gpu;
        this.device = device;
        this.rank = rank;
        this.size = size;
        this.ncclVersion = ncclVersion;
        this.operationTimeout = operationTimeout;
        this.comm = comm;
    }

    /**
     * ncclCommInitRankConfig (non-blocking), polled until ready; aborted on error or when {@code deadlineNanos}
     * (System.nanoTime) passes. Must run on the GPU thread.
     */
    static NcclCommunicator initialize(GpuThread gpu, int device, int rank, int size, ncclUniqueId id,
                                       long deadlineNanos, int ncclVersion, Duration operationTimeout) {
        Nccl.checkCuda(cudaSetDevice(device), "init", rank, "cudaSetDevice(" + device + ")");
        ncclComm comm = new ncclComm();
        NcclCommunicator communicator = new NcclCommunicator(gpu, device, rank, size, ncclVersion, operationTimeout,
                comm);
        ncclConfig_t config = Nccl.nonBlockingConfig();
        int rc = ncclCommInitRankConfig(comm, size, id, rank, config);
        if (rc != ncclSuccess && rc != ncclInProgress) {
            String message = "ncclCommInitRankConfig(nranks=" + size + "): " + Nccl.ncclMessage(rc, comm);
            if (!comm.isNull()) {
                ncclCommAbort(comm);
            }
            throw new CommException("init", rank, message);
        }
        communicator.awaitComm(comm, "init", deadlineNanos);
        communicator.createStreamAndEvents("init");
        return communicator;
    }

    private void createStreamAndEvents(String phase) {
        try {
            Nccl.checkCuda(cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking), phase, rank,
                    "cudaStreamCreateWithFlags");
            Nccl.checkCuda(cudaEventCreate(start), phase, rank, "cudaEventCreate");
            Nccl.checkCuda(cudaEventCreate(stop), phase, rank, "cudaEventCreate");
            barrierBuffer = allocateOnGpu(Integer.BYTES);
            Nccl.checkCuda(cudaMemset(barrierBuffer.pointer(phase), 0, Integer.BYTES), phase, rank, "cudaMemset");
        } catch (RuntimeException e) {
            releaseComm(true);
            destroyStreamAndEvents();
            throw e;
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Backend backend() {
        return Backend.NCCL;
    }

    /** The CUDA device index this communicator runs on. */
    public int device() {
        return device;
    }

    @Override
    public CommBuffer allocate(long bytes) {
        ensureUsable("allocate");
        if (bytes < 0) {
            throw new CommException("allocate", rank, "negative size " + bytes);
        }
        return gpu.call("allocate", rank, operationTimeout, () -> allocateOnGpu(bytes));
    }

    private NcclBuffer allocateOnGpu(long bytes) {
        Pointer memory = new Pointer();
        if (bytes > 0) {
            Nccl.checkCuda(cudaMalloc(memory, bytes), "allocate", rank, "cudaMalloc of " + bytes + " bytes");
        }
        NcclBuffer buffer = new NcclBuffer(memory, bytes, device, gpu, operationTimeout, rank, liveBuffers::remove);
        liveBuffers.add(buffer);
        return buffer;
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        String phase = "all_reduce";
        Pointer s = input(send, phase, count, type);
        Pointer r = output(recv, phase, count, type);
        int dt = dtype(type, phase);
        int redop = redop(type, op, phase);
        collective(phase, () -> ncclAllReduce(s, r, count, dt, redop, comm, stream));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        String phase = "all_gather";
        Pointer r = output(recv, phase, Math.multiplyExact(sendCount, size), type);
        // In place, NCCL expects sendbuff == recvbuff + rank * sendcount: the input sits in this rank's own block.
        Pointer s = send == recv ? atByteOffset(r, (long) rank * sendCount * type.bytes())
                : input(send, phase, sendCount, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclAllGather(s, r, sendCount, dt, comm, stream));
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        String phase = "reduce_scatter";
        Pointer s = input(send, phase, Math.multiplyExact(recvCount, size), type);
        // In place, NCCL expects recvbuff == sendbuff + rank * recvcount: the result lands in this rank's own block.
        Pointer r = send == recv ? atByteOffset(s, (long) rank * recvCount * type.bytes())
                : output(recv, phase, recvCount, type);
        int dt = dtype(type, phase);
        int redop = redop(type, op, phase);
        collective(phase, () -> ncclReduceScatter(s, r, recvCount, dt, redop, comm, stream));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        String phase = "broadcast";
        checkPeer(phase, "root", root);
        Pointer s = rank == root ? input(send, phase, count, type) : buffer(send, phase).pointer(phase);
        Pointer r = output(recv, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclBroadcast(s, r, count, dt, root, comm, stream));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        String phase = "reduce";
        checkPeer(phase, "root", root);
        Pointer s = input(send, phase, count, type);
        Pointer r = rank == root ? output(recv, phase, count, type) : buffer(recv, phase).pointer(phase);
        int dt = dtype(type, phase);
        int redop = redop(type, op, phase);
        collective(phase, () -> ncclReduce(s, r, count, dt, redop, root, comm, stream));
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        String phase = "send";
        checkPeer(phase, "peer", peer);
        refuseSelf(phase, peer);
        Pointer s = input(buffer, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclSend(s, count, dt, peer, comm, stream));
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        String phase = "recv";
        checkPeer(phase, "peer", peer);
        refuseSelf(phase, peer);
        Pointer r = output(buffer, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclRecv(r, count, dt, peer, comm, stream));
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        String phase = "send_recv";
        checkPeer(phase, "send peer", sendPeer);
        checkPeer(phase, "recv peer", recvPeer);
        Pointer s = input(send, phase, count, type);
        Pointer r = output(recv, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> {
            int rc = ncclGroupStart();
            if (rc != ncclSuccess) {
                return rc;
            }
            int sent = ncclSend(s, count, dt, sendPeer, comm, stream);
            int received = ncclRecv(r, count, dt, recvPeer, comm, stream);
            int end = ncclGroupEnd();
            return sent != ncclSuccess ? sent : received != ncclSuccess ? received : end;
        });
    }

    @Override
    public void barrier() {
        String phase = "barrier";
        ensureUsable(phase);
        gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            Pointer one = barrierBuffer.pointer(phase);
            enqueue(phase, () -> ncclAllReduce(one, one, 1, ncclInt32, ncclSum, comm, stream));
            awaitWork(phase, null, deadline());
        });
    }

    @Override
    public Communicator split(int color, int key) {
        String phase = "split";
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            ncclComm child = new ncclComm();
            int rc = ncclCommSplit(comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, child, Nccl.nonBlockingConfig());
            if (rc != ncclSuccess && rc != ncclInProgress) {
                failCollective(phase, "ncclCommSplit(color=" + color + ", key=" + key + ")", rc);
            }
            long deadline = deadline();
            awaitComm(comm, phase, deadline);
            if (color < 0 || child.isNull()) {
                return null;
            }
            awaitComm(child, phase, deadline);
            int[] value = new int[1];
            Nccl.checkNccl(ncclCommUserRank(child, value), phase, rank, "ncclCommUserRank", child);
            int childRank = value[0];
            Nccl.checkNccl(ncclCommCount(child, value), phase, rank, "ncclCommCount", child);
            NcclCommunicator sub = new NcclCommunicator(gpu, device, childRank, value[0], ncclVersion,
                    operationTimeout, child);
            sub.createStreamAndEvents(phase);
            return sub;
        });
    }

    @Override
    public long timeNanos(Runnable body) {
        String phase = "time";
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            Nccl.checkCuda(cudaEventRecord(start, stream), phase, rank, "cudaEventRecord(start)");
            boolean outer = enqueueOnly;
            enqueueOnly = true;
            try {
                body.run();
            } finally {
                enqueueOnly = outer;
            }
            Nccl.checkCuda(cudaEventRecord(stop, stream), phase, rank, "cudaEventRecord(stop)");
            awaitWork(phase, stop, deadline());
            Nccl.checkCuda(cudaEventElapsedTime(elapsedMillis, start, stop), phase, rank, "cudaEventElapsedTime");
            return Math.round(elapsedMillis.get() * 1_000_000.0);
        });
    }

    @Override
    public void abort() {
        abortRequested = true;
        if (abortCause == null) {
            abortCause = "aborted by " + Thread.currentThread().getName();
        }
        if (gpu.isCurrent()) {
            releaseComm(true);
            return;
        }
        try {
            // The GPU thread notices abortRequested within microseconds if it is waiting; if it is idle this runs.
            gpu.run("abort", rank, HANDOFF_GRACE, () -> releaseComm(true));
        } catch (CommException e) {
            // Last resort when the GPU thread is stuck inside a native call: NCCL documents ncclCommAbort as the way
            // to unblock a communicator from another thread.
            releaseComm(true);
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            gpu.run("close", rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
                try {
                    for (NcclBuffer buffer : Set.copyOf(liveBuffers)) {
                        buffer.close();
                    }
                    if (!commReleased.get()) {
                        awaitWork("close", null, deadline());
                    }
                    releaseComm(false);
                } catch (RuntimeException e) {
                    releaseComm(true);
                    throw e;
                } finally {
                    destroyStreamAndEvents();
                }
            });
        } finally {
            asyncState.close();
            elapsedMillis.close();
        }
    }

    // ---- GPU-thread internals ----

    private void collective(String phase, IntSupplier enqueue) {
        ensureUsable(phase);
        if (gpu.isCurrent()) {
            runCollective(phase, enqueue);
        } else {
            gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> runCollective(phase, enqueue));
        }
    }

    private void runCollective(String phase, IntSupplier enqueue) {
        enqueue(phase, enqueue);
        if (!enqueueOnly) {
            awaitWork(phase, null, deadline());
        }
    }

    private void enqueue(String phase, IntSupplier enqueue) {
        int rc = enqueue.getAsInt();
        if (rc == ncclSuccess) {
            return;
        }
        if (rc == ncclInProgress) {
            awaitComm(comm, phase, deadline());
            return;
        }
        failCollective(phase, "enqueue", rc);
    }

    /**
     * Any NCCL error aborts: a non-blocking communicator keeps the first error as its async state, so even an
     * invalid argument poisons it (seen on NCCL 2.28.3). Known invalid combinations are refused before NCCL sees them.
     */
    private void failCollective(String phase, String call, int rc) {
        String message = call + ": " + Nccl.ncclMessage(rc, comm);
        abortCause = phase + " failed: " + message;
        releaseComm(true);
        throw new CommException(phase, rank, message + "; communicator aborted");
    }

    /** Polls ncclCommGetAsyncError on {@code target} until it leaves ncclInProgress. */
    private void awaitComm(ncclComm target, String phase, long deadlineNanos) {
        long began = System.nanoTime();
        while (true) {
            int rc = ncclCommGetAsyncError(target, asyncState);
            int state = rc == ncclSuccess ? asyncState.get() : rc;
            if (state == ncclSuccess) {
                return;
            }
            if (state != ncclInProgress) {
                String message = Nccl.ncclMessage(state, target);
                abortQuietly(target);
                throw new CommException(phase, rank, "NCCL reported " + message);
            }
            checkAbortAndDeadline(target, phase, deadlineNanos);
            pause(began);
        }
    }

    /** Waits until the stream (or {@code event}) is done, polling NCCL's async error and the deadline meanwhile. */
    private void awaitWork(String phase, CUevent_st event, long deadlineNanos) {
        long began = System.nanoTime();
        for (long spins = 0; ; spins++) {
            int rc = event == null ? cudaStreamQuery(stream) : cudaEventQuery(event);
            if (rc == cudaSuccess) {
                return;
            }
            if (rc != cudaErrorNotReady) {
                abortCause = phase + " failed: " + Nccl.cudaMessage(rc);
                releaseComm(true);
                throw new CommException(phase, rank, "CUDA reported " + Nccl.cudaMessage(rc));
            }
            if ((spins & 63) == 63) {
                int asyncRc = ncclCommGetAsyncError(comm, asyncState);
                int state = asyncRc == ncclSuccess ? asyncState.get() : asyncRc;
                if (state != ncclSuccess && state != ncclInProgress) {
                    String message = Nccl.ncclMessage(state, comm);
                    abortCause = phase + " failed: " + message;
                    releaseComm(true);
                    throw new CommException(phase, rank, "NCCL reported " + message);
                }
                checkAbortAndDeadline(comm, phase, deadlineNanos);
            }
            pause(began);
        }
    }

    private void checkAbortAndDeadline(ncclComm target, String phase, long deadlineNanos) {
        if (abortRequested) {
            abortQuietly(target);
            releaseComm(true);
            throw new CommException(phase, rank, abortCause);
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            abortQuietly(target);
            abortCause = phase + " timed out";
            releaseComm(true);
            throw new CommTimeoutException(phase, rank, "not done before the deadline ("
                    + operationTimeout + " per operation); communicator aborted");
        }
    }

    private static void pause(long began) {
        if (System.nanoTime() - began < SPIN_NANOS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    private void abortQuietly(ncclComm target) {
        if (target == comm) {
            releaseComm(true);
        } else if (!target.isNull()) {
            ncclCommAbort(target);
        }
    }

    /** Finalizes and destroys the communicator, or aborts it; at most once. */
    private void releaseComm(boolean abort) {
        if (!commReleased.compareAndSet(false, true) || comm.isNull()) {
            return;
        }
        if (abort) {
            ncclCommAbort(comm);
            return;
        }
        int rc = ncclCommFinalize(comm);
        if (rc == ncclInProgress || rc == ncclSuccess) {
            commReleased.set(false);
            try {
                awaitComm(comm, "close", deadline());
            } finally {
                commReleased.set(true);
            }
            ncclCommDestroy(comm);
        } else {
            ncclCommAbort(comm);
            throw new CommException("close", rank, "ncclCommFinalize: " + Nccl.ncclMessage(rc, comm));
        }
    }

    private void destroyStreamAndEvents() {
        if (!start.isNull()) {
            cudaEventDestroy(start);
        }
        if (!stop.isNull()) {
            cudaEventDestroy(stop);
        }
        if (!stream.isNull()) {
            cudaStreamDestroy(stream);
        }
    }

    private long deadline() {
        return System.nanoTime() + operationTimeout.toNanos();
    }

    // ---- argument checks (caller thread) ----

    private void ensureUsable(String phase) {
        if (closed.get()) {
            throw new CommException(phase, rank, "communicator is closed");
        }
        if (commReleased.get()) {
            throw new CommException(phase, rank, "communicator was aborted ("
                    + (abortCause == null ? "abort requested" : abortCause) + ")");
        }
    }

    private NcclBuffer buffer(CommBuffer buffer, String phase) {
        if (!(buffer instanceof NcclBuffer nccl)) {
            throw new CommException(phase, rank, "buffer is not NCCL device memory: "
                    + (buffer == null ? "null" : buffer.getClass().getName()));
        }
        if (nccl.deviceIndex() != device) {
            throw new CommException(phase, rank, "buffer lives on device " + nccl.deviceIndex()
                    + " but this communicator runs on device " + device);
        }
        return nccl;
    }

    private Pointer input(CommBuffer buffer, String phase, long count, DataType type) {
        return sized(buffer, phase, count, type, "send");
    }

    private Pointer output(CommBuffer buffer, String phase, long count, DataType type) {
        return sized(buffer, phase, count, type, "recv");
    }

    private Pointer sized(CommBuffer buffer, String phase, long count, DataType type, String role) {
        NcclBuffer nccl = buffer(buffer, phase);
        if (count < 0) {
            throw new CommException(phase, rank, "negative count " + count);
        }
        long needed = Math.multiplyExact(count, type.bytes());
        if (needed > nccl.byteSize()) {
            throw new CommException(phase, rank, role + " buffer holds " + nccl.byteSize() + " bytes but "
                    + count + " x " + type + " needs " + needed);
        }
        return nccl.pointer(phase);
    }

    private int dtype(DataType type, String phase) {
        String reason = Nccl.unsupportedTypeReason(type, ncclVersion);
        if (reason != null) {
            throw new CommException(phase, rank, reason);
        }
        return Nccl.ncclType(type);
    }

    private int redop(DataType type, ReduceOp op, String phase) {
        String reason = Nccl.unsupportedOpReason(type, op);
        if (reason != null) {
            throw new CommException(phase, rank, reason);
        }
        return Nccl.ncclOp(op);
    }

    private void checkPeer(String phase, String role, int peer) {
        if (peer < 0 || peer >= size) {
            throw new CommException(phase, rank, role + " " + peer + " is outside [0, " + size + ")");
        }
    }

    private void refuseSelf(String phase, int peer) {
        if (peer == rank) {
            throw new CommException(phase, rank, "a lone " + phase + " to itself would never match; use sendRecv");
        }
    }

    /** A view of device memory {@code offset} bytes into {@code base} (in-place all-gather / reduce-scatter). */
    private static Pointer atByteOffset(Pointer base, long offset) {
        return offset == 0 ? base : new BytePointer(base).position(base.position() + offset);
    }
}
