package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.UniqueId;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory;
import org.bytedeco.cuda.cudart.CUuuid_st;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.nccl.ncclUniqueId;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;
import static org.bytedeco.cuda.global.nccl.NCCL_UNIQUE_ID_BYTES;
import static org.bytedeco.cuda.global.nccl.ncclGetUniqueId;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;
import static org.bytedeco.cuda.global.nccl.ncclSuccess;

/**
 * Builds NCCL communicators on one GPU. The GPU is chosen by the constructor (the worker passes ALLSUM_DEVICE or
 * LOCAL_RANK, see {@link #deviceFromEnvironment}); without one, the only visible GPU is used, and several visible
 * GPUs are an error: never {@code rank % deviceCount}, which is wrong inside containers that see one GPU.
 * Owns the GPU's dedicated platform thread; {@link #close()} stops it.
 */
public final class NcclCommunicatorFactory implements CommunicatorFactory, AutoCloseable {

    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofMinutes(5);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration HANDOFF_GRACE = Duration.ofSeconds(10);

    private final Integer requestedDevice;
    private final Duration operationTimeout;
    private final GpuThread gpu;
    private final NcclWatchdog watchdog;
    private Probe probe;

    /** What the host offers: set once by the first {@link #isAvailable()}. */
    private record Probe(String unavailableReason, int deviceCount, int ncclVersion) {
    }

    public NcclCommunicatorFactory(Integer requestedDevice) {
        this(requestedDevice, DEFAULT_OPERATION_TIMEOUT);
    }

    /**
     * @param requestedDevice  CUDA device index, or null for "the only visible GPU"
     * @param operationTimeout deadline of each collective, allocation and copy; the communicator aborts past it
     */
    public NcclCommunicatorFactory(Integer requestedDevice, Duration operationTimeout) {
        if (requestedDevice != null && requestedDevice < 0) {
            throw new IllegalArgumentException("CUDA device index must be >= 0, got " + requestedDevice);
        }
        this.requestedDevice = requestedDevice;
        this.operationTimeout = operationTimeout;
        String suffix = requestedDevice == null ? "default" : String.valueOf(requestedDevice);
        this.gpu = new GpuThread("allsum-gpu-" + suffix);
        this.watchdog = new NcclWatchdog("allsum-nccl-watchdog-" + suffix);
    }

