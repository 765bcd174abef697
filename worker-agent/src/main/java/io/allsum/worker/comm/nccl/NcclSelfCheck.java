package io.allsum.worker.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.worker.comm.CommBuffer;
import io.allsum.worker.comm.Communicator;
import io.allsum.worker.comm.CommunicatorFactory.JoinContribution;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * World-size-1 self check on a GPU host: every op x dtype verified, then a float32 sum all-reduce sweep printed as
 * nccl-tests rows (CUDA-event time of {@code iters} back-to-back launches after warm-up, divided by iters), plus the
 * host time per enqueue. Usage: {@code NcclSelfCheck [-b 8] [-e 1G] [-f 2] [-n 20] [-w 5] [-d DEVICE] [--no-check]}.
 * Throws (non-zero exit) when a check fails or NCCL is unavailable.
 */
public final class NcclSelfCheck {

    private NcclSelfCheck() {
    }

    public static void main(String[] args) {
        long minBytes = 8;
        long maxBytes = 1L << 30;
        long factor = 2;
        int iters = 20;
        int warmup = 5;
        Integer device = NcclCommunicatorFactory.deviceFromEnvironment(System.getenv());
        boolean check = true;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-b" -> minBytes = parseSize(args[++i]);
                case "-e" -> maxBytes = parseSize(args[++i]);
                case "-f" -> factor = Long.parseLong(args[++i]);
                case "-n" -> iters = Integer.parseInt(args[++i]);
                case "-w" -> warmup = Integer.parseInt(args[++i]);
                case "-d" -> device = Integer.parseInt(args[++i]);
                case "--no-check" -> check = false;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: NcclSelfCheck [-b 8] [-e 1G] [-f 2] [-n 20] [-w 5] [-d DEVICE] [--no-check]");
            }
        }
        long t0 = System.nanoTime();
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(device, Duration.ofMinutes(2))) {
            if (!factory.isAvailable()) {
                throw new IllegalStateException("NCCL backend unavailable: " + factory.unavailableReason());
            }
            JoinContribution join = factory.prepareJoin(0);
            GroupView view = new GroupView("selfcheck", 1, 1, Backend.NCCL, join.uniqueId(),
                    List.of(new Member(0, "selfcheck", null, null, join.device())));
            try (Communicator comm = factory.create(view, 0, Duration.ofSeconds(60))) {
                System.out.printf(Locale.ROOT, "# allsum NcclSelfCheck: device %d (%s), NCCL %s, init+first join %.1f ms%n",
                        factory.device(), join.device(), Nccl.versionString(factory.ncclVersion()),
                        (System.nanoTime() - t0) / 1e6);
                System.out.println("# libraries: " + loadedLibraries());
                long failures = 0;
                if (check) {
                    failures = runChecks(comm);
                }
                warmUpJit(comm);
                long wrong = sweep(comm, minBytes, maxBytes, factor, iters, warmup);
                if (failures > 0 || wrong > 0) {
                    throw new IllegalStateException("self check FAILED: " + failures + " op x dtype cases failed, "
                            + wrong + " wrong elements in the sweep");
                }
                System.out.println("# SELF CHECK OK");
            }
        }
    }

    /**
     * Compiles the enqueue path before measuring: the sweep makes only ~1,400 calls, below C2's threshold, and an
     * interpreted wrapper costs microseconds per call (H200 smoke run 2: 8.5 us vs native 5 us at 8 B).
     */
    private static void warmUpJit(Communicator comm) {
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

    private static long sweep(Communicator comm, long minBytes, long maxBytes, long factor, int iters, int warmup) {
        DataType type = DataType.FLOAT32;
        long maxCount = maxBytes / type.bytes();
        long bytesAll = maxCount * type.bytes();
        System.out.println("#");
        System.out.println("#                                                       out-of-place                          in-place");
        System.out.println("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong  host(us)");
        System.out.println("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)          /call");
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
                double[] result = new double[6];
                long[] wrong = new long[2];
                double hostPerCall = 0;
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
                    long gpuNanos = comm.timeNanos(() -> {
                        long h0 = System.nanoTime();
                        for (int it = 0; it < iters; it++) {
                            comm.allReduce(in, out, count, type, ReduceOp.SUM);
                        }
                        hostNanos[0] = System.nanoTime() - h0;
                    });
                    double us = gpuNanos / 1e3 / iters;
                    result[pass * 3] = us;
                    result[pass * 3 + 1] = size / (us * 1e3);
                    result[pass * 3 + 2] = result[pass * 3 + 1] * factorBus;
                    readBack.clear().limit((int) size);
                    out.copyToHost(readBack, 0);
                    readBack.flip();
                    FloatBuffer got = readBack.asFloatBuffer();
                    long bad = 0;
                    for (int i = 0; i < count; i++) {
                        if (got.get(i) != floats.get(i)) {
                            bad++;
                        }
                    }
                    wrong[pass] = bad;
                    if (pass == 0) {
                        hostPerCall = hostNanos[0] / 1e3 / iters;
                    }
                }
                wrongTotal += wrong[0] + wrong[1];
                busSum += result[2];
                rows++;
                System.out.printf(Locale.ROOT,
                        "%12d  %12d  %8s  %6s  %6d  %7.2f  %6.2f  %6.2f  %6d  %7.2f  %6.2f  %6.2f  %6d  %8.2f%n",
                        size, count, type.ncclTestsName(), "sum", -1,
                        result[0], result[1], result[2], wrong[0], result[3], result[4], result[5], wrong[1],
                        hostPerCall);
            }
        }
        System.out.printf(Locale.ROOT, "# Out of bounds values : %d %s%n", wrongTotal, wrongTotal == 0 ? "OK" : "FAILED");
        System.out.printf(Locale.ROOT, "# Avg bus bandwidth    : %.4f%n", rows == 0 ? 0 : busSum / rows);
        return wrongTotal;
    }

    static long parseSize(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        long unit = switch (t.charAt(t.length() - 1)) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits) * unit;
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
