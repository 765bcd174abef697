package io.allsum.comm.nccl;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory.JoinContribution;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import static org.bytedeco.cuda.global.nccl.ncclAllReduce;
import static org.bytedeco.cuda.global.nccl.ncclFloat32;
import static org.bytedeco.cuda.global.nccl.ncclGetVersion;
import static org.bytedeco.cuda.global.nccl.ncclSuccess;
import static org.bytedeco.cuda.global.nccl.ncclSum;

/**
 * Host nanoseconds per call of each way to enqueue a 2-element float32 sum all-reduce on the NCCL backend's
 * communicator: bare JavaCPP, the JDK's foreign-function API ({@link NcclFfm}), the communicator's own allReduce
 * (enqueue only), and ncclGetVersion both ways (the cost of a call that does nothing). Each is the median of ROUNDS
 * rounds of CALLS back-to-back calls after as many warm-up rounds; rank 0 prints the table. In this package for the
 * communicator's package-private {@link NcclCommunicator#onGpuThread}; run by bench/h200/run.sh (parts small1, small2,
 * pin1) with lib/bench.classpath.
 */
@Command(name = "nccl-enqueue-probe", sortOptions = false,
        description = "Host cost per call of each way to enqueue an 8-byte all-reduce on allsum's NCCL backend.")
public final class NcclEnqueueProbe implements Callable<Integer> {

    private static final long COUNT = 2;
    private static final String PHASE = "probe";
    private static final String[] WAYS = {"javacpp ncclAllReduce", "ffm ncclAllReduce",
            "comm.allReduce (enqueue only)", "javacpp ncclGetVersion", "ffm ncclGetVersion"};

    @Mixin
    GpuRanks ranks = new GpuRanks();
    @Option(names = "--rounds", paramLabel = "N", defaultValue = "50",
            description = "timed rounds per way, after as many warm-up rounds (default ${DEFAULT-VALUE})")
    int rounds;
    @Option(names = "--calls", paramLabel = "N", defaultValue = "500",
            description = "back-to-back calls per round (default ${DEFAULT-VALUE})")
    int calls;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    @Spec
    CommandSpec spec;

    private NcclEnqueueProbe() {
    }

    /** Exit 0 = measured, 1 = NCCL unavailable or a call failed (one line on stderr), 2 = bad arguments. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** Bad arguments: one line and exit 2; a failure (NCCL unavailable here, a call refused): one line and exit 1. */
    static CommandLine commandLine() {
        return GpuRanks.commandLine(new NcclEnqueueProbe())
                .setExecutionExceptionHandler((e, cli, parsed) -> {
                    cli.getErr().println("nccl-enqueue-probe: " + e.getMessage());
                    return 1;
                });
    }

    @Override
    public Integer call() throws Exception {
        ranks.check(spec.commandLine());
        if (rounds < 1 || calls < 1) {
            throw new ParameterException(spec.commandLine(), "need --rounds >= 1 and --calls >= 1");
        }
        try (NcclCommunicatorFactory factory = ranks.factory()) {
            JoinContribution join = factory.prepareJoin(ranks.rank);
            try (Communicator comm = factory.create(ranks.view(join), ranks.rank, ranks.timeout())) {
                NcclSelfCheck.warmUpJit(comm);
                String report = probe((NcclCommunicator) comm, rounds, calls);
                if (ranks.rank == 0) {
                    System.out.println(report);
                }
            }
        }
        return 0;
    }

    /** The table: one line per way, median and minimum of its rounds. Collective: every rank must call it. */
    static String probe(NcclCommunicator comm, int rounds, int calls) {
        try (CommBuffer send = comm.allocate(COUNT * 4); CommBuffer recv = comm.allocate(COUNT * 4);
             IntPointer jVersion = new IntPointer(1)) {
            Pointer s = ((NcclBuffer) send).pointer(PHASE);
            Pointer r = ((NcclBuffer) recv).pointer(PHASE);
            NcclFfm ffm = NcclFfm.bind();
            MemorySegment fs = NcclFfm.address(s.address());
            MemorySegment fr = NcclFfm.address(r.address());
            MemorySegment[] handles = comm.onGpuThread(PHASE, (c, st) -> new MemorySegment[] {
                    NcclFfm.address(c.address()), NcclFfm.address(st.address())});
            MemorySegment version = Arena.global().allocate(4);
            long[][] perCall = new long[WAYS.length][rounds];
            for (int round = -rounds; round < rounds; round++) {
                for (int way = 0; way < WAYS.length; way++) {
                    if ((way == 1 || way == 4) && ffm == null) {
                        continue;
                    }
                    int chosen = way;
                    long host = comm.onGpuThread(PHASE, (c, st) -> {
                        long began = System.nanoTime();
                        switch (chosen) {
                            case 0 -> javacpp(s, r, c, st, calls);
                            case 1 -> ffm(ffm, fs, fr, handles[0], handles[1], calls);
                            case 2 -> enqueue(comm, send, recv, calls);
                            case 3 -> javacppVersion(jVersion, calls);
                            default -> ffmVersion(ffm, version, calls);
                        }
                        return System.nanoTime() - began;
                    });
                    if (round >= 0) {
                        perCall[way][round] = host / calls;
                    }
                }
            }
            StringBuilder out = new StringBuilder("# probe: " + comm.size() + " rank(s), " + COUNT * 4
                    + " B, host ns per call, median of " + rounds + " rounds of " + calls + " calls:");
            for (int way = 0; way < WAYS.length; way++) {
                long[] v = perCall[way].clone();
                Arrays.sort(v);
                out.append(String.format(Locale.ROOT, "%n#   %-32s %8d (min %d)", WAYS[way], v[v.length / 2], v[0]));
            }
            return out.toString();
        }
    }

    private static void javacpp(Pointer s, Pointer r, ncclComm c, CUstream_st st, int calls) {
        for (int i = 0; i < calls; i++) {
            int rc = ncclAllReduce(s, r, COUNT, ncclFloat32, ncclSum, c, st);
            if (rc != ncclSuccess) {
                throw new IllegalStateException("javacpp ncclAllReduce returned " + rc);
            }
        }
    }

    private static void ffm(NcclFfm ffm, MemorySegment s, MemorySegment r, MemorySegment c, MemorySegment st,
                            int calls) {
        try {
            for (int i = 0; i < calls; i++) {
                int rc = (int) ffm.allReduce.invokeExact(s, r, COUNT, ncclFloat32, ncclSum, c, st);
                if (rc != ncclSuccess) {
                    throw new IllegalStateException("ffm ncclAllReduce returned " + rc);
                }
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Inside onGpuThread the communicator's allReduce only enqueues. */
    private static void enqueue(NcclCommunicator comm, CommBuffer send, CommBuffer recv, int calls) {
        for (int i = 0; i < calls; i++) {
            comm.allReduce(send, recv, COUNT, DataType.FLOAT32, ReduceOp.SUM);
        }
    }

    private static void javacppVersion(IntPointer version, int calls) {
        for (int i = 0; i < calls; i++) {
            ncclGetVersion(version);
        }
    }

    private static void ffmVersion(NcclFfm ffm, MemorySegment version, int calls) {
        try {
            for (int i = 0; i < calls; i++) {
                int rc = (int) ffm.getVersion.invokeExact(version);
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
