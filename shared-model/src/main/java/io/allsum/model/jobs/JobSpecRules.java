package io.allsum.model.jobs;

import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.problem.Violation;

import java.util.Arrays;
import java.util.List;

/**
 * The rules a job spec must meet, in one place: the server answers the first violation with a 400, and the
 * {@code allsum} command refuses the same options before it starts anything. Messages name the JSON field.
 */
public final class JobSpecRules {

    public static final int MAX_ITERATIONS = 1_000_000;
    public static final int MAX_TIMEOUT_SECONDS = 3600;
    public static final int DEFAULT_MAX_SWEEP_SIZES = 64;
    public static final long DEFAULT_MAX_BYTES = 64L << 30;
    /** The fewest ranks that run a job whose excludeRanks leave the others out. */
    public static final int MIN_RANKS_KEPT = 2;

    /** The server's configurable limits ({@code allsum.jobs.max-bytes}, {@code max-sweep-sizes}). */
    public record Limits(long maxBytes, int maxSweepSizes) {
        public static final Limits DEFAULTS = new Limits(DEFAULT_MAX_BYTES, DEFAULT_MAX_SWEEP_SIZES);
        /** No size limit: for a rank, which runs what its server accepted and checks its own memory. */
        public static final Limits UNBOUNDED = new Limits(Long.MAX_VALUE, Integer.MAX_VALUE);
    }

    private JobSpecRules() {
    }

    /**
     * The first rule that {@code submitted} breaks, or null.
     *
     * @param submitted the spec as sent (null fields mean "default"), to tell an explicit root or redop from a default
     * @param s         the same spec with defaults applied ({@link JobSpec#withDefaults()}, timeout included)
     * @param backend   the group's backend, or null when unknown (backend-specific rules are then skipped)
     */
    public static Violation firstViolation(JobSpec submitted, JobSpec s, int worldSize, Backend backend, Limits limits) {
        CollectiveOp op = s.op();
        Violation sweep = sweepViolation(s, limits);
        if (sweep != null) {
            return sweep;
        }
        if (s.timeoutSeconds() < 1 || s.timeoutSeconds() > MAX_TIMEOUT_SECONDS) {
            return new Violation("timeoutSeconds", "must be 1.." + MAX_TIMEOUT_SECONDS + ", was " + s.timeoutSeconds());
        }
        if (op.rooted()) {
            if (s.root() < 0 || s.root() >= worldSize) {
                return new Violation("root", s.root() + " is not a rank of this group (world size " + worldSize + ")");
            }
        } else if (submitted.root() != null && submitted.root() != 0) {
            return new Violation("root", "is only meaningful for " + opsWhere(true) + ", not for " + op);
        }
        if (backend == Backend.NCCL && op.reduces() && s.redop() == ReduceOp.AVG
                && (s.dtype() == DataType.FLOAT8_E4M3 || s.dtype() == DataType.FLOAT8_E5M2)) {
            return new Violation("redop", "NCCL has no avg for " + s.dtype()
                    + " (it answers ncclInvalidArgument); use sum, a wider dtype, or a ring group");
        }
        if (!op.reduces() && submitted.redop() != null && submitted.redop() != ReduceOp.SUM) {
            return new Violation("redop", "is only meaningful for " + opsWhere(false) + ", not for " + op);
        }
        Violation excluded = exclusionViolation(s, worldSize);
        if (excluded != null) {
            return excluded;
        }
        if (s.validates()) {
            Violation v = validationViolation(s, worldSize, limits);
            if (v != null) {
                return v;
            }
        }
        boolean linear = s.stepsLinearly();
        int ranks = s.keptSize(worldSize);
        // A linear sweep may have billions of sizes: one more than the limit tells that it is too long.
        List<Long> sizes = s.sizes(ranks, linear ? (int) Math.min(Integer.MAX_VALUE,
                limits.maxSweepSizes() + 1L) : Integer.MAX_VALUE);
        if (sizes.isEmpty()) {
            return new Violation("maxBytes", "the sweep " + s.minBytes() + ".." + s.maxBytes()
                    + " holds no size of at least one element per rank for " + op + " of " + s.dtype()
                    + " on " + ranks + " ranks");
        }
        if (sizes.size() > limits.maxSweepSizes() && linear) {
            return new Violation("stepBytes", "the sweep " + s.minBytes() + ".." + s.maxBytes() + " in steps of "
                    + s.stepBytes() + " B has more than " + limits.maxSweepSizes() + " sizes, the limit");
        }
        if (sizes.size() > limits.maxSweepSizes()) {
            return new Violation("stepFactor", "the sweep " + s.minBytes() + ".." + s.maxBytes() + " x"
                    + s.stepFactor() + " has " + sizes.size() + " sizes, more than the limit of " + limits.maxSweepSizes());
        }
        return null;
    }