    /** ALLSUM_DEVICE, else torchrun's LOCAL_RANK, else null. */
    public static Integer deviceFromEnvironment(Map<String, String> env) {
        for (String name : new String[] {"ALLSUM_DEVICE", "LOCAL_RANK"}) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                try {
                    return Integer.parseInt(value.strip());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(name + " must be a CUDA device index, got '" + value + "'");
                }
            }
        }
        return null;
    }

    @Override
    public Backend backend() {
        return Backend.NCCL;
    }

    @Override
    public boolean isAvailable() {
        return probe().unavailableReason().isEmpty();
    }

    @Override
    public String unavailableReason() {
        return probe().unavailableReason();
    }

    /** The host's libnccl version code (e.g. 22809), or 0 when NCCL is unavailable. */
    public int ncclVersion() {
        return probe().ncclVersion();
    }

    private synchronized Probe probe() {
        if (probe == null) {
            try {
                probe = gpu.call("probe", -1, PROBE_TIMEOUT, NcclCommunicatorFactory::probeHost);
            } catch (Throwable t) {
                probe = new Probe("CUDA/NCCL probe failed: " + t, 0, 0);
            }
        }
        return probe;
    }

    /** Runs on the GPU thread; never throws. */
    private static Probe probeHost() {
        try {
            Nccl.loadNativeLibraries();
        } catch (Throwable t) {
            return new Probe("no CUDA device / libnccl.so.2 not loadable: libcudart.so.13 or libnccl.so.2 did not load ("
                    + t.getClass().getSimpleName() + ": " + t.getMessage() + ")", 0, 0);
        }
        try {
            int[] count = new int[1];
            int rc = cudaGetDeviceCount(count);
            if (rc != cudaSuccess) {
                return new Probe("no CUDA device: cudaGetDeviceCount failed with " + Nccl.cudaMessage(rc), 0, 0);
            }
            if (count[0] <= 0) {
                return new Probe("no CUDA device: cudaGetDeviceCount returned 0", 0, 0);
            }
            int[] version = new int[1];
            rc = ncclGetVersion(version);
            if (rc != ncclSuccess) {
                return new Probe("libnccl.so.2 unusable: ncclGetVersion failed with " + Nccl.ncclMessage(rc, null),
                        count[0], 0);
            }
            return new Probe("", count[0], version[0]);
        } catch (Throwable t) {
            return new Probe("no CUDA device / libnccl.so.2 not loadable: " + t, 0, 0);
        }
    }

    /** The CUDA device this factory uses; throws when the choice is missing or out of range. */
    public int device() {
        Probe host = requireAvailable("select_device", -1);
        if (requestedDevice == null) {
            if (host.deviceCount() == 1) {
                return 0;
            }
            throw new CommException("select_device", -1, host.deviceCount()
                    + " CUDA devices are visible and none was chosen: set ALLSUM_DEVICE or LOCAL_RANK");
        }
        if (requestedDevice >= host.deviceCount()) {
            throw new CommException("select_device", -1, "CUDA device " + requestedDevice + " was requested but only "
                    + host.deviceCount() + " are visible");
        }
        return requestedDevice;
    }

    @Override
    public JoinContribution prepareJoin(int rank) {
        int device = device();
        return gpu.call("prepare_join", rank, operationTimeout, () -> {
            Nccl.checkCuda(cudaSetDevice(device), "prepare_join", rank, "cudaSetDevice(" + device + ")");
            String description = describeDevice(device, rank);
            if (rank != 0) {
                return new JoinContribution(null, null, description);
            }
            ncclUniqueId id = new ncclUniqueId();
            try {
                Nccl.checkNccl(ncclGetUniqueId(id), "prepare_join", rank, "ncclGetUniqueId", null);
                byte[] bytes = new byte[NCCL_UNIQUE_ID_BYTES];
                id.internal().get(bytes);
                return new JoinContribution(UniqueId.of(bytes).base64(), null, description);
            } finally {
                id.close();
            }
        });
    }

    /** "NVIDIA H200 GPU-8c3f...": the name and UUID as nvidia-smi prints them. */
    private static String describeDevice(int device, int rank) {
        try (cudaDeviceProp props = new cudaDeviceProp()) {
            Nccl.checkCuda(cudaGetDeviceProperties(props, device), "prepare_join", rank,
                    "cudaGetDeviceProperties(" + device + ")");
            CUuuid_st uuid = new CUuuid_st(props.uuid());
            byte[] b = new byte[16];
            for (int i = 0; i < b.length; i++) {
                b[i] = uuid.bytes(i);
            }
            String hex = HexFormat.of().formatHex(b);
            return props.name().getString() + " GPU-" + hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-"
                    + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20);
        }
    }

    @Override
    public Communicator create(GroupView view, int rank, Duration deadline) {
        String phase = "init";
        if (view.backend() != Backend.NCCL) {
            throw new CommException(phase, rank, "group " + view.group() + " uses backend " + view.backend()
                    + ", not nccl");
        }
        if (rank < 0 || rank >= view.worldSize()) {
            throw new CommException(phase, rank, "rank is outside [0, " + view.worldSize() + ")");
        }
        byte[] idBytes = decodeUniqueId(view, rank);
        int device = device();
        int version = probe().ncclVersion();
        long deadlineNanos = System.nanoTime() + deadline.toNanos();
        return gpu.call(phase, rank, deadline.plus(HANDOFF_GRACE), () -> {
            ncclUniqueId id = new ncclUniqueId();
            try {
                id.internal().put(idBytes);
                return NcclCommunicator.initialize(gpu, watchdog, device, rank, view.worldSize(), id, deadlineNanos, version,
                        operationTimeout);
            } finally {
                id.close();
            }
        });
    }

    /** The id's checks are shared-model's {@link UniqueId}, the same the server applies at the edge. */
    private static byte[] decodeUniqueId(GroupView view, int rank) {
        if (view.uniqueId() == null) {
            throw new CommException("init", rank, "generation " + view.generation() + " of group " + view.group()
                    + " carries no NCCL unique id");
        }
        return UniqueId.tryParse(view.uniqueId()).map(UniqueId::bytes).orElseThrow(() ->
                new CommException("init", rank, "the NCCL unique id " + UniqueId.problemWith(view.uniqueId())));
    }

    private Probe requireAvailable(String phase, int rank) {
        Probe host = probe();
        if (!host.unavailableReason().isEmpty()) {
            throw new CommException(phase, rank, "NCCL backend unavailable: " + host.unavailableReason());
        }
        return host;
    }

    /** Stops the GPU thread and the watchdog; close the communicators first. */
    @Override
    public void close() {
        watchdog.close();
        gpu.close();
    }
}
