package io.allsum.worker.comm.ring;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.worker.comm.CommBuffer;
import io.allsum.worker.comm.Communicator;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * nccl-tests-style float32 sum all-reduce sweep of the ring backend, with processes that bootstrap from a static
 * endpoint list (no rendezvous server), plus a one-stream loopback TCP bandwidth probe to compare against.
 *
 * <pre>
 *   --launch N                        spawn N rank processes on 127.0.0.1 and wait for them
 *   --rank R --world N --endpoints h:p,h:p,...   run one rank
 *   --probe                           one TCP stream over loopback, same sizes
 *   -b MIN_BYTES -e MAX_BYTES -f FACTOR -n ITERS (0 = by size) -w WARMUP -c 0|1 --chunk BYTES --timeout SECONDS
 * </pre>
 */
public final class RingBenchmark {

    private RingBenchmark() {
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = parse(argv);
        long min = size(a.getOrDefault("-b", "8"));
        long max = size(a.getOrDefault("-e", "256M"));
        int factor = Integer.parseInt(a.getOrDefault("-f", "2"));
        if (a.containsKey("--probe")) {
            probe(min, max, factor, Integer.parseInt(a.getOrDefault("-n", "0")));
        } else if (a.containsKey("--launch")) {
            System.exit(launch(Integer.parseInt(a.get("--launch")), argv));
        } else if (a.containsKey("--rank")) {
            runRank(a, min, max, factor);
        } else {
            System.err.println("usage: RingBenchmark --launch N | --rank R --world N --endpoints h:p,... | --probe"
                    + " [-b 8] [-e 256M] [-f 2] [-n iters] [-w warmup] [-c 1] [--chunk bytes] [--timeout s]");
            System.exit(2);
        }
    }

