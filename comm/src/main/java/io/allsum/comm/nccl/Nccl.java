package io.allsum.comm.nccl;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommException;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;

import static org.bytedeco.cuda.global.cudart.cudaGetErrorName;
import static org.bytedeco.cuda.global.cudart.cudaGetErrorString;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;
import static org.bytedeco.cuda.global.nccl.NCCL_API_MAGIC;
import static org.bytedeco.cuda.global.nccl.NCCL_VERSION_CODE;
import static org.bytedeco.cuda.global.nccl.ncclAvg;
import static org.bytedeco.cuda.global.nccl.ncclBfloat16;
import static org.bytedeco.cuda.global.nccl.ncclFloat16;
import static org.bytedeco.cuda.global.nccl.ncclFloat32;
import static org.bytedeco.cuda.global.nccl.ncclFloat64;
import static org.bytedeco.cuda.global.nccl.ncclFloat8e4m3;
import static org.bytedeco.cuda.global.nccl.ncclFloat8e5m2;
import static org.bytedeco.cuda.global.nccl.ncclGetErrorString;
import static org.bytedeco.cuda.global.nccl.ncclGetLastError;
import static org.bytedeco.cuda.global.nccl.ncclInt32;
import static org.bytedeco.cuda.global.nccl.ncclInt64;
import static org.bytedeco.cuda.global.nccl.ncclInt8;
import static org.bytedeco.cuda.global.nccl.ncclMax;
import static org.bytedeco.cuda.global.nccl.ncclMin;
import static org.bytedeco.cuda.global.nccl.ncclProd;
import static org.bytedeco.cuda.global.nccl.ncclSuccess;
import static org.bytedeco.cuda.global.nccl.ncclSum;
import static org.bytedeco.cuda.global.nccl.ncclUint32;
import static org.bytedeco.cuda.global.nccl.ncclUint64;
import static org.bytedeco.cuda.global.nccl.ncclUint8;

/**
 * Small helpers around the JavaCPP presets: loading, return-code checks (the presets are {@code @NoException}, so
 * every code must be checked), the non-blocking config and the enum mappings. The {@code nccl*} constants used here
 * are compile-time constants, so merely mapping enums never loads native code.
 */
final class Nccl {

    /** NCCL_CONFIG_UNDEF_INT from nccl.h: "let NCCL decide". */
    static final int CONFIG_UNDEF_INT = Integer.MIN_VALUE;
    /** ncclFloat8e4m3 / ncclFloat8e5m2 arrived in NCCL 2.24. */
    static final int FIRST_VERSION_WITH_FLOAT8 = 22400;

    private Nccl() {
    }

    /** The first load failure: later attempts only see NoClassDefFoundError, which hides the real cause. */
    private static volatile Throwable loadFailure;

    /** Loads the JNI wrappers and, through them, the host's libcudart.so.13 and libnccl.so.2. */
    static synchronized void loadNativeLibraries() throws Throwable {
        if (loadFailure != null) {
            throw loadFailure;
        }
        try {
            preloadChosenNccl();
            Loader.load(org.bytedeco.cuda.global.cudart.class);
            Loader.load(org.bytedeco.cuda.global.nccl.class);
        } catch (Throwable t) {
            loadFailure = t;
            throw t;
        }
    }

    /**
     * When ALLSUM_NCCL_LIB_DIR names a folder holding libnccl.so.2, that library is loaded first. JavaCPP searches its
     * own preload paths (the distro's lib folder among them) before LD_LIBRARY_PATH, so without this an older system
     * NCCL can win over the one the user chose; once a libnccl.so.2 is in the process, the JNI wrapper binds to it.
     */
    private static void preloadChosenNccl() {
        String dir = System.getenv("ALLSUM_NCCL_LIB_DIR");
        if (dir == null || dir.isBlank()) {
            return;
        }
        java.nio.file.Path lib = java.nio.file.Path.of(dir, "libnccl.so.2");
        if (!java.nio.file.Files.exists(lib)) {
            throw new UnsatisfiedLinkError("ALLSUM_NCCL_LIB_DIR=" + dir + " holds no libnccl.so.2");
        }
        System.load(lib.toAbsolutePath().toString());
    }

    static int ncclType(DataType type) {
        return switch (type) {
            case INT8 -> ncclInt8;
            case UINT8 -> ncclUint8;
            case INT32 -> ncclInt32;
            case UINT32 -> ncclUint32;
            case INT64 -> ncclInt64;
            case UINT64 -> ncclUint64;
            case FLOAT16 -> ncclFloat16;
            case BFLOAT16 -> ncclBfloat16;
            case FLOAT32 -> ncclFloat32;
            case FLOAT64 -> ncclFloat64;
            case FLOAT8_E4M3 -> ncclFloat8e4m3;
            case FLOAT8_E5M2 -> ncclFloat8e5m2;
        };
    }

