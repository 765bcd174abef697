package io.allsum.comm.nccl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * ncclAllReduce through the JDK's foreign-function API, bound to the libnccl.so.2 that the JNI wrappers use
 * (dlopen of the same file returns the same handle). Used by NcclEnqueueProbe to compare the two call paths:
 * a downcall with pre-made address segments has no per-call field reads, unlike JavaCPP's generated JNI code.
 */
final class NcclFfm {

    private static final FunctionDescriptor ALL_REDUCE = FunctionDescriptor.of(JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);
    private static final FunctionDescriptor GET_VERSION = FunctionDescriptor.of(JAVA_INT, ADDRESS);

    final MethodHandle allReduce;
    final MethodHandle getVersion;

    private NcclFfm(MethodHandle allReduce, MethodHandle getVersion) {
        this.allReduce = allReduce;
        this.getVersion = getVersion;
    }

    /** Binds the symbols; null with the reason printed when the library cannot be found this way. */
    static NcclFfm bind() {
        String dir = System.getenv("ALLSUM_NCCL_LIB_DIR");
        Path chosen = dir == null || dir.isBlank() ? null : Path.of(dir, "libnccl.so.2");
        try {
            SymbolLookup lookup = chosen != null && Files.exists(chosen)
                    ? SymbolLookup.libraryLookup(chosen, Arena.global())
                    : SymbolLookup.libraryLookup("libnccl.so.2", Arena.global());
            Linker linker = Linker.nativeLinker();
            // critical: no thread-state transition for a call that never calls back into Java.
            return new NcclFfm(
                    linker.downcallHandle(lookup.findOrThrow("ncclAllReduce"), ALL_REDUCE,
                            Linker.Option.critical(false)),
                    linker.downcallHandle(lookup.findOrThrow("ncclGetVersion"), GET_VERSION,
                            Linker.Option.critical(false)));
        } catch (RuntimeException e) {
            System.out.println("# ffm: libnccl.so.2 not bound: " + e);
            return null;
        }
    }

    static MemorySegment address(long address) {
        return MemorySegment.ofAddress(address);
    }
}