    private static void runRank(Map<String, String> a, long min, long max, int factor) {
        int rank = Integer.parseInt(a.get("--rank"));
        int world = Integer.parseInt(a.get("--world"));
        List<String> endpoints = Arrays.asList(a.get("--endpoints").split(","));
        if (endpoints.size() != world) {
            throw new IllegalArgumentException("--endpoints lists " + endpoints.size() + " endpoints for --world "
                    + world);
        }
        RingSettings settings = RingSettings.DEFAULTS
                .withChunkBytes((int) size(a.getOrDefault("--chunk", String.valueOf(RingSettings.DEFAULTS.chunkBytes()))))
                .withIoTimeout(Duration.ofSeconds(Long.parseLong(a.getOrDefault("--timeout", "60"))));
        InetSocketAddress own = Endpoints.parse(endpoints.get(rank));
        List<Member> members = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            members.add(new Member(r, "bench-" + r, endpoints.get(r), null, null));
        }
        // No rendezvous here: every rank derives the same id from the endpoint list (a benchmark on trusted hosts).
        GroupView view = new GroupView("ring-bench", 1, world, Backend.RING, benchmarkId(a.get("--endpoints")),
                members);
        int iters = Integer.parseInt(a.getOrDefault("-n", "0"));
        int warmup = Integer.parseInt(a.getOrDefault("-w", "-1"));
        boolean check = !"0".equals(a.getOrDefault("-c", "1"));
        try (RingCommunicatorFactory factory = new RingCommunicatorFactory(own.getHostString(), own.getHostString(),
                own.getPort(), settings)) {
            factory.prepareJoin(rank);
            try (Communicator comm = factory.create(view, rank, Duration.ofSeconds(60));
                 CommBuffer buf = comm.allocate(max);
                 CommBuffer timing = comm.allocate(8)) {
                if (rank == 0) {
                    System.out.printf(Locale.ROOT, "# allsum ring all_reduce: %d ranks, chunk %d B, java %s, %d cpus%n",
                            world, settings.chunkBytes(), Runtime.version(), Runtime.getRuntime().availableProcessors());
                    System.out.printf(Locale.ROOT, "#%12s %12s %6s %6s %10s %8s %8s %7s%n", "size", "count", "type",
                            "redop", "time(us)", "algbw", "busbw", "#wrong");
                }
                double busSum = 0;
                int rows = 0;
                for (long bytes = Math.max(4, min); bytes <= max; bytes *= factor) {
                    long count = bytes / 4;
                    int n = iters > 0 ? iters : itersFor(bytes);
                    int w = warmup >= 0 ? warmup : Math.max(2, n / 5);
                    long wrong = check ? verify(comm, buf, count) : 0;
                    for (int i = 0; i < w; i++) {
                        comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
                    }
                    comm.barrier();
                    long nanos = comm.timeNanos(() -> {
                        for (int i = 0; i < n; i++) {
                            comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
                        }
                    });
                    double seconds = slowest(comm, timing, nanos / 1e9 / n);
                    long totalWrong = (long) slowest(comm, timing, wrong); // max over ranks: 0 iff none anywhere
                    double algbw = bytes / seconds / 1e9;
                    double busbw = algbw * CollectiveOp.ALL_REDUCE.busBandwidthFactor(world);
                    busSum += busbw;
                    rows++;
                    if (rank == 0) {
                        System.out.printf(Locale.ROOT, " %12d %12d %6s %6s %10.1f %8.3f %8.3f %7s%n", bytes, count,
                                "float", "sum", seconds * 1e6, algbw, busbw, check ? String.valueOf(totalWrong) : "N/A");
                        System.out.flush();
                    }
                }
                if (rank == 0) {
                    System.out.printf(Locale.ROOT, "# Avg bus bandwidth    : %.3f GB/s%n", busSum / rows);
                }
            }
        }
    }

    /** Fills rank+1 everywhere, all-reduces once, counts elements that are not n(n+1)/2 (exact in float32). */
    private static long verify(Communicator comm, CommBuffer buf, long count) {
        int n = comm.size();
        MemoryFill.fill(buf, count, comm.rank() + 1f);
        comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
        return MemoryFill.countNot(buf, count, n * (n + 1) / 2f);
    }

    private static double slowest(Communicator comm, CommBuffer timing, double value) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(0, value);
        timing.copyFromHost(b, 0);
        comm.allReduce(timing, timing, 1, DataType.FLOAT64, ReduceOp.MAX);
        timing.copyToHost(b, 0);
        return b.getDouble(0);
    }

    private static int itersFor(long bytes) {
        return (int) Math.max(5, Math.min(200, (1L << 30) / bytes));
    }

    /** Spawns N copies of this JVM (same classpath, flags and main class) as ranks on free loopback ports. */
    private static int launch(int n, String[] argv) throws Exception {
        List<String> endpoints = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                endpoints.add(Endpoints.format("127.0.0.1", s.getLocalPort()));
            }
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        String mainClass = System.getProperty("sun.java.command").split(" ")[0];
        List<String> passThrough = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--launch")) {
                i++;
            } else {
                passThrough.add(argv[i]);
            }
        }
        List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            List<String> cmd = new ArrayList<>(List.of(java));
            cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass, "--rank", String.valueOf(r),
                    "--world", String.valueOf(n), "--endpoints", String.join(",", endpoints)));
            cmd.addAll(passThrough);
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.redirectOutput(r == 0 ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.DISCARD);
            ranks.add(pb.start());
        }
        int worst = 0;
        for (int r = 0; r < n; r++) {
            Process p = ranks.get(r);
            if (!p.waitFor(30, TimeUnit.MINUTES)) {
                ranks.forEach(Process::destroyForcibly);
                System.err.println("rank " + r + " did not finish within 30 minutes");
                return 1;
            }
            if (p.exitValue() != 0) {
                System.err.println("rank " + r + " exited with " + p.exitValue());
                worst = p.exitValue();
            }
        }
        return worst;
    }

    /** One TCP stream over loopback: a thread writes each size repeatedly, this thread reads it. */
    private static void probe(long min, long max, int factor, int iters) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            SocketChannel out = SocketChannel.open(server.getLocalAddress());
            SocketChannel in = server.accept();
            out.socket().setTcpNoDelay(true);
            in.socket().setTcpNoDelay(true);
            ByteBuffer src = ByteBuffer.allocateDirect((int) Math.min(max, Integer.MAX_VALUE - 8));
            ByteBuffer dst = ByteBuffer.allocateDirect(src.capacity());
            ByteBuffer ack = ByteBuffer.allocateDirect(1);
            System.out.printf(Locale.ROOT, "# loopback TCP, one stream (the ring moves n such streams at once)%n");
            System.out.printf(Locale.ROOT, "#%12s %10s %8s%n", "size", "time(us)", "GB/s");
            for (long bytes = min; bytes <= max; bytes *= factor) {
                int n = iters > 0 ? iters : itersFor(bytes);
                int size = (int) bytes;
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < n + 2; i++) {
                            src.clear().limit(size);
                            while (src.hasRemaining()) {
                                out.write(src);
                            }
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                long start = 0;
                for (int i = 0; i < n + 2; i++) {
                    if (i == 2) {
                        start = System.nanoTime();
                    }
                    dst.clear().limit(size);
                    while (dst.hasRemaining()) {
                        if (in.read(dst) < 0) {
                            throw new IOException("probe stream closed");
                        }
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9 / n;
                writer.join();
                System.out.printf(Locale.ROOT, " %12d %10.1f %8.3f%n", bytes, seconds * 1e6, bytes / seconds / 1e9);
            }
            ack.clear();
            out.close();
            in.close();
        }
    }

    private static Map<String, String> parse(String[] argv) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String k = argv[i];
            if (k.equals("--probe")) {
                out.put(k, "");
            } else if (i + 1 < argv.length) {
                out.put(k, argv[++i]);
            } else {
                throw new IllegalArgumentException("option " + k + " needs a value");
            }
        }
        return out;
    }

    static long size(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mul = 1;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
            mul = switch (t.charAt(t.length() - 1)) {
                case 'K' -> 1L << 10;
                case 'M' -> 1L << 20;
                default -> 1L << 30;
            };
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t) * mul;
    }

    private static String benchmarkId(String endpoints) {
        try {
            byte[] half = java.security.MessageDigest.getInstance("SHA-512")
                    .digest(endpoints.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            byte[] id = new byte[128];
            System.arraycopy(half, 0, id, 0, 64);
            System.arraycopy(half, 0, id, 64, 64);
            return java.util.Base64.getEncoder().encodeToString(id);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
