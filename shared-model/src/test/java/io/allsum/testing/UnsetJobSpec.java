package io.allsum.testing;

import io.allsum.model.jobs.JobSpec;

/**
 * A job spec as submitted with no field set, for the tests of how an unset (null) field is treated: where
 * {@link JobSpec#builder()} starts from the defaults, {@link #builder()} starts from nulls, which the server fills
 * later. Shared with the other modules' tests through shared-model's test-jar.
 */
public final class UnsetJobSpec {

    /** Every field null: {@code {}} on the wire. */
    public static final JobSpec NONE = new JobSpec(null, null, null, null, null, null, null, null, null, null, null,
            null, null, null, null);

    private UnsetJobSpec() {
    }

    /** A builder whose every field is null until set. */
    public static JobSpec.Builder builder() {
        return NONE.toBuilder();
    }
}