    /**
     * The sweep's sizes and iterations, the rules that hold for a group of any size and backend: the first one that
     * {@code s} (with its defaults applied) breaks, or null.
     */
    public static Violation sweepViolation(JobSpec s, Limits limits) {
        if (s.minBytes() < 0) {
            return new Violation("minBytes", "must not be negative (0 runs one zero-byte size), was " + s.minBytes());
        }
        if (s.maxBytes() < s.minBytes()) {
            return new Violation("maxBytes", "must be at least minBytes (" + s.minBytes() + "), was " + s.maxBytes());
        }
        if (s.maxBytes() > limits.maxBytes()) {
            return new Violation("maxBytes", s.maxBytes() + " bytes is above the limit of " + limits.maxBytes());
        }
        if (s.stepFactor() < 1) {
            return new Violation("stepFactor", "must be at least 1 (1 runs minBytes only, or steps by stepBytes), was "
                    + s.stepFactor());
        }
        if (s.stepBytes() != null) {
            if (s.stepBytes() < 1) {
                return new Violation("stepBytes", "must be at least 1, was " + s.stepBytes());
            }
            // nccl-tests ignores -i when -f is above 1; a spec with both would not run as it reads.
            if (s.stepFactor() > 1) {
                return new Violation("stepBytes", "is a linear step, for a stepFactor of 1 (or none), but stepFactor is "
                        + s.stepFactor() + ": give one of the two");
            }
        }
        if (s.iterations() < 1 || s.iterations() > MAX_ITERATIONS) {
            return new Violation("iterations", "must be 1.." + MAX_ITERATIONS + ", was " + s.iterations());
        }
        if (s.warmupIterations() < 0 || s.warmupIterations() > MAX_ITERATIONS) {
            return new Violation("warmupIterations", "must be 0.." + MAX_ITERATIONS + ", was " + s.warmupIterations());
        }
        return null;
    }

    /**
     * Ranks left out: sorted, distinct ranks of the group, at least {@link #MIN_RANKS_KEPT} left to run the job, the
     * root among those, and not on a validation (which measures every rank). {@code s} has its defaults applied.
     */
    public static Violation exclusionViolation(JobSpec s, int worldSize) {
        List<Integer> excluded = s.excluded();
        if (excluded.isEmpty()) {
            return null;
        }
        if (s.validates()) {
            return new Violation("excludeRanks", "a validation measures every rank; it cannot leave ranks out");
        }
        for (int i = 0; i < excluded.size(); i++) {
            Integer rank = excluded.get(i);
            if (rank == null || rank < 0 || rank >= worldSize) {
                return new Violation("excludeRanks", rank + " is not a rank of this group (world size " + worldSize
                        + ")");
            }
            if (i > 0 && rank <= excluded.get(i - 1)) {
                return new Violation("excludeRanks", "must be sorted and distinct, was " + excluded);
            }
        }
        if (s.keptSize(worldSize) < MIN_RANKS_KEPT) {
            return new Violation("excludeRanks", "leaves " + s.keptSize(worldSize) + " of " + worldSize
                    + " ranks; at least " + MIN_RANKS_KEPT + " must run the job");
        }
        if (s.op().rooted() && excluded.contains(s.root())) {
            return new Violation("root", "rank " + s.root() + " is in excludeRanks; the root must run the job");
        }
        return null;
    }

    /** A validation's own rules: pairs need two ranks, its sweep is an all-reduce, its buffers fit the limits. */
    private static Violation validationViolation(JobSpec s, int worldSize, Limits limits) {
        ValidationSpec v = s.validation();
        if (worldSize < 2) {
            return new Violation("validation", "needs at least 2 ranks (every pair is measured), the group has "
                    + worldSize);
        }
        if (s.op() != CollectiveOp.ALL_REDUCE) {
            return new Violation("op", "a validation's sweep is an all_reduce, not " + s.op());
        }
        if (v.soloBytes() < 4 || v.soloBytes() > limits.maxBytes()) {
            return new Violation("validation.soloBytes", "must be 4.." + limits.maxBytes() + ", was " + v.soloBytes());
        }
        if (v.pairBytes() < 4 || v.pairBytes() > limits.maxBytes()) {
            return new Violation("validation.pairBytes", "must be 4.." + limits.maxBytes() + ", was " + v.pairBytes());
        }
        if (v.pairIterations() < 1 || v.pairIterations() > MAX_ITERATIONS) {
            return new Violation("validation.pairIterations", "must be 1.." + MAX_ITERATIONS + ", was "
                    + v.pairIterations());
        }
        if (!(v.minDeviations() >= 0)) {
            return new Violation("validation.minDeviations", "must be >= 0, was " + v.minDeviations());
        }
        if (!(v.minShortfall() >= 0 && v.minShortfall() < 1)) {
            return new Violation("validation.minShortfall", "must be in [0, 1), was " + v.minShortfall());
        }
        if (v.expectBusBandwidthGBps() != null && !(v.expectBusBandwidthGBps() > 0)) {
            return new Violation("validation.expectBusBandwidthGBps", "must be above 0, was "
                    + v.expectBusBandwidthGBps());
        }
        if (!(v.minStallShare() > 0 && v.minStallShare() < 1)) {
            return new Violation("validation.minStallShare", "must be in (0, 1), was " + v.minStallShare());
        }
        String baseline = v.baseline() == null ? null : v.baseline().problem();
        if (baseline != null) {
            return new Violation("validation.baseline", baseline);
        }
        return null;
    }

    private static String opsWhere(boolean rooted) {
        return Arrays.stream(CollectiveOp.values()).filter(o -> rooted ? o.rooted() : o.reduces()).toList().toString();
    }
}
