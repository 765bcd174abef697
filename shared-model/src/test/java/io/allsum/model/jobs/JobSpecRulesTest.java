package io.allsum.model.jobs;

import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.problem.Violation;
import io.allsum.testing.UnsetJobSpec;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobSpecRulesTest {

    /** As the server checks a submitted spec, with its default timeout of 300 s. */
    private static Violation check(JobSpec submitted, int worldSize, Backend backend) {
        JobSpec s = submitted.withDefaults(300);
        return JobSpecRules.firstViolation(submitted, s, worldSize, backend, JobSpecRules.Limits.DEFAULTS);
    }

    // The specs below leave unset fields null, as submitted: the rules tell an explicit root or redop from none.
    private static JobSpec spec(CollectiveOp op, DataType type, ReduceOp redop, Integer root, long min, long max) {
        return UnsetJobSpec.builder().collective(op, type, redop).root(root).sizes(min, max).stepFactor(2).build();
    }

    @Test
    void theDefaultAllSumBreaksNoRule() {
        assertThat(check(spec(null, null, null, null, 8, 64L << 20), 4, Backend.RING)).isNull();
    }

    @Test
    void aReductionOtherThanSumOnAGatherIsRefusedNamingRedop() {
        Violation v = check(spec(CollectiveOp.ALL_GATHER, DataType.FLOAT16, ReduceOp.MAX, 0, 8, 1024), 4, null);
        assertThat(v.field()).isEqualTo("redop");
        assertThat(v.message()).startsWith("is only meaningful for").endsWith("not for all_gather");
    }

    @Test
    void avgOnBroadcastIsRefused() {
        assertThat(check(spec(CollectiveOp.BROADCAST, null, ReduceOp.AVG, 0, 8, 1024), 2, null).field()).isEqualTo("redop");
    }

    @Test
    void sizesAboveTheLimitAreRefusedNamingMaxBytes() {
        Violation v = check(spec(null, null, null, null, 8, JobSpecRules.DEFAULT_MAX_BYTES + 1), 2, null);
        assertThat(v.field()).isEqualTo("maxBytes");
        assertThat(v.message()).contains("above the limit of " + JobSpecRules.DEFAULT_MAX_BYTES);
    }

    @Test
    void aRootOutsideTheGroupIsRefusedForRootedOps() {
        assertThat(check(spec(CollectiveOp.BROADCAST, null, null, 3, 8, 64), 2, null).toString())
                .isEqualTo("root: 3 is not a rank of this group (world size 2)");
    }

    @Test
    void avgOfFloat8IsRefusedOnNcclOnlyWhereTheBackendIsKnown() {
        JobSpec s = spec(null, DataType.FLOAT8_E4M3, ReduceOp.AVG, null, 8, 64);
        assertThat(check(s, 2, Backend.NCCL).field()).isEqualTo("redop");
        assertThat(check(s, 2, Backend.RING)).isNull();
        assertThat(check(s, 2, null)).isNull();
    }

    private static JobSpec linear(Integer factor, long min, long max, long step) {
        return UnsetJobSpec.builder().sizes(min, max).stepFactor(factor).timeoutSeconds(300).stepBytes(step).build();
    }

    @Test
    void aLinearStepIsForAStepFactorOfOneOrNone() {
        assertThat(check(linear(null, 1024, 8192, 1024), 2, null)).isNull();
        assertThat(check(linear(1, 1024, 8192, 1024), 2, null)).isNull();
        assertThat(check(linear(2, 1024, 8192, 1024), 2, null).toString()).isEqualTo("stepBytes: is a linear step, "
                + "for a stepFactor of 1 (or none), but stepFactor is 2: give one of the two");
    }

    @Test
    void aLinearStepIsAtLeastOneByte() {
        assertThat(check(linear(null, 8, 64, 0), 2, null).toString()).isEqualTo("stepBytes: must be at least 1, was 0");
    }

    @Test
    void aLinearSweepOfMoreSizesThanTheLimitIsRefusedNamingStepBytes() {
        Violation v = check(linear(null, 4, 64L << 30, 4), 1, null);

        assertThat(v.toString()).isEqualTo("stepBytes: the sweep 4..68719476736 in steps of 4 B has more than 64 "
                + "sizes, the limit");
        assertThat(check(linear(null, 4, 256, 4), 1, null)).as("64 sizes").isNull();
    }

    @Test
    void aSweepWithNoWholeElementPerRankIsRefused() {
        assertThat(check(spec(CollectiveOp.ALL_GATHER, DataType.FLOAT32, null, null, 8, 8), 4, null).message())
                .contains("holds no size of at least one element per rank");
    }

    // The canonical constructor: the builder turns an empty list into none, and an empty list is a case here.
    private static JobSpec excluding(CollectiveOp op, Integer root, Integer... ranks) {
        return new JobSpec(op, DataType.FLOAT32, null, root, 8L, 1024L, 2, null, null, null, null, 60, null,
                null, Arrays.asList(ranks));
    }

    @Test
    void excludedRanksThatLeaveTwoOrMoreBreakNoRule() {
        assertThat(check(excluding(null, null, 1, 3), 4, Backend.RING)).isNull();
        assertThat(check(excluding(CollectiveOp.BROADCAST, 2, 0, 1), 4, null)).isNull();
        assertThat(check(excluding(null, null), 2, null)).as("an empty list leaves no rank out").isNull();
    }

    @Test
    void anExcludedRankOutsideTheGroupIsRefused() {
        assertThat(check(excluding(null, null, 4), 4, null).toString())
                .isEqualTo("excludeRanks: 4 is not a rank of this group (world size 4)");
        assertThat(check(excluding(null, null, -1), 4, null).field()).isEqualTo("excludeRanks");
        assertThat(check(excluding(null, null, (Integer) null), 4, null).message()).startsWith("null is not a rank");
    }

    @Test
    void excludedRanksMustBeSortedAndDistinct() {
        assertThat(check(excluding(null, null, 2, 1), 4, null).message()).isEqualTo("must be sorted and distinct, was [2, 1]");
        assertThat(check(excluding(null, null, 1, 1), 4, null).field()).isEqualTo("excludeRanks");
    }

    @Test
    void excludingAllRanksOrAllButOneIsRefused() {
        assertThat(check(excluding(null, null, 0, 1, 2), 3, null).message())
                .isEqualTo("leaves 0 of 3 ranks; at least 2 must run the job");
        assertThat(check(excluding(null, null, 0, 2), 3, null).message())
                .isEqualTo("leaves 1 of 3 ranks; at least 2 must run the job");
    }

    @Test
    void theSweepsRulesHoldForAnyGroupAndComeFirst() {
        JobSpec below = spec(null, null, null, null, 1 << 20, 1024).withDefaults();
        assertThat(JobSpecRules.sweepViolation(below, JobSpecRules.Limits.DEFAULTS).toString())
                .isEqualTo("maxBytes: must be at least minBytes (1048576), was 1024");
        JobSpec noIterations = UnsetJobSpec.builder().sizes(8L, 64L).stepFactor(2).iterations(0, null).timeoutSeconds(0)
                .build().withDefaults();
        assertThat(JobSpecRules.sweepViolation(noIterations, JobSpecRules.Limits.DEFAULTS).field())
                .as("ahead of the timeout, which is no rule of the sweep").isEqualTo("iterations");
        assertThat(JobSpecRules.sweepViolation(spec(null, null, null, null, 8, 1024).withDefaults(),
                JobSpecRules.Limits.DEFAULTS)).isNull();
        assertThat(check(below, 4, null)).isEqualTo(JobSpecRules.sweepViolation(below, JobSpecRules.Limits.DEFAULTS));
    }

    @Test
    void leavingOutRanksIsCheckedAloneForTheRanksASpecWouldKeep() {
        assertThat(JobSpecRules.exclusionViolation(excluding(null, null, 1, 2).withDefaults(), 3).message())
                .isEqualTo("leaves 1 of 3 ranks; at least " + JobSpecRules.MIN_RANKS_KEPT + " must run the job");
        assertThat(JobSpecRules.exclusionViolation(excluding(null, null, 2).withDefaults(), 3)).isNull();
    }

    @Test
    void theRootOfARootedOpMustNotBeExcluded() {
        Violation v = check(excluding(CollectiveOp.REDUCE, 1, 1), 4, null);
        assertThat(v.field()).isEqualTo("root");
        assertThat(v.message()).isEqualTo("rank 1 is in excludeRanks; the root must run the job");
        assertThat(check(excluding(CollectiveOp.ALL_REDUCE, null, 0), 4, null)).as("no root on an all-reduce").isNull();
    }

    @Test
    void aValidationCannotExcludeRanks() {
        JobSpec s = UnsetJobSpec.builder().sizes(1024L, 4096L).stepFactor(4).timeoutSeconds(60)
                .validation(new ValidationSpec(null, null, null, null, null, null)).excludeRanks(List.of(1)).build();
        assertThat(check(s, 4, null).field()).isEqualTo("excludeRanks");
    }

    @Test
    void aValidationsStallShareAndBaselineAreBounded() {
        java.util.function.Function<ValidationSpec, Violation> rule = v -> check(UnsetJobSpec.builder()
                .sizes(1024L, 4096L).stepFactor(4).timeoutSeconds(60).validation(v).build(), 4, null);
        assertThat(rule.apply(new ValidationSpec(null, null, null, null, null, null, 0.0, null)).field())
                .isEqualTo("validation.minStallShare");
        assertThat(rule.apply(new ValidationSpec(null, null, null, null, null, null, 1.0, null)).message())
                .isEqualTo("must be in (0, 1), was 1.0");
        assertThat(rule.apply(new ValidationSpec(null, null, null, null, null, null, 0.2, null))).isNull();
        var badMargin = new io.allsum.model.validate.Baseline(4, 3, "2026-12-04T00:00:00Z",
                List.of(new io.allsum.model.validate.Baseline.Figure("busbw/4096", 1.5, 1.2)));
        Violation v = rule.apply(new ValidationSpec(null, null, null, null, null, null, null, badMargin));
        assertThat(v.field()).isEqualTo("validation.baseline");
        assertThat(v.message()).contains("figure busbw/4096").contains("margin in [0, 1)");
    }

    @Test
    void theSizesOfAGatherAreCountedForTheKeptRanks() {
        // 12 B of int32 on 3 kept ranks is one element each; on all 4 it holds no whole element per rank
        JobSpec gather = UnsetJobSpec.builder().op(CollectiveOp.ALL_GATHER).dtype(DataType.INT32).size(12)
                .stepFactor(2).timeoutSeconds(60).excludeRanks(List.of(3)).build();
        assertThat(check(gather, 4, null)).isNull();
        assertThat(gather.sizes(gather.keptSize(4))).containsExactly(12L);
    }
}