    static int ncclOp(ReduceOp op) {
        return switch (op) {
            case SUM -> ncclSum;
            case PROD -> ncclProd;
            case MAX -> ncclMax;
            case MIN -> ncclMin;
            case AVG -> ncclAvg;
        };
    }

    /** Whether the host's libnccl (runtime version code) can reduce {@code type}; the reason when not. */
    static String unsupportedTypeReason(DataType type, int runtimeVersion) {
        boolean float8 = type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2;
        if (float8 && runtimeVersion < FIRST_VERSION_WITH_FLOAT8) {
            return "dtype " + type + " needs NCCL 2.24 or newer; the host's libnccl is " + versionString(runtimeVersion);
        }
        return null;
    }

    /** NCCL has no average for float8 (measured on NCCL 2.28.3, H200: ncclInvalidArgument). */
    static String unsupportedOpReason(DataType type, ReduceOp op) {
        boolean float8 = type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2;
        if (float8 && op == ReduceOp.AVG) {
            return "reduction avg is not supported by NCCL for dtype " + type + " (use sum and divide)";
        }
        return null;
    }

    /** NCCL's version code (22809) as 2.28.9. */
    static String versionString(int code) {
        return code / 10000 + "." + (code / 100) % 100 + "." + code % 100;
    }

    /**
     * A config equal to NCCL_CONFIG_INITIALIZER (every field "undefined") but non-blocking: every call returns at
     * once and is polled against a deadline. Used where there is no communicator yet to abort (init, split).
     */
    static ncclConfig_t nonBlockingConfig() {
        return config(false);
    }

    /**
     * The same with blocking = 1: NCCL's fast launch path for collectives (a non-blocking communicator hands every
     * group launch to a helper thread, 55-100 us per call at 2 ranks on H200). The struct is the preset's (NCCL 2.29
     * headers); an older libnccl copies only the prefix it knows, as nccl.h promises.
     */
    static ncclConfig_t blockingConfig() {
        return config(true);
    }

    private static ncclConfig_t config(boolean blocking) {
        ncclConfig_t config = new ncclConfig_t();
        config.size(Loader.sizeof(ncclConfig_t.class))
                .magic(NCCL_API_MAGIC)
                .version(NCCL_VERSION_CODE)
                .blocking(blocking ? 1 : 0)
                .cgaClusterSize(CONFIG_UNDEF_INT)
                .minCTAs(CONFIG_UNDEF_INT)
                .maxCTAs(CONFIG_UNDEF_INT)
                .netName(null)
                .splitShare(CONFIG_UNDEF_INT)
                .trafficClass(CONFIG_UNDEF_INT)
                .commName(null)
                .collnetEnable(CONFIG_UNDEF_INT)
                .CTAPolicy(CONFIG_UNDEF_INT)
                .shrinkShare(CONFIG_UNDEF_INT)
                .nvlsCTAs(CONFIG_UNDEF_INT)
                .nChannelsPerNetPeer(CONFIG_UNDEF_INT)
                .nvlinkCentricSched(CONFIG_UNDEF_INT)
                .graphUsageMode(CONFIG_UNDEF_INT)
                .numRmaCtx(CONFIG_UNDEF_INT);
        return config;
    }

    /** Throws a CommException naming phase, rank and the CUDA error when {@code code} is not cudaSuccess. */
    static void checkCuda(int code, String phase, int rank, String call) {
        if (code != cudaSuccess) {
            throw new CommException(phase, rank, call + ": " + cudaMessage(code));
        }
    }

    static String cudaMessage(int code) {
        return string(cudaGetErrorName(code)) + " (" + code + "): " + string(cudaGetErrorString(code));
    }

    /** ncclGetErrorString plus ncclGetLastError (the detail NCCL logged for this communicator, if any). */
    static String ncclMessage(int code, ncclComm comm) {
        String text = string(ncclGetErrorString(code)) + " (" + code + ")";
        String last = string(ncclGetLastError(comm));
        return last.isBlank() ? text : text + ": " + last.strip();
    }

    static void checkNccl(int code, String phase, int rank, String call, ncclComm comm) {
        if (code != ncclSuccess) {
            throw new CommException(phase, rank, call + ": " + ncclMessage(code, comm));
        }
    }

    static String string(BytePointer pointer) {
        return pointer == null || pointer.isNull() ? "" : pointer.getString();
    }
}
