package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import io.allsum.model.problem.Violation;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.comm.Collective;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Runs one collective job on this rank, the way nccl-tests does, size by size: fill the inputs with the
 * {@link VerificationPattern}, run the warm-up calls, time {@code iterations} back-to-back calls with
 * {@link Communicator#timeNanos} (CUDA events for NCCL) and divide by the iterations; then, when verifying, refill
 * the inputs, overwrite the outputs with the complement of the expected result (so a call that writes nothing is
 * caught), run one more call and count the elements that differ from the exact expected result (nccl-tests'
 * #wrong). Every rank of the group must run the same spec in the same order.
 * <p>
 * Each op is called, filled and checked through its {@link Collective}: in place one buffer (send/recv has no
 * in-place form, so it always uses two); a rank the op gives no output (reduce off the root) reports 0 wrong. A
 * {@link io.allsum.comm.CommException} propagates unchanged, after the error is metered.
 * <p>
 * Each {@link RankSizeResult} holds, like an nccl-tests row: {@code bytes}, the op's whole buffer (the gathered
 * output of all-gather, the full input of reduce-scatter); {@code count}, the element count passed to the call
 * (each rank's share for all-gather and reduce-scatter, all elements otherwise); {@code timeMicros}, the average of
 * the timed calls; {@code wrongElements}, or -1 when the job does not verify. A job with {@code excludeRanks} runs
 * on a communicator split off for the other ranks; a rank left out returns no results.
 */
public final class CollectiveJobRunner implements JobRunner {

    /** Host staging for fills and checks: device buffers of any size move through it in pieces. */
    private static final int STAGING_BYTES = 4 << 20;

    private final CollectiveMeters meters;
    private final long memoryLimitBytes;

    public CollectiveJobRunner() {
        this(null, Long.MAX_VALUE);
    }

    /**
     * @param meters           where to record each timed size; null records nothing
     * @param memoryLimitBytes the most a job's buffers and the backend's workspace may take on this rank, besides
     *                         what the communicator can allocate ({@code allsum.worker.job-memory-limit})
     */
    public CollectiveJobRunner(CollectiveMeters meters, long memoryLimitBytes) {
        this.meters = meters;
        this.memoryLimitBytes = memoryLimitBytes;
    }

    @Override
    public List<RankSizeResult> run(Communicator comm, JobSpec spec, BooleanSupplier cancelled) {
        return run(comm, spec, ProgressListener.NONE, cancelled);
    }

    public List<RankSizeResult> run(Communicator comm, JobSpec spec, ProgressListener listener) {
        return run(comm, spec, listener, () -> false);
    }

    /**
     * Runs every size of {@code spec} on {@code comm}. Between sizes it stops with a {@link CancellationException}
     * when this thread is interrupted or {@code cancelled} says so.
     */
    @Override
    public List<RankSizeResult> run(Communicator comm, JobSpec spec, ProgressListener listener,
                                    BooleanSupplier cancelled) {
        Objects.requireNonNull(comm, "comm");
        ProgressListener progress = listener != null ? listener : ProgressListener.NONE;
        JobSpec checked = validated(spec, comm.size(), comm.backend());
        if (!checked.excluded().isEmpty()) {
            return runOnKeptRanks(comm, checked, progress, cancelled);
        }
        int worldSize = comm.size();
        JobSpec job = checked;
        int width = job.dtype().bytes();
        List<CollectiveOp.Shape> shapes = job.sizes(worldSize).stream()
                .map(bytes -> job.op().shape(width, bytes, worldSize))
                .toList();
        if (shapes.isEmpty()) {
            return List.of();
        }
        boolean inPlace = job.inPlace() && job.op().runsInPlace();
        CollectiveOp.Shape largest = shapes.getLast();
        long maxSend = largest.sendElements();
        long maxRecv = largest.recvElements();
        long maxIndex = Math.max(maxSend, maxRecv);
        long stagingBytes = Math.max(width, Math.min(STAGING_BYTES, maxIndex * width));
        checkFits(comm, job, largest, job.op().bufferBytes(width, largest.bytes(), worldSize, inPlace) + stagingBytes);
        VerificationPattern pattern = new VerificationPattern(job.op(), job.dtype(), job.redop(), worldSize, maxIndex);
        ByteBuffer staging = ByteBuffer.allocateDirect((int) stagingBytes).order(ByteOrder.LITTLE_ENDIAN);

        List<RankSizeResult> results = new ArrayList<>(shapes.size());
        // At least one element each, so that a sweep of empty sizes still has real buffers to pass.
        try (CommBuffer first = allocate(comm, Math.max(1, (inPlace ? maxIndex : maxSend)) * width);
             CommBuffer second = inPlace ? null : allocate(comm, Math.max(1, maxRecv) * width)) {
            SizeRunner sizes = new SizeRunner(comm, job, pattern, staging, first, inPlace ? first : second);
            for (int i = 0; i < shapes.size(); i++) {
                if (Thread.currentThread().isInterrupted() || cancelled.getAsBoolean()) {
                    throw new CancellationException("job cancelled on rank " + comm.rank() + " after "
                            + i + " of " + shapes.size() + " sizes");
                }
                CollectiveOp.Shape shape = shapes.get(i);
                progress.sizeStarted(i, shapes.size(), shape.bytes());
                RankSizeResult result = timedAndMetered(comm, job, sizes, shape);
                results.add(result);
                progress.sizeCompleted(i, shapes.size(), result);
            }
        }
        return results;
    }

    /**
     * A job that leaves ranks out: every rank takes part in the split (it is collective over the group), the kept
     * ones run the job on their own communicator, numbered in rank order; a rank left out measures no size.
     */
    private List<RankSizeResult> runOnKeptRanks(Communicator comm, JobSpec job, ProgressListener progress,
                                                BooleanSupplier cancelled) {
        boolean left = job.excluded().contains(comm.rank());
        Communicator kept = comm.split(left ? -1 : 0, comm.rank());
        if (kept == null) {
            return List.of();
        }
        try (kept) {
            return run(kept, job.onKeptRanks(), progress, cancelled);
        }
    }

    /**
     * Refuses, before allocating the job's buffers, a job whose largest size some rank cannot hold. The ranks agree
     * first (one all-reduce of a flag), so that every rank refuses the job instead of waiting out the collective
     * deadline on the one that did not start.
     */
    private void checkFits(Communicator comm, JobSpec job, CollectiveOp.Shape largest, long buffers) {
        long need = buffers + comm.workspaceBytes(job.op(), largest);
        long limit = Math.min(comm.allocatableBytes(), memoryLimitBytes);
        String mine = need <= limit ? null : "the job's largest size (" + largest.bytes() + " B of " + job.op()
                + ") needs " + need + " bytes on rank " + comm.rank() + ", more than the " + limit + " it can hold ("
                + (limit == memoryLimitBytes ? "allsum.worker.job-memory-limit"
                : "free " + comm.backend() + " memory") + ")";
        int highestShort = comm.maxOverRanks(mine != null ? comm.rank() : -1);
        if (mine != null) {
            throw new JobDoesNotFitException(mine);
        }
        if (highestShort >= 0) {
            throw new JobDoesNotFitException("rank " + highestShort + " cannot hold the job's largest size ("
                    + largest.bytes() + " B of " + job.op() + ")");
        }
    }

    /** A buffer, or {@link JobDoesNotFitException} when the memory went meanwhile (another process took it). */
    private static CommBuffer allocate(Communicator comm, long bytes) {
        try {
            return comm.allocate(bytes);
        } catch (OutOfMemoryError e) {
            throw new JobDoesNotFitException("cannot allocate a buffer of " + bytes + " bytes: " + e.getMessage());
        }
    }

    private RankSizeResult timedAndMetered(Communicator comm, JobSpec job, SizeRunner sizes, CollectiveOp.Shape shape) {
        long started = System.nanoTime();
        try {
            SizeRunner.Outcome outcome = sizes.run(shape);
            if (meters != null) {
                meters.recordSuccess(job.op(), job.dtype(), comm.size(), comm.backend(), shape.bytes(),
                        Math.round(outcome.nanosPerCall()), outcome.wrongElements());
            }
            return new RankSizeResult(shape.bytes(), shape.count(), outcome.nanosPerCall() / 1000.0,
                    outcome.wrongElements());
        } catch (RuntimeException e) {
            if (meters != null) {
                meters.recordError(job.op(), job.dtype(), comm.size(), comm.backend(), shape.bytes(),
                        System.nanoTime() - started);
            }
            throw e;
        }
    }

    /** The spec with defaults, or IllegalArgumentException with the rule it breaks (the rules the server checks). */
    private static JobSpec validated(JobSpec spec, int worldSize, io.allsum.model.Backend backend) {
        JobSpec submitted = Objects.requireNonNull(spec, "spec");
        JobSpec job = submitted.withDefaults();
        Violation v = JobSpecRules.firstViolation(submitted, job, worldSize, backend, JobSpecRules.Limits.UNBOUNDED);
        if (v != null) {
            throw new IllegalArgumentException(v.field() + ": " + v.message());
        }
        return job;
    }

    /** Runs the sizes of one job on buffers allocated once at the largest size. */
    private static final class SizeRunner {

        record Outcome(double nanosPerCall, long wrongElements) {
        }

        /** A run of elements of a buffer and where their values come from in the pattern. */
        private record Segment(CommBuffer buffer, long elementOffset, long elements, Supplier<long[]> table,
                               long patternStart, double[] tolerance) {
        }

        private final Communicator comm;
        private final JobSpec job;
        private final VerificationPattern pattern;
        private final ByteBuffer staging;
        private final CommBuffer send;
        private final CommBuffer recv;
        private final DataType type;
        private final int width;
        private final int rank;
        private final int worldSize;
        private final Collective collective;
        private final long[] ownInputs;
        private int otherRank = -1;
        private long[] otherInputs;

        SizeRunner(Communicator comm, JobSpec job, VerificationPattern pattern, ByteBuffer staging, CommBuffer send,
                   CommBuffer recv) {
            this.comm = comm;
            this.job = job;
            this.pattern = pattern;
            this.staging = staging;
            this.send = send;
            this.recv = recv;
            this.type = job.dtype();
            this.width = type.bytes();
            this.rank = comm.rank();
            this.worldSize = comm.size();
            this.collective = Collective.of(job.op());
            this.ownInputs = pattern.inputTable(rank);
        }

        Outcome run(CollectiveOp.Shape shape) {
            Runnable call = collective.bind(comm, send, recv, shape.count(), type, job.redop(), job.root());
            Collective.Placement placement = new Collective.Placement(rank, worldSize, job.root(), shape.count(),
                    send == recv);
            write(segments(collective.inputs(placement)), false);
            for (int i = 0; i < job.warmupIterations(); i++) {
                call.run();
            }
            int iterations = job.iterations();
            // Like nccl-tests: line the ranks up before timing, so that one rank's slower set-up (filling, the
            // previous size's verification) is not counted as the collective's time on the others.
            comm.barrier();
            long nanos = comm.timeNanos(() -> {
                for (int i = 0; i < iterations; i++) {
                    call.run();
                }
            });
            long wrong = -1;
            if (job.verify()) {
                List<Segment> outputs = segments(collective.outputs(placement));
                write(outputs, true);
                write(segments(collective.inputs(placement)), false);
                call.run();
                wrong = 0;
                for (Segment output : outputs) {
                    wrong += countWrong(output);
                }
            }
            return new Outcome((double) nanos / iterations, wrong);
        }

        /** The descriptor's blocks on this job's buffers, each with the pattern table its values come from. */
        private List<Segment> segments(List<Collective.Block> blocks) {
            List<Segment> segments = new ArrayList<>(blocks.size());
            for (Collective.Block b : blocks) {
                boolean reduced = b.source() == Collective.Block.REDUCED;
                int source = b.source();
                Supplier<long[]> table = reduced ? pattern::reducedTable : () -> inputTable(source);
                segments.add(new Segment(b.recv() ? recv : send, b.offset(), b.elements(), table, b.sourceOffset(),
                        reduced ? pattern.toleranceTable() : null));
            }
            return segments;
        }

        /**
         * Rank {@code source}'s inputs: this rank's are kept, one other rank's at a time are cached, so memory stays
         * flat however many ranks an output gathers from.
         */
        private long[] inputTable(int source) {
            if (source == rank) {
                return ownInputs;
            }
            if (source != otherRank) {
                otherInputs = pattern.inputTable(source);
                otherRank = source;
            }
            return otherInputs;
        }

        /** Writes each segment's pattern values, or their complement when {@code poison} is set. */
        private void write(List<Segment> segments, boolean poison) {
            long mask = DTypeCodec.mask(type);
            int perChunk = staging.capacity() / width;
            for (Segment segment : segments) {
                if (segment.elements() == 0) {
                    continue;
                }
                long[] table = segment.table().get();
                int index = (int) (segment.patternStart() % VerificationPattern.PERIOD);
                for (long done = 0; done < segment.elements(); ) {
                    int n = (int) Math.min(perChunk, segment.elements() - done);
                    for (int e = 0; e < n; e++) {
                        long bits = table[index];
                        DTypeCodec.writeBits(staging, e * width, width, poison ? ~bits & mask : bits);
                        if (++index == VerificationPattern.PERIOD) {
                            index = 0;
                        }
                    }
                    segment.buffer().copyFromHost(staging.slice(0, n * width).order(ByteOrder.LITTLE_ENDIAN),
                            (segment.elementOffset() + done) * width);
                    done += n;
                }
            }
        }

        private long countWrong(Segment segment) {
            if (segment.elements() == 0) {
                return 0;
            }
            long[] table = segment.table().get();
            double[] tolerance = segment.tolerance();
            int perChunk = staging.capacity() / width;
            int index = (int) (segment.patternStart() % VerificationPattern.PERIOD);
            long wrong = 0;
            for (long done = 0; done < segment.elements(); ) {
                int n = (int) Math.min(perChunk, segment.elements() - done);
                segment.buffer().copyToHost(staging.slice(0, n * width).order(ByteOrder.LITTLE_ENDIAN),
                        (segment.elementOffset() + done) * width);
                for (int e = 0; e < n; e++) {
                    long actual = DTypeCodec.readBits(staging, e * width, width);
                    long expected = table[index];
                    if (actual != expected && !equivalent(actual, expected, tolerance, index)) {
                        wrong++;
                    }
                    if (++index == VerificationPattern.PERIOD) {
                        index = 0;
                    }
                }
                done += n;
            }
            return wrong;
        }

        /** Different bits can still be right: +0 and -0, or a float average within its documented tolerance. */
        private boolean equivalent(long actualBits, long expectedBits, double[] tolerance, int index) {
            if (!type.isFloatingPoint()) {
                return false;
            }
            double actual = DTypeCodec.decodeFloat(type, actualBits);
            double expected = DTypeCodec.decodeFloat(type, expectedBits);
            return actual == expected || (tolerance != null && Math.abs(actual - expected) <= tolerance[index]);
        }
    }
}
