package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;

import java.util.Arrays;
import java.util.List;

/**
 * Checks a submitted {@link JobSpec} and fills in its defaults. Every rejection names the offending field, so that
 * a user sees at once which option to change.
 */
final class JobSpecValidator {

    static final int MAX_ITERATIONS = 1_000_000;
    static final int MAX_TIMEOUT_SECONDS = 3600;

    private final JobsProperties properties;

    JobSpecValidator(JobsProperties properties) {
        this.properties = properties;
    }

    /** The spec with defaults applied, or a 400 naming the first bad field. */
    JobSpec validate(JobSpec submitted, int worldSize) {
        return validate(submitted, worldSize, null);
    }

    /**
     * As {@link #validate(JobSpec, int)}, also refusing what the group's backend cannot run, so that an unsupported
     * combination is a clear 400 here rather than a failed job on every rank.
     */
    JobSpec validate(JobSpec submitted, int worldSize, Backend backend) {
        if (submitted == null) {
            throw JobProblems.badField("body", "a job spec (JSON object) is required; {} takes every default");
        }
        JobSpec s = submitted.timeoutSeconds() != null ? submitted.withDefaults()
                : withTimeout(submitted, (int) Math.min(Integer.MAX_VALUE, properties.defaultTimeout().toSeconds()))
                .withDefaults();
        CollectiveOp op = s.op();
        if (s.minBytes() < 0) {
            throw JobProblems.badField("minBytes", "must not be negative (0 runs one zero-byte size), was " + s.minBytes());
        }
        if (s.maxBytes() < s.minBytes()) {
            throw JobProblems.badField("maxBytes", "must be at least minBytes (" + s.minBytes() + "), was " + s.maxBytes());
        }
        if (s.maxBytes() > properties.maxBytes()) {
            throw JobProblems.badField("maxBytes", s.maxBytes() + " bytes is above the limit of " + properties.maxBytes());
        }
        if (s.stepFactor() < 1) {
            throw JobProblems.badField("stepFactor", "must be at least 1 (1 runs minBytes only), was " + s.stepFactor());
        }
        if (s.iterations() < 1 || s.iterations() > MAX_ITERATIONS) {
            throw JobProblems.badField("iterations", "must be 1.." + MAX_ITERATIONS + ", was " + s.iterations());
        }
        if (s.warmupIterations() < 0 || s.warmupIterations() > MAX_ITERATIONS) {
            throw JobProblems.badField("warmupIterations", "must be 0.." + MAX_ITERATIONS + ", was " + s.warmupIterations());
        }
        if (s.timeoutSeconds() < 1 || s.timeoutSeconds() > MAX_TIMEOUT_SECONDS) {
            throw JobProblems.badField("timeoutSeconds", "must be 1.." + MAX_TIMEOUT_SECONDS + ", was " + s.timeoutSeconds());
        }
        if (op.rooted()) {
            if (s.root() < 0 || s.root() >= worldSize) {
                throw JobProblems.badField("root", s.root() + " is not a rank of this group (world size " + worldSize + ")");
            }
        } else if (submitted.root() != null && submitted.root() != 0) {
            throw JobProblems.badField("root", "is only meaningful for " + opsWhere(true) + ", not for " + op);
        }
        if (backend == Backend.NCCL && op.reduces() && s.redop() == ReduceOp.AVG
                && (s.dtype() == DataType.FLOAT8_E4M3 || s.dtype() == DataType.FLOAT8_E5M2)) {
            throw JobProblems.badField("redop", "NCCL has no avg for " + s.dtype()
                    + " (it answers ncclInvalidArgument); use sum, a wider dtype, or a ring group");
        }
        if (!op.reduces() && submitted.redop() != null && submitted.redop() != ReduceOp.SUM) {
            throw JobProblems.badField("redop", "is only meaningful for " + opsWhere(false) + ", not for " + op);
        }
        List<Long> sizes = s.sizes(worldSize);
        if (sizes.isEmpty()) {
            throw JobProblems.badField("maxBytes", "the sweep " + s.minBytes() + ".." + s.maxBytes()
                    + " holds no size of at least one element per rank for " + op + " of " + s.dtype()
                    + " on " + worldSize + " ranks");
        }
        if (sizes.size() > properties.maxSweepSizes()) {
            throw JobProblems.badField("stepFactor", "the sweep " + s.minBytes() + ".." + s.maxBytes() + " x"
                    + s.stepFactor() + " has " + sizes.size() + " sizes, more than the limit of " + properties.maxSweepSizes());
        }
        return s;
    }

    private static String opsWhere(boolean rooted) {
        return Arrays.stream(CollectiveOp.values()).filter(o -> rooted ? o.rooted() : o.reduces()).toList().toString();
    }

    private static JobSpec withTimeout(JobSpec s, int timeoutSeconds) {
        return new JobSpec(s.op(), s.dtype(), s.redop(), s.root(), s.minBytes(), s.maxBytes(), s.stepFactor(),
                s.iterations(), s.warmupIterations(), s.inPlace(), s.verify(), timeoutSeconds);
    }
}
