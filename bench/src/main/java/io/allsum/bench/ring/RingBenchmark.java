package io.allsum.bench.ring;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.format.ByteSize;
import io.allsum.model.format.NcclTestsTable;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.ring.Endpoints;
import io.allsum.comm.ring.RingCommunicatorFactory;
import io.allsum.comm.ring.RingSettings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * nccl-tests-style float32 sum all-reduce sweep of the ring backend, with processes that bootstrap from a static
 * endpoint list (no rendezvous server), plus a one-stream loopback TCP bandwidth probe to compare against.
 * Rows are shared-model's {@link NcclTestsTable}, as the launcher prints them.
 */
@Command(name = "RingBenchmark", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Ring backend all-reduce sweep (float32 sum) without a rendezvous server.")
public final class RingBenchmark implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--launch", paramLabel = "N", description = "Spawn N rank processes on 127.0.0.1 and wait.")
    Integer launch;

    @Option(names = "--rank", paramLabel = "R", description = "Run one rank (with --world and --endpoints).")
    Integer rank;

    @Option(names = "--world", paramLabel = "N", description = "World size of --rank.")
    Integer world;

    @Option(names = "--endpoints", split = ",", paramLabel = "HOST:PORT", description = "Every rank's endpoint.")
    List<String> endpoints;

    @Option(names = "--probe", description = "One TCP stream over loopback, same sizes.")
    boolean probe;

    @Option(names = "-b", defaultValue = "8", paramLabel = "SIZE", description = "Smallest size (default ${DEFAULT-VALUE}).")
    long minBytes;

    @Option(names = "-e", defaultValue = "256M", paramLabel = "SIZE", description = "Largest size (default ${DEFAULT-VALUE}).")
    long maxBytes;

    @Option(names = "-f", defaultValue = "2", description = "Size factor (default ${DEFAULT-VALUE}).")
    int factor;

    @Option(names = "-n", defaultValue = "0", description = "Iterations per size; 0 picks by size.")
    int iterations;

    @Option(names = "-w", defaultValue = "-1", description = "Warm-up iterations; -1 picks a fifth of -n (at least 2).")
    int warmup;

    @Option(names = "--warmup-bytes", defaultValue = "1G", paramLabel = "SIZE", description = "Before the sweep, all-"
            + "reduces of the first size moving this much in all (default ${DEFAULT-VALUE}), so that the first row is"
            + " not measured while the JIT still compiles the ring's loops; 0 leaves it out.")
    long warmupBytes;

    @Option(names = "-c", defaultValue = "1", description = "1 verifies one all-reduce per size, 0 does not.")
    int check;

    @Option(names = "--chunk", paramLabel = "SIZE", description = "Ring chunk size (default RingSettings').")
    Long chunkBytes;

    @Option(names = "--tcp", description = "Every ring byte over TCP (default: ranks of one host share memory).")
    boolean tcp;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS", description = "Socket read deadline.")
    long timeoutSeconds;

    public static void main(String[] argv) {
        System.exit(commandLine().execute(argv));
    }

    /** Sizes (-b, -e, --chunk) read as nccl-tests reads them ({@link ByteSize}); usage errors are one line. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new RingBenchmark())
                .registerConverter(Long.class, ByteSize::parse)
                .registerConverter(long.class, ByteSize::parse);
        // Bad input is one line and exit 2, as the launcher answers it.
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println("RingBenchmark: " + ex.getMessage().replaceAll("\\s+", " ").strip()
                    + " (see --help)");
            return 2;
        });
        return cl;
    }

    private PrintWriter out;

    @Override
    public Integer call() throws Exception {
        out = spec.commandLine().getOut();
        int modes = (launch != null ? 1 : 0) + (rank != null ? 1 : 0) + (probe ? 1 : 0);
        if (modes != 1) {
            throw new ParameterException(spec.commandLine(), "give exactly one of --launch N, --rank R or --probe");
        }
        if (factor < 2 || minBytes < 0 || maxBytes < minBytes) {
            throw new ParameterException(spec.commandLine(), "need -f >= 2 and 0 <= -b <= -e");
        }
        if (probe) {
            probe();
            return 0;
        }
        if (launch != null) {
            return launch(launch, spec.commandLine().getParseResult().originalArgs());
        }
        if (world == null || endpoints == null || endpoints.size() != world || rank < 0 || rank >= world) {
            throw new ParameterException(spec.commandLine(), "--rank needs --world N and --endpoints listing N"
                    + " endpoints, and 0 <= rank < N");
        }
        runRank();
        return 0;
    }

    private void runRank() {
        RingSettings settings = RingSettings.DEFAULTS.withIoTimeout(Duration.ofSeconds(timeoutSeconds))
                .withSharedMemory(!tcp);
        if (chunkBytes != null) {
            settings = settings.withChunkBytes(Math.toIntExact(chunkBytes));
        }
        InetSocketAddress own = Endpoints.parse(endpoints.get(rank));
        List<Member> members = new ArrayList<>();
        for (int r = 0; r < world; r++) {
            members.add(new Member(r, "bench-" + r, endpoints.get(r), null, null));
        }
        // No rendezvous here: every rank derives the same id from the endpoint list (a benchmark on trusted hosts).
        GroupView view = new GroupView("ring-bench", 1, world, Backend.RING, benchmarkId(String.join(",", endpoints)),
                members);
        boolean verify = check != 0;
        try (RingCommunicatorFactory factory = new RingCommunicatorFactory(own.getHostString(), own.getHostString(),
                own.getPort(), settings)) {
            factory.prepareJoin(rank);
            try (Communicator comm = factory.create(view, rank, Duration.ofSeconds(60));
                 CommBuffer buf = comm.allocate(maxBytes);
                 CommBuffer timing = comm.allocate(8)) {
                if (rank == 0) {
                    out.printf(Locale.ROOT, "# allsum ring all_reduce: %d ranks, chunk %d B, %s, java %s, %d cpus%n",
                            world, settings.chunkBytes(), tcp ? "TCP only" : "shared memory on one host",
                            Runtime.version(), Runtime.getRuntime().availableProcessors());
                    out.print(NcclTestsTable.columnHeader("in-place"));
                }
                double busSum = 0;
                long wrongSum = 0;
                int rows = 0;
                long first = Math.max(4, minBytes);
                // Without this the first size's figure swung 2x between runs (the C2 compiles of the reduce and
                // copy loops land inside its timed loop); every rank runs the same count, so no rank waits alone.
                for (long i = 0, n = Math.min(100_000, warmupBytes / first); i < n; i++) {
                    comm.allReduce(buf, buf, first / 4, DataType.FLOAT32, ReduceOp.SUM);
                }
                for (long bytes = Math.max(4, minBytes); bytes <= maxBytes; bytes *= factor) {
                    long count = bytes / 4;
                    int n = iterations > 0 ? iterations : itersFor(bytes);
                    int w = warmup >= 0 ? warmup : Math.max(2, n / 5);
                    long wrong = verify ? verify(comm, buf, count) : 0;
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
                    wrongSum += totalWrong;
                    rows++;
                    if (rank == 0) {
                        out.println(NcclTestsTable.row(new NcclTestsTable.Row(bytes, count, DataType.FLOAT32,
                                "sum", -1, seconds * 1e6, algbw, busbw, verify ? totalWrong : -1)));
                        out.flush();
                    }
                }
                if (rank == 0) {
                    out.print(NcclTestsTable.footer(wrongSum, verify, rows, rows == 0 ? 0 : busSum / rows));
                    out.flush();
                }
            }
        }
    }

    /** Fills rank+1 everywhere, all-reduces once, counts elements that are not n(n+1)/2 (exact in float32). */
    private static long verify(Communicator comm, CommBuffer buf, long count) {
        int n = comm.size();
        float expected = n * (n + 1) / 2f;
        int block = (int) Math.min(count, 1 << 20);
        ByteBuffer host = ByteBuffer.allocateDirect(block * 4).order(ByteOrder.LITTLE_ENDIAN);
        FloatBuffer floats = host.asFloatBuffer();
        for (int i = 0; i < block; i++) {
            floats.put(i, comm.rank() + 1f);
        }
        for (long done = 0; done < count; done += block) {
            int now = (int) Math.min(block, count - done);
            buf.copyFromHost(host.clear().limit(now * 4), done * 4);
        }
        comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
        long wrong = 0;
        for (long done = 0; done < count; done += block) {
            int now = (int) Math.min(block, count - done);
            buf.copyToHost(host.clear().limit(now * 4), done * 4);
            for (int i = 0; i < now; i++) {
                if (floats.get(i) != expected) {
                    wrong++;
                }
            }
        }
        return wrong;
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
    private static int launch(int n, List<String> argv) throws Exception {
        List<String> endpoints = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                endpoints.add(Endpoints.format("127.0.0.1", s.getLocalPort()));
            }
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        String mainClass = System.getProperty("sun.java.command").split(" ")[0];
        List<String> passThrough = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            if (argv.get(i).equals("--launch")) {
                i++;
            } else if (!argv.get(i).startsWith("--launch=")) {
                passThrough.add(argv.get(i));
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
    private void probe() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            try (SocketChannel writeEnd = SocketChannel.open(server.getLocalAddress());
                 SocketChannel in = server.accept()) {
                writeEnd.socket().setTcpNoDelay(true);
                in.socket().setTcpNoDelay(true);
                ByteBuffer src = ByteBuffer.allocateDirect((int) Math.min(maxBytes, Integer.MAX_VALUE - 8));
                ByteBuffer dst = ByteBuffer.allocateDirect(src.capacity());
                out.printf(Locale.ROOT, "# loopback TCP, one stream (the ring moves n such streams at once)%n");
                out.printf(Locale.ROOT, "#%12s %10s %8s%n", "size", "time(us)", "GB/s");
                for (long bytes = Math.max(1, minBytes); bytes <= maxBytes; bytes *= factor) {
                    int n = iterations > 0 ? iterations : itersFor(bytes);
                    int size = (int) bytes;
                    Thread writer = Thread.ofPlatform().start(() -> {
                        try {
                            for (int i = 0; i < n + 2; i++) {
                                src.clear().limit(size);
                                while (src.hasRemaining()) {
                                    writeEnd.write(src);
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
                    out.printf(Locale.ROOT, " %12d %10.1f %8.3f%n", bytes, seconds * 1e6, bytes / seconds / 1e9);
                }
            }
        }
    }

    private static String benchmarkId(String endpoints) {
        try {
            byte[] half = MessageDigest.getInstance("SHA-512").digest(endpoints.getBytes(StandardCharsets.UTF_8));
            byte[] id = new byte[128];
            System.arraycopy(half, 0, id, 0, 64);
            System.arraycopy(half, 0, id, 64, 64);
            return Base64.getEncoder().encodeToString(id);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
