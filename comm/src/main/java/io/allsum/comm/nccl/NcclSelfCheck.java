package io.allsum.comm.nccl;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.format.ByteSize;
import io.allsum.model.format.NcclTestsTable;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory.JoinContribution;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * NCCL self check and backend benchmark on a GPU host. World size 1 (default): every op x dtype verified, then a
 * float32 sum all-reduce sweep printed as nccl-tests rows (CUDA-event time of {@code iters} back-to-back launches after
 * warm-up, divided by iters), plus the host time per enqueue and the host time of the bare JavaCPP call
 * ({@code jni(us)}: the same enqueue without the communicator's checks, so the two columns split the Java cost).
 * Several GPUs: one process per GPU with {@code --rank R --nranks N --id-file PATH} (rank 0 writes the NCCL id there,
 * the others poll for it), the same sweep, verified out-of-place. {@code --abort-test} then runs 64 MiB all-reduces
 * until one fails (kill or stop a peer): it prints how long after the last completed call the communicator aborted
 * and the error, and exits 3. Throws (non-zero exit) when a check fails or NCCL is unavailable.
 */
@Command(name = "allsum-selfcheck", sortOptions = false,
        description = "NCCL self check and all-reduce sweep of allsum's NCCL backend on this host's GPU(s).")
public final class NcclSelfCheck implements Callable<Integer> {

    @Option(names = "-b", paramLabel = "BYTES", description = "smallest size (K, M, G suffixes; default ${DEFAULT-VALUE})",
            defaultValue = "8", converter = Size.class)
    long minBytes;
    @Option(names = "-e", paramLabel = "BYTES", description = "largest size (default ${DEFAULT-VALUE})",
            defaultValue = "1G", converter = Size.class)
    long maxBytes;
    @Option(names = "-f", paramLabel = "FACTOR", description = "size step factor (default ${DEFAULT-VALUE})",
            defaultValue = "2")
    long factor;
    @Option(names = "-n", paramLabel = "ITERS", description = "timed iterations per size (default ${DEFAULT-VALUE})",
            defaultValue = "20")
    int iters;
    @Option(names = "-w", paramLabel = "ITERS", description = "warm-up iterations per size (default ${DEFAULT-VALUE})",
            defaultValue = "5")
    int warmup;
    @Option(names = "-G", paramLabel = "LAUNCHES", defaultValue = "0", description = "CUDA-graph mode (nccl-tests' -G):"
            + " capture the ITERS all-reduces of a size in a graph, time LAUNCHES replays (0 = off, the default)")
    int graphLaunches;
    @Mixin
    GpuRanks ranks = new GpuRanks();
    @Option(names = "--no-check", negatable = false, description = "skip the every op x dtype check")
    boolean noCheck;
    @Option(names = "--abort-test", description = "after the sweep, 64 MiB all-reduces until one fails; exit 3")
    boolean abortTest;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    @Spec
    CommandSpec spec;

    private NcclSelfCheck() {
    }

    /** Exit 0 = checked and measured, 1 = a check failed or NCCL is unavailable, 2 = bad arguments, 3 = abort test. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return GpuRanks.commandLine(new NcclSelfCheck());
    }

    /** Sizes as nccl-tests writes them (shared-model's {@link ByteSize}: 8, 64K, 16M, 1G); its message is the error. */
    static final class Size implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return ByteSize.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Columns after nccl-tests' in-place ones: host time per enqueue, and of the bare JavaCPP call. */
    private static final NcclTestsTable.Extra[] HOST_COLUMNS = {new NcclTestsTable.Extra("host(us)", "/call"),
            new NcclTestsTable.Extra("jni(us)", "/call")};

    /** The lines above the sweep's rows: what the time means in CUDA-graph mode, then nccl-tests' two-mode header. */
    static String sweepHeader(int graphLaunches, int iters) {
        String mode = graphLaunches == 0 ? "#" : "# CUDA-graph mode (-G " + graphLaunches + "): time = GPU time of "
                + graphLaunches + " replays of a graph of " + iters + " all-reduces / (" + graphLaunches + " x "
                + iters + "); host(us) = host wall of capture, instantiation and replays per all-reduce";
        return mode + "\n" + NcclTestsTable.twoModeHeader(HOST_COLUMNS);
    }

    /** One sweep size's float32 sum all-reduce, out-of-place and in-place, as measured on this rank. */
    record SweepRow(long bytes, NcclTestsTable.Measured outOfPlace, NcclTestsTable.Measured inPlace,
                    double hostMicrosPerCall, double jniMicrosPerCall) {

        /** GPU microseconds per call to nccl-tests' algbw (bytes / time) and busbw (algbw x the op's bus factor). */
        static NcclTestsTable.Measured measured(long bytes, double micros, double busFactor, long wrong) {
            double algbw = bytes / (micros * 1e3);
            return new NcclTestsTable.Measured(micros, algbw, algbw * busFactor, wrong);
        }

        /** The row, without the line end: nccl-tests' columns for both modes, then host(us) and jni(us). */
        String line() {
            return NcclTestsTable.row(new NcclTestsTable.Row(bytes, bytes / DataType.FLOAT32.bytes(), DataType.FLOAT32,
                    "sum", -1, outOfPlace.timeMicros(), outOfPlace.algBandwidthGBps(),
                    outOfPlace.busBandwidthGBps(), outOfPlace.wrong()), inPlace, hostMicrosPerCall, jniMicrosPerCall);
        }
    }

    @Override
    public Integer call() throws Exception {
        boolean check = !noCheck;
        ranks.check(spec.commandLine());
        // -b 0 would never grow (0 x factor): the sweep starts at one byte at least.
        if (minBytes < 1 || maxBytes < minBytes || factor < 2 || iters < 1 || warmup < 0 || graphLaunches < 0) {
            throw new ParameterException(spec.commandLine(), "need 1 <= -b <= -e, -f >= 2, -n >= 1, -w >= 0, -G >= 0");
        }
        int nranks = ranks.nranks;
        boolean print = ranks.rank == 0;
        long t0 = System.nanoTime();
        try (NcclCommunicatorFactory factory = ranks.factory()) {
            JoinContribution join = factory.prepareJoin(ranks.rank);
            GroupView view = ranks.view(join);
            long initStart = System.nanoTime();
            try (Communicator comm = factory.create(view, ranks.rank, ranks.timeout())) {
                double initMs = (System.nanoTime() - initStart) / 1e6;
                if (print) {
                    System.out.printf(Locale.ROOT, "# allsum NcclSelfCheck: %d rank(s), device %d (%s), NCCL %s, "
                                    + "init %.1f ms (control + blocking split), process start to init %.1f ms%n",
                            nranks, factory.device(), join.device(), Nccl.versionString(factory.ncclVersion()),
                            initMs, (System.nanoTime() - t0) / 1e6);
                    System.out.println("# libraries: " + loadedLibraries());
                    System.out.println("# NCCL_RUNTIME_CONNECT=" + System.getenv().getOrDefault(
                            "NCCL_RUNTIME_CONNECT", "(unset)"));
                }
                firstCalls(comm, Math.min(maxBytes, 64L << 20), print);
                long failures = 0;
                if (check && nranks == 1) {
                    failures = runChecks(comm);
                }
                warmUpJit(comm);
                long wrong = sweep(comm, minBytes, maxBytes, factor, iters, warmup, graphLaunches, print);
                if (failures > 0 || wrong > 0) {
                    throw new IllegalStateException("self check FAILED: " + failures + " op x dtype cases failed, "
                            + wrong + " wrong elements in the sweep");
                }
                if (print) {
                    System.out.println("# SELF CHECK OK");
                }
                if (abortTest) {
                    // Exits here: closing an aborted communicator is not what this test measures.
                    System.exit(abortTest(comm, ranks.timeoutSeconds));
                }
            }
        }
        return 0;
    }

    /**
     * Host time of the first 8-byte and first large all-reduce after init: with NCCL's lazy connection set-up
     * (NCCL_RUNTIME_CONNECT, on by default since 2.22) the first call of each algorithm connects the peers.
     */
    private static void firstCalls(Communicator comm, long bigBytes, boolean print) {
        try (CommBuffer small = comm.allocate(8); CommBuffer big = comm.allocate(Math.max(8, bigBytes))) {
            long a = System.nanoTime();
            comm.allReduce(small, small, 2, DataType.FLOAT32, ReduceOp.SUM);
            long b = System.nanoTime();
            comm.allReduce(big, big, Math.max(8, bigBytes) / 4, DataType.FLOAT32, ReduceOp.SUM);
            long c = System.nanoTime();
            comm.allReduce(small, small, 2, DataType.FLOAT32, ReduceOp.SUM);
            long d = System.nanoTime();
            if (print) {
                System.out.printf(Locale.ROOT, "# first all-reduce 8 B: %.3f ms, first %d B: %.3f ms, second 8 B: "
                        + "%.3f ms (host wall, each waited for)%n", (b - a) / 1e6, bigBytes, (c - b) / 1e6,
                        (d - c) / 1e6);
            }
        }
    }

    /**
     * 64 MiB all-reduces until one fails (a peer killed or stopped from outside): prints how long after the last
     * completed call the failure surfaced, and the error. Exit 3 = aborted as expected.
     */
    private static int abortTest(Communicator comm, long timeoutSeconds) {
        long count = 16L << 20;
        try (CommBuffer buffer = comm.allocate(count * 4)) {
            System.out.printf(Locale.ROOT, "# abort-test rank %d: running 64 MiB all-reduces (deadline %d s)%n",
                    comm.rank(), timeoutSeconds);
            System.out.flush();
            long lastDone = System.nanoTime();
            long calls = 0;
            while (true) {
                try {
                    comm.allReduce(buffer, buffer, count, DataType.FLOAT32, ReduceOp.SUM);
                    lastDone = System.nanoTime();
                    calls++;
                } catch (RuntimeException e) {
                    System.out.printf(Locale.ROOT, "# abort-test rank %d: %d calls done; the failing call returned "
                                    + "%.3f s after the last completed one (deadline %d s): %s: %s%n", comm.rank(),
                            calls, (System.nanoTime() - lastDone) / 1e9, timeoutSeconds,
                            e.getClass().getSimpleName(), e.getMessage());
                    System.out.flush();
                    return 3;
                }
            }
        }
    }

    /**
     * Compiles the enqueue path before measuring: the sweep makes only ~1,400 calls, below C2's threshold, and an
     * interpreted wrapper costs microseconds per call (H200 smoke run 2: 8.5 us vs native 5 us at 8 B).
     */
    static void warmUpJit(Communicator comm) {
        try (CommBuffer small = comm.allocate(64)) {
            for (int round = 0; round < 10; round++) {
                comm.timeNanos(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        comm.allReduce(small, small, 2, DataType.FLOAT32, ReduceOp.SUM);
                    }
                });
            }
        }
    }

    private static long runChecks(Communicator comm) {
        List<CollectiveChecks.Result> results = CollectiveChecks.runAll(comm, 1031);
        long failed = 0;
        for (CollectiveChecks.Result r : results) {
            if (!r.passed()) {
                failed++;
                System.out.println("# FAIL " + r.name() + ": " + (r.error() != null ? r.error()
                        : r.wrongElements() + " wrong elements"));
            }
        }
        System.out.printf(Locale.ROOT, "# correctness: %d cases (every op x dtype, out-of-place and in-place), %d failed%n",
                results.size(), failed);
        return failed;
    }

    private static long sweep(Communicator comm, long minBytes, long maxBytes, long factor, int iters, int warmup,
                               int graphLaunches, boolean print) {
        NcclCommunicator graphs = graphLaunches > 0 && comm instanceof NcclCommunicator nccl ? nccl : null;
        if (graphLaunches > 0 && graphs == null) {
            throw new IllegalStateException("-G needs the NCCL backend");
        }
        DataType type = DataType.FLOAT32;
        long maxCount = maxBytes / type.bytes();
        long bytesAll = maxCount * type.bytes();
        if (print) {
            System.out.print(sweepHeader(graphLaunches, iters));
        }
        int nranks = comm.size();
        long wrongTotal = 0;
        double busSum = 0;
        int rows = 0;
        try (CommBuffer send = comm.allocate(bytesAll); CommBuffer recv = comm.allocate(bytesAll)) {
            ByteBuffer pattern = ByteBuffer.allocateDirect((int) bytesAll).order(ByteOrder.LITTLE_ENDIAN);
            FloatBuffer floats = pattern.asFloatBuffer();
            for (int i = 0; i < maxCount; i++) {
                floats.put(i, (i % 11) - 5);
            }
            ByteBuffer sentinel = ByteBuffer.allocateDirect((int) bytesAll);
            ByteBuffer readBack = ByteBuffer.allocateDirect((int) bytesAll).order(ByteOrder.LITTLE_ENDIAN);
            double factorBus = CollectiveOp.ALL_REDUCE.busBandwidthFactor(comm.size());
            for (long bytes = minBytes; bytes <= maxBytes; bytes *= factor) {
                long count = bytes / type.bytes();
                long size = count * type.bytes();
                NcclTestsTable.Measured[] result = new NcclTestsTable.Measured[2];
                double hostPerCall = 0;
                double jniPerCall = 0;
                for (int pass = 0; pass < 2; pass++) {
                    boolean inPlace = pass == 1;
                    CommBuffer out = inPlace ? send : recv;
                    send.copyFromHost(pattern.duplicate().limit((int) size), 0);
                    if (!inPlace) {
                        recv.copyFromHost(sentinel.duplicate().limit((int) size), 0);
                    }
                    CommBuffer in = send;
                    comm.timeNanos(() -> {
                        for (int w = 0; w < warmup; w++) {
                            comm.allReduce(in, out, count, type, ReduceOp.SUM);
                        }
                    });
                    long[] hostNanos = new long[1];
                    Runnable loop = () -> {
                        long h0 = System.nanoTime();
                        for (int it = 0; it < iters; it++) {
                            comm.allReduce(in, out, count, type, ReduceOp.SUM);
                        }
                        hostNanos[0] = System.nanoTime() - h0;
                    };
                    long calls = iters;
                    long gpuNanos;
                    if (graphs == null) {
                        gpuNanos = comm.timeNanos(loop);
                    } else {
                        long h0 = System.nanoTime();
                        gpuNanos = graphs.graphTimeNanos(loop, graphLaunches);
                        calls = (long) iters * graphLaunches;
                        hostNanos[0] = System.nanoTime() - h0;
                    }
                    double us = gpuNanos / 1e3 / calls;
                    readBack.clear().limit((int) size);
                    out.copyToHost(readBack, 0);
                    readBack.flip();
                    FloatBuffer got = readBack.asFloatBuffer();
                    long bad = 0;
                    // In place on several ranks the sum compounds over the warm-up and timed calls: checked on one
                    // rank only (where a sum keeps the input), as the native program does.
                    if (!inPlace || nranks == 1) {
                        for (int i = 0; i < count; i++) {
                            if (got.get(i) != floats.get(i) * nranks) {
                                bad++;
                            }
                        }
                    }
                    result[pass] = SweepRow.measured(size, us, factorBus, bad);
                    if (pass == 0) {
                        hostPerCall = hostNanos[0] / 1e3 / calls;
                        if (graphs == null && comm instanceof NcclCommunicator nccl) {
                            jniPerCall = nccl.bareAllReduceHostNanos(in, out, count, iters) / 1e3 / iters;
                        }
                    }
                }
                wrongTotal += result[0].wrong() + result[1].wrong();
                busSum += result[0].busBandwidthGBps();
                rows++;
                if (print) {
                    System.out.println(new SweepRow(size, result[0], result[1], hostPerCall, jniPerCall).line());
                }
            }
        }
        if (print) {
            System.out.print(NcclTestsTable.footer(wrongTotal, true, rows, rows == 0 ? 0 : busSum / rows));
        }
        return wrongTotal;
    }

    /** Which libnccl / libcudart files this process mapped, so a run says exactly what it measured. */
    static String loadedLibraries() {
        try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/self/maps"))) {
            return lines.map(l -> l.substring(l.lastIndexOf(' ') + 1))
                    .filter(p -> p.contains("libnccl.so") || p.contains("libcudart.so"))
                    .distinct().collect(java.util.stream.Collectors.joining(", "));
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }
}
