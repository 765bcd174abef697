package io.allsum.worker.jobs;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.jobs.RankValidation;
import io.allsum.model.jobs.RankValidation.PairMeasurement;
import io.allsum.model.jobs.ValidationSpec;
import io.allsum.model.validate.PairFigures;
import io.allsum.model.validate.PairSchedule;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.SuspectFinder;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.host.HostReduction;

import java.lang.foreign.Arena;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs a validation job on this rank, phase by phase, every rank in the same order: (1) alone, a figure that
 * involves no peer: the ring's host reduction ({@link HostReduction}, one thread) or, for NCCL, an all-reduce on a
 * one-rank communicator split off the group (a device-local copy through NCCL's own kernels); (2) every pair, as
 * the rounds of a {@link PairSchedule} with a barrier after each, so that a round's pairs run at once and no pair
 * shares a rank with another; then each pair that is an outlier among all ranks' figures once more, the faster
 * figure counting (a passing slowdown of a shared host is no slow link); (3) the job's own all-reduce sweep through
 * the configured {@link JobRunner}, whose per-rank times the server turns into arrival counts. After each phase
 * (and each pair round) the figures so far go to {@code progress}, for the server to show while the job runs; the
 * last round's wait for the retest.
 */
public final class ValidationRunner {

    /**
     * Timed repetitions alone: at least this many and for {@link #SOLO_NANOS}, then on until this JVM's JIT compiler
     * has been quiet for {@link #JIT_QUIET_NANOS} (at most {@link #SOLO_MAX_NANOS}); the fastest counts. A rank
     * whose compiler is still busy with its start-up would otherwise time interpreted code and look slow, and a
     * moment without the core (ranks sharing a host's cores) does not count.
     */
    static final int SOLO_REPEATS = 5;
    static final long SOLO_NANOS = 1_000_000_000;
    static final long JIT_QUIET_NANOS = 300_000_000;
    static final long SOLO_MAX_NANOS = 10_000_000_000L;
    /** Short untimed reductions first, so that the timed ones run compiled code on every rank alike. */
    private static final int WARMUP_CALLS = 200;
    private static final long WARMUP_ELEMENTS = 16 << 10;
    /** Exchanges of 8 bytes timed per pair for its latency. */
    static final int LATENCY_ITERATIONS = 20;
    private static final long LATENCY_BYTES = 8;

    /** What this rank measured: the sweep's rows and its validation figures. */
    public record Outcome(List<RankSizeResult> results, RankValidation validation) {
    }

    private final JobRunner sweep;

    public ValidationRunner(JobRunner sweep) {
        this.sweep = Objects.requireNonNull(sweep, "sweep");
    }

    /**
     * @param host     where this rank runs (the address its peers reach it at)
     * @param device   its device (a GPU index, or "cpu")
     * @param progress hears the figures measured so far, after each phase and pair round
     * @throws CancellationException between steps when {@code cancelled} says so
     */
    public Outcome run(Communicator comm, JobSpec spec, String host, String device,
                       Consumer<RankValidation> progress, BooleanSupplier cancelled) {
        JobSpec job = Objects.requireNonNull(spec, "spec").withDefaults();
        if (!job.validates()) {
            throw new IllegalArgumentException("validation: the job is a plain sweep, not a validation");
        }
        if (comm.size() < 2) {
            throw new IllegalArgumentException("validation: needs at least 2 ranks (every pair is measured), the "
                    + "group has " + comm.size());
        }
        ValidationSpec v = job.validation();
        checkCancelled(comm, cancelled, "alone");
        double solo = comm.backend() == Backend.NCCL ? soloOnDevice(comm, v.soloBytes()) : soloOnHost(v.soloBytes());
        progress.accept(new RankValidation(host, device, solo, List.of(), null));

        List<PairMeasurement> pairs = new ArrayList<>();
        double pairsSeconds;
        PairSchedule schedule = PairSchedule.roundRobin(comm.size());
        long count = Math.max(1, v.pairBytes() / DataType.FLOAT32.bytes());
        try (CommBuffer send = comm.allocate(count * DataType.FLOAT32.bytes());
             CommBuffer recv = comm.allocate(count * DataType.FLOAT32.bytes())) {
            comm.barrier(); // a rank slower alone must not stretch its first pair
            long pairsStarted = System.nanoTime();
            for (int round = 0; round < schedule.rounds().size(); round++) {
                checkCancelled(comm, cancelled, "pairs");
                int peer = schedule.peerOf(comm.rank(), round);
                if (peer >= 0) {
                    pairs.add(exchange(comm, send, recv, count, peer, v.pairIterations()));
                }
                comm.barrier();
                if (round < schedule.rounds().size() - 1) {
                    // the last round's report waits for the retest, which may replace figures
                    progress.accept(new RankValidation(host, device, solo, pairs, null));
                }
            }
            PairSchedule retest = retestSchedule(shareFigures(comm, pairs), new SuspectFinder(v.thresholds()));
            for (int round = 0; round < retest.rounds().size(); round++) {
                checkCancelled(comm, cancelled, "pairs");
                int peer = retest.peerOf(comm.rank(), round);
                if (peer >= 0) {
                    keepFaster(pairs, exchange(comm, send, recv, count, peer, v.pairIterations()));
                }
                comm.barrier();
            }
            pairsSeconds = (System.nanoTime() - pairsStarted) / 1e9;
            progress.accept(new RankValidation(host, device, solo, pairs, pairsSeconds));
        }
        checkCancelled(comm, cancelled, "together");
        List<RankSizeResult> results = sweep.run(comm, job, cancelled);
        return new Outcome(results, new RankValidation(host, device, solo, pairs, pairsSeconds));
    }

    /**
     * Every rank's pair figures through the communicator, the same matrix on every rank: row r is rank r's GB/s to
     * each peer, NaN for itself and for a peer it did not measure.
     */
    static double[][] shareFigures(Communicator comm, List<PairMeasurement> pairs) {
        int n = comm.size();
        ByteBuffer row = ByteBuffer.allocateDirect(n * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int peer = 0; peer < n; peer++) {
            row.putDouble(peer * Double.BYTES, Double.NaN);
        }
        pairs.forEach(p -> row.putDouble(p.peer() * Double.BYTES, p.gbps()));
        ByteBuffer all = ByteBuffer.allocateDirect(n * n * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        try (CommBuffer send = comm.allocate((long) n * Double.BYTES);
             CommBuffer recv = comm.allocate((long) n * n * Double.BYTES)) {
            send.copyFromHost(row, 0);
            comm.allGather(send, recv, n, DataType.FLOAT64);
            recv.copyToHost(all, 0);
        }
        double[][] figures = new double[n][n];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                figures[r][c] = all.getDouble((r * n + c) * Double.BYTES);
            }
        }
        return figures;
    }

    /**
     * The pairs to measure again: the outliers of {@code figures} (each pair's slower side by {@link PairFigures},
     * as the server judges it), the slowest first, in rounds of disjoint pairs, but for the pairs of a rank slow with
     * most of its peers; none when more than N pairs are outliers, a fault too widespread to be a passing one.
     */
    static PairSchedule retestSchedule(double[][] figures, SuspectFinder finder) {
        int n = figures.length;
        Map<Pair, Double> pairs = PairFigures.bandwidths(figures);
        List<Pair> slow = finder.slowPairs(pairs);
        if (slow.size() > n) {
            return PairSchedule.of(n, List.of());
        }
        // A rank slow with most of its peers is no hiccup of one pair: its pairs are not measured again.
        Set<Integer> slowRanks = finder.slowRanks(pairs, slow);
        return PairSchedule.of(n, slow.stream().filter(p -> !slowRanks.contains(p.low()) && !slowRanks.contains(p.high()))
                .toList());
    }

    /** The faster of a pair's two measurements counts: a slow link is slow both times, a hiccup only once. */
    private static void keepFaster(List<PairMeasurement> pairs, PairMeasurement again) {
        for (int i = 0; i < pairs.size(); i++) {
            if (pairs.get(i).peer() == again.peer()) {
                if (again.gbps() > pairs.get(i).gbps()) {
                    pairs.set(i, again);
                }
                return;
            }
        }
        pairs.add(again);
    }

    /** GB/s of {@code bytes} of float32 summed into a second buffer by one thread, the ring's reduction step. */
    static double soloOnHost(long bytes) {
        long count = Math.max(1, bytes / DataType.FLOAT32.bytes());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(count * DataType.FLOAT32.bytes(), 64);
            MemorySegment b = arena.allocate(count * DataType.FLOAT32.bytes(), 64);
            a.fill((byte) 1);
            b.fill((byte) 2);
            for (int i = 0; i < WARMUP_CALLS; i++) {
                HostReduction.combine(a, b, a, Math.min(count, WARMUP_ELEMENTS), DataType.FLOAT32, ReduceOp.SUM);
            }
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
            long best = Long.MAX_VALUE;
            long started = System.nanoTime();
            long compiledMillis = jitTimed ? jit.getTotalCompilationTime() : 0;
            long jitChanged = started;
            for (int i = 0; ; i++) {
                long start = System.nanoTime();
                HostReduction.combine(a, b, a, count, DataType.FLOAT32, ReduceOp.SUM);
                long now = System.nanoTime();
                best = Math.min(best, now - start);
                if (jitTimed && jit.getTotalCompilationTime() != compiledMillis) {
                    compiledMillis = jit.getTotalCompilationTime();
                    jitChanged = now;
                }
                boolean enough = i + 1 >= SOLO_REPEATS && now - started >= SOLO_NANOS
                        && now - jitChanged >= JIT_QUIET_NANOS;
                if (enough || now - started >= SOLO_MAX_NANOS) {
                    break;
                }
            }
            return gbps(count * DataType.FLOAT32.bytes(), Math.max(1, best));
        }
    }

    /** GB/s of an all-reduce on a one-rank communicator: NCCL copies the buffer on the device, no peer involved. */
    static double soloOnDevice(Communicator comm, long bytes) {
        long count = Math.max(1, bytes / DataType.FLOAT32.bytes());
        try (Communicator alone = comm.split(comm.rank(), 0);
             CommBuffer send = alone.allocate(count * DataType.FLOAT32.bytes());
             CommBuffer recv = alone.allocate(count * DataType.FLOAT32.bytes())) {
            alone.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
            long best = Long.MAX_VALUE;
            for (int i = 0; i < SOLO_REPEATS; i++) {
                best = Math.min(best, alone.timeNanos(
                        () -> alone.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM)));
            }
            return gbps(count * DataType.FLOAT32.bytes(), Math.max(1, best));
        }
    }

    /**
     * Both directions at once with {@code peer}: bandwidth of {@code count} floats each way, then 8-byte latency,
     * each from the median exchange, so that one hiccup of a shared host does not count and a slow link still does.
     */
    private static PairMeasurement exchange(Communicator comm, CommBuffer send, CommBuffer recv, long count, int peer,
                                            int iterations) {
        comm.sendRecv(send, peer, recv, peer, count, DataType.FLOAT32); // warm-up: connections, buffers
        long bulk = medianNanos(comm, iterations, () -> comm.sendRecv(send, peer, recv, peer, count, DataType.FLOAT32));
        long small = LATENCY_BYTES / DataType.FLOAT32.bytes();
        long latency = medianNanos(comm, LATENCY_ITERATIONS,
                () -> comm.sendRecv(send, peer, recv, peer, small, DataType.FLOAT32));
        long bytes = count * DataType.FLOAT32.bytes();
        return new PairMeasurement(peer, bytes, gbps(bytes, Math.max(1, bulk)), latency / 1000.0);
    }

    private static long medianNanos(Communicator comm, int times, Runnable exchange) {
        long[] nanos = new long[times];
        for (int i = 0; i < times; i++) {
            nanos[i] = comm.timeNanos(exchange);
        }
        java.util.Arrays.sort(nanos);
        return nanos[times / 2];
    }

    private static double gbps(long bytes, long nanos) {
        return (double) bytes / nanos;
    }

    private static void checkCancelled(Communicator comm, BooleanSupplier cancelled, String phase) {
        if (Thread.currentThread().isInterrupted() || cancelled.getAsBoolean()) {
            throw new CancellationException("validation cancelled on rank " + comm.rank() + " before phase " + phase);
        }
    }
}
