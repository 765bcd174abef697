package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import io.allsum.model.problem.Violation;

/**
 * Checks a submitted {@link JobSpec} and fills in its defaults. Every rejection names the offending field, so that
 * a user sees at once which option to change.
 */
final class JobSpecValidator {

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
        JobSpec s = submitted.withDefaults((int) Math.min(Integer.MAX_VALUE, properties.defaultTimeout().toSeconds()));
        // The rules live in shared-model so that the allsum command refuses the same specs before starting anything.
        Violation v = JobSpecRules.firstViolation(submitted, s, worldSize, backend,
                new JobSpecRules.Limits(properties.maxBytes(), properties.maxSweepSizes()));
        if (v != null) {
            throw JobProblems.badField(v);
        }
        return s;
    }
}
