package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import io.allsum.comm.Communicator;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.cudart.CUgraphExec_st;
import org.bytedeco.cuda.cudart.CUgraph_st;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.cuda.nccl.ncclUniqueId;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import static org.bytedeco.cuda.global.cudart.cudaErrorMemoryAllocation;
import static org.bytedeco.cuda.global.cudart.cudaErrorNotReady;
import static org.bytedeco.cuda.global.cudart.cudaEventCreate;
import static org.bytedeco.cuda.global.cudart.cudaEventDestroy;
import static org.bytedeco.cuda.global.cudart.cudaEventElapsedTime;
import static org.bytedeco.cuda.global.cudart.cudaEventQuery;
import static org.bytedeco.cuda.global.cudart.cudaEventRecord;
import static org.bytedeco.cuda.global.cudart.cudaMemGetInfo;
import static org.bytedeco.cuda.global.cudart.cudaGraphDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphExecDestroy;
import static org.bytedeco.cuda.global.cudart.cudaGraphInstantiate;
import static org.bytedeco.cuda.global.cudart.cudaGraphLaunch;
import static org.bytedeco.cuda.global.cudart.CU_MEMORYTYPE_DEVICE;
import static org.bytedeco.cuda.global.cudart.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL;
import static org.bytedeco.cuda.global.cudart.CU_POINTER_ATTRIBUTE_IS_MANAGED;
import static org.bytedeco.cuda.global.cudart.CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
import static org.bytedeco.cuda.global.cudart.cuPointerGetAttribute;
import static org.bytedeco.cuda.global.cudart.cudaStreamBeginCapture;
import static org.bytedeco.cuda.global.cudart.cudaStreamCaptureModeThreadLocal;
import static org.bytedeco.cuda.global.cudart.cudaStreamEndCapture;
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
 * An NCCL communicator on one GPU, built the way PyTorch's ProcessGroupNCCL runs NCCL: collectives go to a
 * <em>blocking</em> communicator (NCCL's fast launch path: a non-blocking one hands every group launch to a helper
 * thread, 55-100 us per call at 2 ranks on H200 against 7-14 us), and nothing waits without a deadline:
 * <ul>
 * <li>init: a non-blocking "control" communicator ({@code ncclCommInitRankConfig}, polled against the deadline and
 * aborted past it), then the blocking data communicator is split off it ({@code ncclCommSplit} with
 * {@code blocking = 1}): the split is still polled on the non-blocking parent, so it has the same deadline;</li>
 * <li>each collective: the calling thread enqueues, then polls the stream, {@code ncclCommGetAsyncError} and the
 * deadline, and aborts past it (a dead or stopped peer leaves the kernel spinning: the abort flag ends it);</li>
 * <li>a blocking call that never returns (an enqueue that waits on a peer): the factory's {@link NcclWatchdog}
 * aborts the communicator from its own thread, as ProcessGroupNCCL's watchdog does.</li>
 * </ul>
 * {@link #split} is collective over the control communicator (non-blocking, so it has a deadline too). Every
 * CUDA/NCCL call runs under the factory's {@link GpuThread} lock, on the caller's platform thread when the GPU is free.
 * Inside {@link #timeNanos} collectives only enqueue (nccl-tests' method: back-to-back launches, then one sync), with
 * no thread hand-off, no lambda and no JavaCPP Pointer allocated per all-reduce.
 */
public final class NcclCommunicator implements Communicator {

    /** Extra wait for the GPU thread beyond the operation's own deadline, before the caller gives up on it. */
    private static final Duration HANDOFF_GRACE = Duration.ofSeconds(10);
    /** Spin this long on a wait before parking: small collectives finish in microseconds. */
    private static final long SPIN_NANOS = 2_000_000;
    private static final long PARK_NANOS = 20_000;
    private static final VarHandle NATIVE_CALLS;

    static {
        try {
            NATIVE_CALLS = MethodHandles.lookup().findVarHandle(NcclCommunicator.class, "nativeCalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final GpuThread gpu;
    private final NcclWatchdog watchdog;
    private final int device;
    private final int rank;
    private final int size;
    private final int ncclVersion;
    private final Duration operationTimeout;
    /** Non-blocking: init and split only, so that both keep a deadline. */
    private final ncclComm control;
    /** Blocking: every collective. Null until the split that makes it is done. */
    private ncclComm comm;
    private final CUstream_st stream = new CUstream_st();
    /** Under the GPU lock only: where collectives enqueue, this communicator's stream but inside {@link #enqueueOn}. */
    private CUstream_st active = stream;
    private final CUevent_st start = new CUevent_st();
    private final CUevent_st stop = new CUevent_st();
    private final IntPointer asyncState = new IntPointer(1);
    private final FloatPointer elapsedMillis = new FloatPointer(1);
    private final Set<NcclBuffer> liveBuffers = ConcurrentHashMap.newKeySet();
    /** Set when the communicator stops taking calls (closing or aborted). */
    private final AtomicBoolean commReleased = new AtomicBoolean();
    /** Set by whoever destroys or aborts the NCCL handles: exactly once. */
    private final AtomicBoolean handlesFreed = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean abortRequested;
    private volatile String abortCause;
    private NcclBuffer barrierBuffer;
    /** Under the GPU lock only: inside timeNanos, collectives enqueue without waiting. */
    private boolean enqueueOnly;
    /** Odd while a thread is inside a blocking NCCL call (written with release stores, read by the watchdog). */
    @SuppressWarnings("unused")
    private long nativeCalls;
    /** The phase of that call, for the watchdog's message. */
    private String nativePhase = "";
    /** Watchdog thread only. */
    private long watchedCall = -1;
    private long watchedSince;

    private NcclCommunicator(GpuThread gpu, NcclWatchdog watchdog, int device, int rank, int size, int ncclVersion,
                             Duration operationTimeout, ncclComm control) {
        this.gpu = gpu;
        this.watchdog = watchdog;
        this.device = device;
        this.rank = rank;
        this.size = size;
        this.ncclVersion = ncclVersion;
        this.operationTimeout = operationTimeout;
        this.control = control;
    }

    /**
     * The non-blocking control communicator ({@code ncclCommInitRankConfig}, polled until ready), then the blocking
     * data communicator split off it; aborted on error or when {@code deadlineNanos} (System.nanoTime) passes. Must
     * run on the GPU thread.
     */
    static NcclCommunicator initialize(GpuThread gpu, NcclWatchdog watchdog, int device, int rank, int size,
                                       ncclUniqueId id, long deadlineNanos, int ncclVersion,
                                       Duration operationTimeout) {
        Nccl.checkCuda(cudaSetDevice(device), "init", rank, "cudaSetDevice(" + device + ")");
        ncclComm control = new ncclComm();
        NcclCommunicator communicator = new NcclCommunicator(gpu, watchdog, device, rank, size, ncclVersion,
                operationTimeout, control);
        ncclConfig_t config = Nccl.nonBlockingConfig();
        int rc = ncclCommInitRankConfig(control, size, id, rank, config);
        if (rc != ncclSuccess && rc != ncclInProgress) {
            String message = "ncclCommInitRankConfig(nranks=" + size + "): " + Nccl.ncclMessage(rc, control);
            if (!control.isNull()) {
                ncclCommAbort(control);
            }
            throw new CommException("init", rank, message);
        }
        communicator.awaitComm(control, "init", deadlineNanos);
        communicator.comm = communicator.splitBlocking(control, rank, "init", deadlineNanos);
        communicator.createStreamAndEvents("init");
        watchdog.watch(communicator);
        gpu.useDevice(device);
        return communicator;
    }

    /**
     * Splits the blocking data communicator off the non-blocking {@code parent} (every rank, same color): the split
     * runs asynchronously on the parent, so it is polled there against the deadline. The child's handle is written by
     * NCCL's init thread when the split completes, hence a native out-slot rather than JavaCPP's stack temporary.
     */
    private ncclComm splitBlocking(ncclComm parent, int key, String phase, long deadlineNanos) {
        try (PointerPointer<ncclComm> out = new PointerPointer<>(1)) {
            int rc = ncclCommSplit(parent, 0, key, out, Nccl.blockingConfig());
            if (rc != ncclSuccess && rc != ncclInProgress) {
                String message = "ncclCommSplit(blocking child): " + Nccl.ncclMessage(rc, parent);
                abortAll(parent);
                throw new CommException(phase, rank, message);
            }
            awaitComm(parent, phase, deadlineNanos);
            ncclComm child = out.get(ncclComm.class, 0);
            if (child == null || child.isNull()) {
                abortAll(parent);
                throw new CommException(phase, rank, "ncclCommSplit returned no blocking communicator");
            }
            awaitComm(child, phase, deadlineNanos);
            return child;
        }
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
            abortAll();
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

    @Override
    public long allocatableBytes() {
        ensureUsable("allocate");
        return gpu.call("allocate", rank, operationTimeout, () -> {
            try (SizeTPointer free = new SizeTPointer(1); SizeTPointer total = new SizeTPointer(1)) {
                Nccl.checkCuda(cudaMemGetInfo(free, total), "allocate", rank, "cudaMemGetInfo");
                return free.get();
            }
        });
    }

    private NcclBuffer allocateOnGpu(long bytes) {
        Pointer memory = new Pointer();
        if (bytes > 0) {
            int rc = cudaMalloc(memory, bytes);
            if (rc == cudaErrorMemoryAllocation) {
                // As the ring's off-heap allocation does: the device is full, the communicator is fine.
                throw new OutOfMemoryError("cudaMalloc of " + bytes + " bytes on device " + device
                        + ": out of device memory");
            }
            Nccl.checkCuda(rc, "allocate", rank, "cudaMalloc of " + bytes + " bytes");
        }
        NcclBuffer buffer = new NcclBuffer(memory, bytes, device, gpu, operationTimeout, rank, liveBuffers::remove);
        liveBuffers.add(buffer);
        return buffer;
    }

    @Override
    public CommBuffer wrap(long address, long bytes) {
        String phase = "wrap";
        ensureUsable(phase);
        if (address == 0 || bytes < 0) {
            throw new CommException(phase, rank, "needs a device address and bytes >= 0, got 0x"
                    + Long.toHexString(address) + " and " + bytes);
        }
        return gpu.call(phase, rank, operationTimeout, () -> {
            Pointer memory = at(address);
            // The driver API, not cudaPointerGetAttributes: the presets' cudaPointerAttributes layout does not
            // match CUDA 13.0's runtime, which then reports device memory as type 0 on device -2.
            int managed = pointerAttribute(CU_POINTER_ATTRIBUTE_IS_MANAGED, address);
            int type = pointerAttribute(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address);
            int ordinal = pointerAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
            if (managed != 1 && (type != CU_MEMORYTYPE_DEVICE || ordinal != device)) {
                throw new CommException(phase, rank, "0x" + Long.toHexString(address) + " is not device memory of "
                        + "device " + device + " (" + (type == -1 ? "CUDA does not know this address"
                        : "CUDA memory type " + type + ", device " + ordinal) + ")");
            }
            NcclBuffer buffer = new NcclBuffer(memory, bytes, device, gpu, operationTimeout, rank, liveBuffers::remove,
                    false);
            liveBuffers.add(buffer);
            return buffer;
        });
    }

    /** One cuPointerGetAttribute integer, or -1 where the driver does not know the address. */
    private static int pointerAttribute(int attribute, long address) {
        try (IntPointer value = new IntPointer(1)) {
            return cuPointerGetAttribute(value, attribute, address) == 0 ? value.get() : -1;
        }
    }

    @Override
    public void enqueueOn(long cudaStream, Consumer<io.allsum.comm.Communicator> calls) {
        String phase = "enqueue";
        ensureUsable(phase);
        gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            boolean outerOnly = enqueueOnly;
            CUstream_st outerStream = active;
            enqueueOnly = true;
            active = new CUstream_st(at(cudaStream));
            try {
                calls.accept(this);
            } finally {
                enqueueOnly = outerOnly;
                active = outerStream;
            }
            // what NCCL found already fails now; what it finds later fails the next call
            int rc = ncclCommGetAsyncError(comm, asyncState);
            int state = rc == ncclSuccess ? asyncState.get() : rc;
            if (state != ncclSuccess && state != ncclInProgress) {
                failCollective(phase, "ncclCommGetAsyncError", state);
            }
        });
    }

    /**
     * A JavaCPP pointer at a raw address the caller owns (JavaCPP has no public constructor that takes one). The
     * parameter must not be named {@code address}: inside the subclass that name is Pointer's own field.
     */
    static Pointer at(long rawAddress) {
        return new Pointer() {
            {
                address = rawAddress;
            }
        };
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        String phase = "all_reduce";
        Pointer s = input(send, phase, count, type);
        Pointer r = output(recv, phase, count, type);
        int dt = dtype(type, phase);
        int redop = redop(type, op, phase);
        ensureUsable(phase);
        if (!gpu.isCurrent()) {
            gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> allReduce(send, recv, count, type, op));
            return;
        }
        // The hot path (every call inside timeNanos): no lambda, no Pointer, no clock read.
        enterNative(phase);
        int rc = ncclAllReduce(s, r, count, dt, redop, comm, active);
        exitNative();
        if (rc != ncclSuccess) {
            enqueueFailed(phase, rc);
        }
        if (!enqueueOnly) {
            awaitWork(phase, null, deadline());
        }
    }

    /**
     * Diagnostics (NcclSelfCheck's jni column): host nanoseconds of {@code iters} bare JavaCPP ncclAllReduce calls
     * (float32 sum), without the communicator's checks or the watchdog marks; then waits for them. Collective.
     */
    long bareAllReduceHostNanos(CommBuffer send, CommBuffer recv, long count, int iters) {
        String phase = "bare_all_reduce";
        Pointer s = input(send, phase, count, DataType.FLOAT32);
        Pointer r = output(recv, phase, count, DataType.FLOAT32);
        return onGpuThread(phase, (blocking, onStream) -> {
            int dt = Nccl.ncclType(DataType.FLOAT32);
            long began = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                int rc = ncclAllReduce(s, r, count, dt, ncclSum, blocking, onStream);
                if (rc != ncclSuccess) {
                    enqueueFailed(phase, rc);
                }
            }
            return System.nanoTime() - began;
        });
    }

    /**
     * Diagnostics (the jni column, the bench module's enqueue probe): runs {@code body} on the GPU thread with the
     * blocking communicator and its stream to call NCCL on directly, this communicator's own collectives only
     * enqueuing inside it; then waits for the stream. Collective when the body is.
     */
    <T> T onGpuThread(String phase, BiFunction<ncclComm, CUstream_st, T> body) {
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            boolean outer = enqueueOnly;
            enqueueOnly = true;
            T result;
            try {
                result = body.apply(comm, stream);
            } finally {
                enqueueOnly = outer;
            }
            awaitWork(phase, null, deadline());
            return result;
        });
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        String phase = "all_gather";
        Pointer r = output(recv, phase, Math.multiplyExact(sendCount, size), type);
        // In place, NCCL expects sendbuff == recvbuff + rank * sendcount: the input sits in this rank's own block.
        Pointer s = send == recv ? atByteOffset(r, (long) rank * sendCount * type.bytes())
                : input(send, phase, sendCount, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclAllGather(s, r, sendCount, dt, comm, active));
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
        collective(phase, () -> ncclReduceScatter(s, r, recvCount, dt, redop, comm, active));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        String phase = "broadcast";
        checkPeer(phase, "root", root);
        Pointer s = rank == root ? input(send, phase, count, type) : buffer(send, phase).pointer(phase);
        Pointer r = output(recv, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclBroadcast(s, r, count, dt, root, comm, active));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        String phase = "reduce";
        checkPeer(phase, "root", root);
        Pointer s = input(send, phase, count, type);
        Pointer r = rank == root ? output(recv, phase, count, type) : buffer(recv, phase).pointer(phase);
        int dt = dtype(type, phase);
        int redop = redop(type, op, phase);
        collective(phase, () -> ncclReduce(s, r, count, dt, redop, root, comm, active));
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        String phase = "send";
        checkPeer(phase, "peer", peer);
        refuseSelf(phase, peer);
        Pointer s = input(buffer, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclSend(s, count, dt, peer, comm, active));
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        String phase = "recv";
        checkPeer(phase, "peer", peer);
        refuseSelf(phase, peer);
        Pointer r = output(buffer, phase, count, type);
        int dt = dtype(type, phase);
        collective(phase, () -> ncclRecv(r, count, dt, peer, comm, active));
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
            int sent = ncclSend(s, count, dt, sendPeer, comm, active);
            int received = ncclRecv(r, count, dt, recvPeer, comm, active);
            int end = ncclGroupEnd();
            return sent != ncclSuccess ? sent : received != ncclSuccess ? received : end;
        });
    }

    @Override
    public void barrier() {
        String phase = "barrier";
        ensureUsable(phase);
        gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            enqueueBarrier(phase);
            awaitWork(phase, null, deadline());
        });
    }

    private void enqueueBarrier(String phase) {
        Pointer one = barrierBuffer.pointer(phase);
        enterNative(phase);
        int rc = ncclAllReduce(one, one, 1, ncclInt32, ncclSum, comm, stream);
        exitNative();
        if (rc != ncclSuccess) {
            enqueueFailed(phase, rc);
        }
    }

    @Override
    public Communicator split(int color, int key) {
        String phase = "split";
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            long deadline = deadline();
            ncclComm childControl;
            try (PointerPointer<ncclComm> out = new PointerPointer<>(1)) {
                int rc = ncclCommSplit(control, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, out,
                        Nccl.nonBlockingConfig());
                if (rc != ncclSuccess && rc != ncclInProgress) {
                    failCollective(phase, "ncclCommSplit(color=" + color + ", key=" + key + ")", rc);
                }
                awaitComm(control, phase, deadline);
                childControl = out.get(ncclComm.class, 0);
            }
            if (color < 0 || childControl == null || childControl.isNull()) {
                return null;
            }
            awaitComm(childControl, phase, deadline);
            int[] value = new int[1];
            Nccl.checkNccl(ncclCommUserRank(childControl, value), phase, rank, "ncclCommUserRank", childControl);
            int childRank = value[0];
            Nccl.checkNccl(ncclCommCount(childControl, value), phase, rank, "ncclCommCount", childControl);
            NcclCommunicator sub = new NcclCommunicator(gpu, watchdog, device, childRank, value[0], ncclVersion,
                    operationTimeout, childControl);
            sub.comm = sub.splitBlocking(childControl, childRank, phase, deadline);
            sub.createStreamAndEvents(phase);
            watchdog.watch(sub);
            return sub;
        });
    }

    /**
     * With more than one rank, the ranks are first lined up inside the call itself: a one-element all-reduce,
     * spun on until done, right before the start event (what nccl-tests' barrier does). Each rank then starts its
     * clock within a few microseconds of the others, instead of after two thread hand-offs of its own.
     */
    @Override
    public long timeNanos(Runnable body) {
        String phase = "time";
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            if (size > 1 && !enqueueOnly) {
                enqueueBarrier(phase);
                awaitWork(phase, null, deadline());
            }
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

    /**
     * nccl-tests' {@code -G} mode: {@code body} (collectives on this communicator) is captured once into a CUDA graph,
     * replayed once untimed, and the CUDA-event time of {@code launches} back-to-back replays is returned. The host
     * then enqueues one graph per replay instead of one call per collective, so this times the GPU's part alone; it
     * is reported apart from {@link #timeNanos}, as nccl-tests does. Collective: every rank captures the same body.
     */
    public long graphTimeNanos(Runnable body, int launches) {
        String phase = "time_graph";
        if (launches < 1) {
            throw new CommException(phase, rank, "graph launches must be at least 1, got " + launches);
        }
        ensureUsable(phase);
        return gpu.call(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> {
            CUgraph_st graph = new CUgraph_st();
            CUgraphExec_st exec = new CUgraphExec_st();
            Nccl.checkCuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), phase, rank,
                    "cudaStreamBeginCapture");
            boolean outer = enqueueOnly;
            boolean captured = false;
            enqueueOnly = true;
            try {
                body.run();
                captured = true;
            } finally {
                enqueueOnly = outer;
                // Always ends the capture, so a failed body leaves the stream usable (its exception propagates).
                int rc = cudaStreamEndCapture(stream, graph);
                if ((rc != cudaSuccess || !captured) && !graph.isNull()) {
                    cudaGraphDestroy(graph);
                }
                if (captured) {
                    Nccl.checkCuda(rc, phase, rank, "cudaStreamEndCapture");
                }
            }
            try {
                Nccl.checkCuda(cudaGraphInstantiate(exec, graph, 0L), phase, rank, "cudaGraphInstantiate");
                Nccl.checkCuda(cudaGraphLaunch(exec, stream), phase, rank, "cudaGraphLaunch");
                awaitWork(phase, null, deadline());
                if (size > 1) {
                    enqueueBarrier(phase);
                    awaitWork(phase, null, deadline());
                }
                Nccl.checkCuda(cudaEventRecord(start, stream), phase, rank, "cudaEventRecord(start)");
                for (int i = 0; i < launches; i++) {
                    Nccl.checkCuda(cudaGraphLaunch(exec, stream), phase, rank, "cudaGraphLaunch");
                }
                Nccl.checkCuda(cudaEventRecord(stop, stream), phase, rank, "cudaEventRecord(stop)");
                awaitWork(phase, stop, deadline());
                Nccl.checkCuda(cudaEventElapsedTime(elapsedMillis, start, stop), phase, rank, "cudaEventElapsedTime");
                return Math.round(elapsedMillis.get() * 1_000_000.0);
            } finally {
                if (!exec.isNull()) {
                    cudaGraphExecDestroy(exec);
                }
                cudaGraphDestroy(graph);
            }
        });
    }

    @Override
    public void abort() {
        if (abortCause == null) {
            abortCause = "aborted by " + Thread.currentThread().getName();
        }
        abortRequested = true;
        if (gpu.isCurrent()) {
            abortAll();
            return;
        }
        try {
            // A waiting call notices abortRequested within microseconds; with none in flight this runs at once.
            gpu.run("abort", rank, HANDOFF_GRACE, () -> abortAll());
        } catch (CommException e) {
            // Last resort when a call is stuck inside a native call: NCCL's abort flag is what unblocks it.
            abortAll();
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
                    releaseGracefully();
                } catch (RuntimeException e) {
                    abortAll();
                    throw e;
                } finally {
                    destroyStreamAndEvents();
                }
            });
        } finally {
            watchdog.unwatch(this);
            asyncState.close();
            elapsedMillis.close();
        }
    }

    // ---- GPU-thread internals ----

    /** Marks the calling thread as inside a blocking NCCL call, for the watchdog: a release store, no clock. */
    private void enterNative(String phase) {
        nativePhase = phase;
        NATIVE_CALLS.setRelease(this, (long) NATIVE_CALLS.getOpaque(this) + 1);
    }

    private void exitNative() {
        NATIVE_CALLS.setRelease(this, (long) NATIVE_CALLS.getOpaque(this) + 1);
    }

    /**
     * Watchdog thread: aborts when a thread has been inside the same blocking NCCL call for longer than the
     * operation timeout. That call then returns with an error that names this cause.
     */
    void checkStuck(long nowNanos) {
        long calls = (long) NATIVE_CALLS.getAcquire(this);
        if ((calls & 1) == 0 || handlesFreed.get()) {
            watchedCall = -1;
            return;
        }
        if (calls != watchedCall) {
            watchedCall = calls;
            watchedSince = nowNanos;
            return;
        }
        if (nowNanos - watchedSince > operationTimeout.toNanos()) {
            abortCause = nativePhase + " timed out: rank " + rank + " was inside a blocking NCCL call for more than "
                    + operationTimeout + "; communicator aborted by the watchdog";
            abortRequested = true;
            abortAll();
        }
    }

    private void collective(String phase, IntSupplier enqueue) {
        ensureUsable(phase);
        if (gpu.isCurrent()) {
            runCollective(phase, enqueue);
        } else {
            gpu.run(phase, rank, operationTimeout.plus(HANDOFF_GRACE), () -> runCollective(phase, enqueue));
        }
    }

    private void runCollective(String phase, IntSupplier enqueue) {
        enterNative(phase);
        int rc = enqueue.getAsInt();
        exitNative();
        if (rc != ncclSuccess) {
            enqueueFailed(phase, rc);
        }
        if (!enqueueOnly) {
            awaitWork(phase, null, deadline());
        }
    }

    /** A blocking communicator never answers ncclInProgress; kept for a library that would. */
    private void enqueueFailed(String phase, int rc) {
        if (rc == ncclInProgress) {
            awaitComm(comm, phase, deadline());
            return;
        }
        failCollective(phase, "enqueue", rc);
    }

    /**
     * Any NCCL error aborts: NCCL keeps the first error as the communicator's async state, so even an invalid
     * argument poisons it (seen on NCCL 2.28.3). Known invalid combinations are refused before NCCL sees them.
     */
    private void failCollective(String phase, String call, int rc) {
        String message = call + ": " + Nccl.ncclMessage(rc, comm != null ? comm : control);
        if (abortRequested && abortCause != null) {
            message = abortCause + " (" + message + ")";
        } else {
            abortCause = phase + " failed: " + message;
        }
        abortAll();
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
                abortAll(target);
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
                abortAll();
                throw new CommException(phase, rank, "CUDA reported " + Nccl.cudaMessage(rc));
            }
            if ((spins & 63) == 63) {
                if (abortRequested || handlesFreed.get()) {
                    abortAll();
                    throw new CommException(phase, rank, abortCause != null ? abortCause : "communicator aborted");
                }
                int asyncRc = ncclCommGetAsyncError(comm, asyncState);
                int state = asyncRc == ncclSuccess ? asyncState.get() : asyncRc;
                if (state != ncclSuccess && state != ncclInProgress) {
                    String message = Nccl.ncclMessage(state, comm);
                    abortCause = phase + " failed: " + message;
                    abortAll();
                    throw new CommException(phase, rank, "NCCL reported " + message);
                }
                checkAbortAndDeadline(comm, phase, deadlineNanos);
            }
            pause(began);
        }
    }

    private void checkAbortAndDeadline(ncclComm target, String phase, long deadlineNanos) {
        if (abortRequested) {
            abortAll(target);
            throw new CommException(phase, rank, abortCause);
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            if (abortCause == null) {
                abortCause = phase + " timed out";
            }
            long began = System.nanoTime();
            abortAll(target);
            String limit = "init".equals(phase) ? "the init deadline" : operationTimeout + " per operation";
            throw new CommTimeoutException(phase, rank, "not done before the deadline (" + limit
                    + "); communicator aborted (ncclCommAbort took "
                    + (System.nanoTime() - began) / 1_000_000 + " ms)");
        }
    }

    private static void pause(long began) {
        if (System.nanoTime() - began < SPIN_NANOS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(PARK_NANOS);
        }
    }

    /**
     * ncclCommAbort on both of this communicator's handles (at most once) and on any {@code others} (a child still
     * being split): safe from any thread, and it ends kernels that wait on a dead peer (they poll NCCL's abort flag).
     */
    private void abortAll(ncclComm... others) {
        commReleased.set(true);
        if (handlesFreed.compareAndSet(false, true)) {
            if (comm != null && !comm.isNull()) {
                ncclCommAbort(comm);
            }
            if (!control.isNull()) {
                ncclCommAbort(control);
            }
        }
        for (ncclComm other : others) {
            if (other != null && other != comm && other != control && !other.isNull()) {
                ncclCommAbort(other);
                other.setNull();
            }
        }
    }

    /** Finalizes and destroys both communicators (the blocking one under the watchdog), or aborts on failure. */
    private void releaseGracefully() {
        if (!commReleased.compareAndSet(false, true) || handlesFreed.get()) {
            return;
        }
        if (comm != null && !comm.isNull()) {
            enterNative("close");
            int rc = ncclCommFinalize(comm);
            exitNative();
            if (rc != ncclSuccess) {
                abortAll();
                throw new CommException("close", rank, "ncclCommFinalize: " + Nccl.ncclMessage(rc, comm));
            }
        }
        int rc = ncclCommFinalize(control);
        if (rc != ncclSuccess && rc != ncclInProgress) {
            abortAll();
            throw new CommException("close", rank, "ncclCommFinalize: " + Nccl.ncclMessage(rc, control));
        }
        awaitComm(control, "close", deadline());
        if (handlesFreed.compareAndSet(false, true)) {
            if (comm != null && !comm.isNull()) {
                ncclCommDestroy(comm);
            }
            ncclCommDestroy(control);
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
