package io.allsum.bench.library;

import io.allsum.Allsum;
import io.allsum.Communicator;
import io.allsum.CudaStream;
import io.allsum.comm.CommBuffer;
import io.allsum.model.CollectiveOp;
import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.format.ByteSize;
import io.allsum.model.format.NcclTestsTable;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The library as a program uses it: {@code Allsum.init()} from the ALLSUM_* variables, then a float32 sum all-reduce
 * sweep (out of place) on buffers of its own ({@link Communicator#allocate}: device memory for NCCL), each size timed as the
 * worker's job path times it (a barrier, then the backend's {@code timeNanos}, CUDA events for NCCL, over back-to-back calls of the
 * library's own {@code allReduce}; the slowest rank). Prints the start (JVM start and {@code init()} to the first all-reduce done)
 * and nccl-tests' table, so that one run compares with {@code allsum} on the same sizes.
 */
@Command(name = "bench-library", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Allsum.init() and an all-reduce sweep through the library, as a user program runs them.")
public final class LibraryBenchmark implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "-b", defaultValue = "8", paramLabel = "SIZE", description = "Smallest size (default ${DEFAULT-VALUE}).")
    String minBytes;

    @Option(names = "-e", defaultValue = "64M", paramLabel = "SIZE", description = "Largest size (default ${DEFAULT-VALUE}).")
    String maxBytes;

    @Option(names = "-f", defaultValue = "2", description = "Size factor (default ${DEFAULT-VALUE}).")
    int factor;

    @Option(names = "-n", defaultValue = "20", description = "Timed iterations per size (default ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "-w", defaultValue = "5", description = "Warm-up iterations per size (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--warm-calls", defaultValue = "10000", description = "One-element all-reduces before the sweep, "
            + "so that the JIT has compiled the call path, as the worker's start-up does (default ${DEFAULT-VALUE}).")
    int warmCalls;

    @Option(names = "--direct", description = "Call the backend's communicator (Communicator.unwrap()) as the job "
            + "path does, not the library's: tells the library's own per-call cost from the rest.")
    boolean direct;

    /** Where the timed calls come from: the job path's way, or a user program's thread. */
    enum Caller { TIMED, BLOCKING, STREAM }

    @Option(names = "--caller", defaultValue = "timed", converter = CallerConverter.class, description = "timed: the "
            + "calls inside the backend's timeNanos (CUDA events, the GPU thread), as the job path times them; blocking: "
            + "blocking calls from this program's thread, wall clock; stream: calls enqueued on a CUDA stream of this "
            + "program's thread, then one stream synchronize, wall clock (NCCL) (default ${DEFAULT-VALUE}).")
    Caller caller;

    static final class CallerConverter implements picocli.CommandLine.ITypeConverter<Caller> {
        @Override
        public Caller convert(String value) {
            return Caller.valueOf(value.toUpperCase(Locale.ROOT));
        }
    }

    @Override
    public Integer call() {
        long min = ByteSize.parse(minBytes);
        long max = ByteSize.parse(maxBytes);
        if (min < 4 || max < min || factor < 2 || iterations < 1 || warmup < 0) {
            throw new ParameterException(spec.commandLine(), "need 4 <= -b <= -e, -f >= 2, -n >= 1, -w >= 0");
        }
        PrintWriter out = spec.commandLine().getOut();
        long initStarted = System.nanoTime();
        try (Communicator comm = Allsum.init()) {
            comm.allReduce(new float[]{1}, ReduceOp.SUM); // the result is on the host: the all-reduce is done
            long firstDone = System.nanoTime();
            long jvmStartMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
            if (comm.rank() == 0) {
                out.printf(Locale.ROOT, "# LIBRARY_START rank 0 of %d (%s): init() to first all-reduce done %.1f ms, "
                                + "JVM start to it %d ms%n", comm.size(), comm.backend(),
                        (firstDone - initStarted) / 1e6, System.currentTimeMillis() - jvmStartMillis);
                out.print(NcclTestsTable.columnHeader("out-of-place"));
                out.flush();
            }
            double busSum = 0;
            int rows = 0;
            try (CommBuffer one = comm.allocate(DataType.FLOAT32.bytes())) {
                for (int i = 0; i < warmCalls; i++) {
                    comm.allReduce(one, one, 1, DataType.FLOAT32, ReduceOp.SUM);
                }
            }
            CallerStream stream = caller == Caller.STREAM ? CallerStream.create(comm) : null;
            try (CommBuffer send = comm.allocate(max); CommBuffer recv = comm.allocate(max)) {
                for (long bytes = min; bytes <= max; bytes = bytes * factor) {
                    long count = bytes / DataType.FLOAT32.bytes();
                    Runnable call = stream != null
                            ? () -> comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM, stream.handle())
                            : direct ? () -> comm.unwrap().allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM)
                            : () -> comm.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
                    for (int i = 0; i < warmup; i++) {
                        call.run();
                    }
                    if (stream != null) {
                        stream.synchronize();
                    }
                    // as the job path (and nccl-tests) do: ranks lined up, so one rank's late start is not timed
                    comm.barrier();
                    long nanos = caller == Caller.TIMED ? comm.unwrap().timeNanos(() -> repeat(call, iterations))
                            : wallNanos(call, iterations, stream);
                    double seconds = slowest(comm, nanos / 1e9 / iterations);
                    double algbw = count * DataType.FLOAT32.bytes() / seconds / 1e9;
                    double busbw = algbw * CollectiveOp.ALL_REDUCE.busBandwidthFactor(comm.size());
                    busSum += busbw;
                    rows++;
                    if (comm.rank() == 0) {
                        out.println(NcclTestsTable.row(new NcclTestsTable.Row(count * DataType.FLOAT32.bytes(), count,
                                DataType.FLOAT32, "sum", -1, seconds * 1e6, algbw, busbw, -1)));
                        out.flush();
                    }
                    if (bytes > max / factor) {
                        break;
                    }
                }
            } finally {
                if (stream != null) {
                    stream.close();
                }
            }
            if (comm.rank() == 0) {
                out.print(NcclTestsTable.footer(0, false, rows, rows == 0 ? 0 : busSum / rows));
                out.flush();
            }
        }
        return 0;
    }

    private static void repeat(Runnable call, int times) {
        for (int i = 0; i < times; i++) {
            call.run();
        }
    }

    /** Wall clock on this thread: the calls, then (stream) the wait for the stream to finish them. */
    private static long wallNanos(Runnable call, int times, CallerStream stream) {
        long start = System.nanoTime();
        repeat(call, times);
        if (stream != null) {
            stream.synchronize();
        }
        return System.nanoTime() - start;
    }

    /** A CUDA stream made on this program's thread (as a framework's current stream), for the enqueueing calls. */
    private record CallerStream(CUstream_st stream, CudaStream handle) implements AutoCloseable {

        static CallerStream create(Communicator comm) {
            if (comm.backend() != Backend.NCCL) {
                throw new IllegalStateException("--caller stream needs the NCCL backend, not " + comm.backend());
            }
            CUstream_st stream = new CUstream_st();
            check(cudart.cudaSetDevice(((io.allsum.comm.nccl.NcclCommunicator) comm.unwrap()).device()), "cudaSetDevice");
            check(cudart.cudaStreamCreateWithFlags(stream, cudart.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            return new CallerStream(stream, new CudaStream(stream.address()));
        }

        void synchronize() {
            check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        }

        @Override
        public void close() {
            check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
        }

        private static void check(int rc, String call) {
            if (rc != 0) {
                throw new IllegalStateException(call + " failed: CUDA error " + rc);
            }
        }
    }

    /** The slowest rank's figure, as the job path reports a size. */
    private static double slowest(Communicator comm, double seconds) {
        return comm.size() == 1 ? seconds : comm.allReduce(new double[]{seconds}, ReduceOp.MAX)[0];
    }
}
