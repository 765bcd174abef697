package io.allsum.model.jobs;

import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.WholeNumbers;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import tools.jackson.databind.annotation.JsonDeserialize;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A collective job as submitted ({@code POST /rendezvous/{group}/jobs}); null fields take the defaults of
 * {@link #withDefaults()}. Sizes follow nccl-tests: {@code minBytes..maxBytes} multiplied by {@code stepFactor}
 * (-b -e -f), or, with a step factor of 1, plus {@code stepBytes} (-i); a size is the op's whole buffer as
 * nccl-tests counts it (for all-gather and reduce-scatter the gathered buffer, so each rank's share is
 * size / worldSize). With {@code validation} set the job is a validation:
 * each rank alone, every pair, then this sweep (an all-reduce), and a verdict. {@code excludeRanks} (sorted,
 * distinct) leave those ranks out: the others run the sweep as a group of their own, numbered in rank order.
 */
public record JobSpec(CollectiveOp op, DataType dtype, ReduceOp redop,
                      @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer root,
                      @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long minBytes,
                      @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long maxBytes,
                      @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer stepFactor,
                      @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer iterations,
                      @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer warmupIterations,
                      Boolean inPlace, Boolean verify,
                      @JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer timeoutSeconds,
                      ValidationSpec validation,
                      @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long stepBytes,
                      @JsonDeserialize(contentUsing = WholeNumbers.IntOnly.class) List<Integer> excludeRanks) {

    public JobSpec {
        excludeRanks = excludeRanks == null ? null : Collections.unmodifiableList(new ArrayList<>(excludeRanks));
    }

    /** The same job as a validation with {@code v}, or as a plain sweep when {@code v} is null. */
    public JobSpec withValidation(ValidationSpec v) {
        return toBuilder().validation(v).build();
    }

    /** The same job without {@code ranks} (none when null or empty). */
    public JobSpec withExcludeRanks(List<Integer> ranks) {
        return toBuilder().excludeRanks(ranks).build();
    }

    /** The same job over {@code min}..{@code max} bytes. */
    public JobSpec withSizes(long min, long max) {
        return toBuilder().sizes(min, max).build();
    }

    /** The same job with {@code timed} timed and {@code warmup} untimed iterations per size. */
    public JobSpec withIterations(int timed, int warmup) {
        return toBuilder().iterations(timed, warmup).build();
    }

    /** The same job with its own deadline of {@code seconds}. */
    public JobSpec withTimeoutSeconds(int seconds) {
        return toBuilder().timeoutSeconds(seconds).build();
    }

    /** A builder that starts from every default of {@link #withDefaults()} (all-sum of float32, 8 B..64 MiB, x2). */
    public static Builder builder() {
        return new Builder(new JobSpec(null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, null).withDefaults());
    }

    /** A builder that starts from this spec's fields, nulls included. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Names each field it sets, so that a spec is never spelled as fifteen positional values. */
    public static final class Builder {
        private CollectiveOp op;
        private DataType dtype;
        private ReduceOp redop;
        private Integer root;
        private Long minBytes;
        private Long maxBytes;
        private Integer stepFactor;
        private Integer iterations;
        private Integer warmupIterations;
        private Boolean inPlace;
        private Boolean verify;
        private Integer timeoutSeconds;
        private ValidationSpec validation;
        private Long stepBytes;
        private List<Integer> excludeRanks;

        private Builder(JobSpec s) {
            op = s.op;
            dtype = s.dtype;
            redop = s.redop;
            root = s.root;
            minBytes = s.minBytes;
            maxBytes = s.maxBytes;
            stepFactor = s.stepFactor;
            iterations = s.iterations;
            warmupIterations = s.warmupIterations;
            inPlace = s.inPlace;
            verify = s.verify;
            timeoutSeconds = s.timeoutSeconds;
            validation = s.validation;
            stepBytes = s.stepBytes;
            excludeRanks = s.excludeRanks;
        }

        public Builder op(CollectiveOp value) {
            op = value;
            return this;
        }

        public Builder dtype(DataType value) {
            dtype = value;
            return this;
        }

        public Builder redop(ReduceOp value) {
            redop = value;
            return this;
        }

        /** The op, its dtype and its reduction at once: how a test names one collective. */
        public Builder collective(CollectiveOp collective, DataType type, ReduceOp reduction) {
            return op(collective).dtype(type).redop(reduction);
        }

        public Builder root(Integer value) {
            root = value;
            return this;
        }

        /** Sizes {@code min}..{@code max} bytes (nccl-tests' -b and -e). */
        public Builder sizes(Long min, Long max) {
            minBytes = min;
            maxBytes = max;
            return this;
        }

        /** One size only. */
        public Builder size(long bytes) {
            return sizes(bytes, bytes);
        }

        /** nccl-tests' -f. */
        public Builder stepFactor(Integer value) {
            stepFactor = value;
            return this;
        }

        /** nccl-tests' -i: a linear sweep (with a step factor of 1). */
        public Builder stepBytes(Long value) {
            stepBytes = value;
            return this;
        }

        /** {@code timed} timed and {@code warmup} untimed iterations per size (nccl-tests' -n and -w). */
        public Builder iterations(Integer timed, Integer warmup) {
            iterations = timed;
            warmupIterations = warmup;
            return this;
        }

        public Builder inPlace(Boolean value) {
            inPlace = value;
            return this;
        }

        public Builder verify(Boolean value) {
            verify = value;
            return this;
        }

        public Builder timeoutSeconds(Integer value) {
            timeoutSeconds = value;
            return this;
        }

        /** A validation ({@code allsum validate}) with these settings; null for a plain sweep. */
        public Builder validation(ValidationSpec value) {
            validation = value;
            return this;
        }

        /** Ranks left out; none when null or empty. */
        public Builder excludeRanks(List<Integer> ranks) {
            excludeRanks = ranks == null || ranks.isEmpty() ? null : ranks;
            return this;
        }

        public JobSpec build() {
            return new JobSpec(op, dtype, redop, root, minBytes, maxBytes, stepFactor, iterations, warmupIterations,
                    inPlace, verify, timeoutSeconds, validation, stepBytes, excludeRanks);
        }
    }

    /** The ranks left out of the job, none when {@code excludeRanks} is null. */
    public List<Integer> excluded() {
        return excludeRanks != null ? excludeRanks : List.of();
    }

    /** How many of a group of {@code worldSize} ranks run the job: the sweep's sizes and bandwidths count these. */
    public int keptSize(int worldSize) {
        return worldSize - excluded().size();
    }

    /** The ranks of a group of {@code worldSize} that run the job, lowest first. */
    public List<Integer> keptRanks(int worldSize) {
        return IntStream.range(0, worldSize).filter(r -> !excluded().contains(r)).boxed().toList();
    }

    /**
     * The job as the kept ranks run it on a communicator of their own (ranks renumbered in rank order, as
     * {@code split} numbers them): no exclusions, and the root's rank among the kept ones.
     */
    public JobSpec onKeptRanks() {
        Integer keptRoot = root == null ? null : root - (int) excluded().stream().filter(r -> r < root).count();
        return toBuilder().root(keptRoot).excludeRanks(null).build();
    }

    /** Whether this job is a validation ({@code allsum validate}): the solo and pair phases, then the sweep. */
    public boolean validates() {
        return validation != null;
    }

    public static final long DEFAULT_MIN_BYTES = 8;
    public static final long DEFAULT_MAX_BYTES = 64L << 20;
    public static final int DEFAULT_STEP_FACTOR = 2;
    public static final int DEFAULT_ITERATIONS = 20;
    public static final int DEFAULT_WARMUP_ITERATIONS = 5;
    public static final int DEFAULT_TIMEOUT_SECONDS = 300;

    /** An all-sum of float32 over one size. */
    public static JobSpec allSum(long bytes) {
        return builder().size(bytes).build();
    }

    /**
     * The same spec with every null field replaced by its default (all-sum, float32, 8 B..64 MiB, x2, 20 iters); with
     * {@code stepBytes} the step factor defaults to 1, as nccl-tests' -i without -f. {@code stepBytes} has no default.
     */
    public JobSpec withDefaults() {
        return withDefaults(DEFAULT_TIMEOUT_SECONDS);
    }

    /** As {@link #withDefaults()}, with the server's configured default for a missing {@code timeoutSeconds}. */
    public JobSpec withDefaults(int defaultTimeoutSeconds) {
        long min = minBytes != null ? minBytes : (maxBytes != null ? Math.min(DEFAULT_MIN_BYTES, maxBytes) : DEFAULT_MIN_BYTES);
        long max = maxBytes != null ? maxBytes : Math.max(min, minBytes != null ? min : DEFAULT_MAX_BYTES);
        return new JobSpec(
                op != null ? op : CollectiveOp.ALL_REDUCE,
                dtype != null ? dtype : DataType.FLOAT32,
                redop != null ? redop : ReduceOp.SUM,
                root != null ? root : 0,
                min, max,
                stepFactor != null ? stepFactor : stepBytes != null ? 1 : DEFAULT_STEP_FACTOR,
                iterations != null ? iterations : DEFAULT_ITERATIONS,
                warmupIterations != null ? warmupIterations : DEFAULT_WARMUP_ITERATIONS,
                inPlace != null ? inPlace : Boolean.FALSE,
                verify != null ? verify : Boolean.TRUE,
                timeoutSeconds != null ? timeoutSeconds : defaultTimeoutSeconds,
                validation != null ? validation.withDefaults() : null,
                stepBytes, excludeRanks);
    }

    /** Whether the sweep steps linearly by {@code stepBytes} (nccl-tests: -i when -f is 1), after defaults. */
    public boolean stepsLinearly() {
        JobSpec s = withDefaults();
        return s.stepBytes() != null && s.stepBytes() > 0 && s.stepFactor() <= 1;
    }

    /** The step every size is rounded down to: one element, or one per rank for all-gather and reduce-scatter. */
    public long granule(int worldSize) {
        JobSpec s = withDefaults();
        return (long) s.dtype().bytes() * s.op().granuleElements(worldSize);
    }

    /**
     * The sizes of the sweep in bytes, after defaults: each rounded down to a whole number of elements (and, for
     * all-gather and reduce-scatter, to a multiple of worldSize elements), duplicates dropped, as nccl-tests does.
     * {@code worldSize} is the number of ranks that run the job ({@link #keptSize}).
     */
    public List<Long> sizes(int worldSize) {
        return sizes(worldSize, Integer.MAX_VALUE);
    }

    /** The first {@code atMost} sizes of {@link #sizes(int)}: a linear sweep may have billions. */
    public List<Long> sizes(int worldSize, int atMost) {
        JobSpec s = withDefaults();
        long granule = granule(worldSize);
        boolean linear = stepsLinearly();
        List<Long> out = new ArrayList<>();
        long start = s.minBytes();
        if (start <= 0) {
            // A zero-byte size is a valid edge case to run once; the sweep then continues from one step (or granule).
            out.add(0L);
            start = linear ? s.stepBytes() : granule;
        }
        for (long b = start; b <= s.maxBytes() && out.size() < atMost; ) {
            long rounded = b / granule * granule;
            if (rounded > 0 && (out.isEmpty() || out.getLast() != rounded)) {
                out.add(rounded);
            }
            if (linear) {
                // Steps that round to this size again are skipped at once: to the first past the next granule.
                long step = s.stepBytes();
                long need = rounded + granule - b;
                long steps = need / step + (need % step == 0 ? 0 : 1);
                if (steps > (s.maxBytes() - b) / step) {
                    break;
                }
                b += steps * step;
                continue;
            }
            if (s.stepFactor() <= 1) {
                break;
            }
            if (b > Long.MAX_VALUE / s.stepFactor()) {
                break;
            }
            b *= s.stepFactor();
        }
        return out;
    }
}
