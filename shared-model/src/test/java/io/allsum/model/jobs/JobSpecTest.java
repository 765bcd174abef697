package io.allsum.model.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.client.AllsumJson;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.testing.UnsetJobSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobSpecTest {

    // The specs of these tests leave unset fields null, as submitted, for the defaults to fill.
    private static JobSpec sweep(CollectiveOp op, DataType type, long min, long max, int factor) {
        return UnsetJobSpec.builder().op(op).dtype(type).sizes(min, max).stepFactor(factor).build();
    }

    private static final ValidationSpec V = new ValidationSpec(1024L, null, null, null, null, null).withDefaults();

    @Test
    void theBuilderStartsFromTheDefaultsAndACopyKeepsEveryFieldNullsIncluded() {
        JobSpec none = UnsetJobSpec.NONE;
        assertThat(JobSpec.builder().build()).isEqualTo(none.withDefaults());
        assertThat(none.toBuilder().build()).isEqualTo(none);
        JobSpec every = new JobSpec(CollectiveOp.BROADCAST, DataType.INT8, io.allsum.model.ReduceOp.MAX, 2, 16L, 64L, 1,
                3, 1, true, false, 42, V, 16L, List.of(0));
        assertThat(every.toBuilder().build()).isEqualTo(every);
        assertThat(JobSpec.builder().collective(CollectiveOp.BROADCAST, DataType.INT8, io.allsum.model.ReduceOp.MAX)
                .root(2).sizes(16L, 64L).stepFactor(1).iterations(3, 1).inPlace(true).verify(false).timeoutSeconds(42)
                .validation(V).stepBytes(16L).excludeRanks(List.of(0)).build()).isEqualTo(every);
    }

    @Test
    void eachCopierChangesItsFieldsOnly() {
        JobSpec base = JobSpec.allSum(1024).withValidation(V).withExcludeRanks(List.of(3));
        // Spelled out in full: the copiers go through toBuilder(), which this checks.
        assertThat(base.withValidation(null)).isEqualTo(new JobSpec(base.op(), base.dtype(), base.redop(), base.root(),
                base.minBytes(), base.maxBytes(), base.stepFactor(), base.iterations(), base.warmupIterations(),
                base.inPlace(), base.verify(), base.timeoutSeconds(), null, base.stepBytes(), List.of(3)));
        assertThat(base.withExcludeRanks(List.of()).excludeRanks()).isNull();
        assertThat(base.withSizes(8, 64)).extracting(JobSpec::minBytes, JobSpec::maxBytes, JobSpec::validation)
                .containsExactly(8L, 64L, V);
        assertThat(base.withIterations(7, 1)).extracting(JobSpec::iterations, JobSpec::warmupIterations,
                JobSpec::excludeRanks).containsExactly(7, 1, List.of(3));
        assertThat(base.withTimeoutSeconds(9).timeoutSeconds()).isEqualTo(9);
        assertThat(base.withTimeoutSeconds(9).withTimeoutSeconds(base.timeoutSeconds())).isEqualTo(base);
    }

    @Test
    void sweepMultipliesByTheStepFactorLikeNcclTests() {
        assertThat(sweep(null, null, 8, 128, 2).sizes(4)).containsExactly(8L, 16L, 32L, 64L, 128L);
    }

    @Test
    void sizesAreRoundedToWholeElementsPerRankForGatherOps() {
        assertThat(sweep(CollectiveOp.ALL_GATHER, DataType.FLOAT32, 8, 64, 2).sizes(3))
                .containsExactly(12L, 24L, 60L);
    }

    @Test
    void zeroMinimumRunsAZeroByteSizeOnceThenContinues() {
        assertThat(sweep(null, DataType.FLOAT32, 0, 16, 2).sizes(2)).containsExactly(0L, 4L, 8L, 16L);
    }

    @Test
    void stepFactorOneMeansASingleSize() {
        assertThat(sweep(null, null, 1024, 1 << 20, 1).sizes(2)).containsExactly(1024L);
    }

    private static JobSpec linear(CollectiveOp op, long min, long max, Integer factor, long step) {
        return UnsetJobSpec.builder().op(op).dtype(DataType.FLOAT32).sizes(min, max).stepFactor(factor).stepBytes(step)
                .build();
    }

    @Test
    void stepBytesStepsLinearlyLikeNcclTestsDashI() {
        assertThat(linear(null, 1024, 4096, null, 1024).sizes(2)).containsExactly(1024L, 2048L, 3072L, 4096L);
        assertThat(linear(null, 1024, 4000, 1, 1024).sizes(2)).as("the last step past maxBytes is not run")
                .containsExactly(1024L, 2048L, 3072L);
        assertThat(linear(null, 1024, 4096, null, 1024).withDefaults().stepFactor()).isEqualTo(1);
    }

    @Test
    void linearSizesAreRoundedToElementsAndRepeatsDropped() {
        // float32: 8, 10, 12, 14, 16 round to 8, 8, 12, 12, 16
        assertThat(linear(null, 8, 16, null, 2).sizes(1)).containsExactly(8L, 12L, 16L);
        // all_gather on 3 ranks: multiples of 12 B; 12, 22, 32, 42, 52 round to 12, 12, 24, 36, 48
        assertThat(linear(CollectiveOp.ALL_GATHER, 12, 52, null, 10).sizes(3)).containsExactly(12L, 24L, 36L, 48L);
    }

    @Test
    void aLinearSweepFromZeroContinuesOneStepOn() {
        assertThat(linear(null, 0, 300, null, 100).sizes(2)).containsExactly(0L, 100L, 200L, 300L);
    }

    @Test
    void aLongLinearSweepCanBeCutShort() {
        JobSpec spec = linear(null, 4, 1L << 40, null, 4);

        assertThat(spec.sizes(1, 3)).containsExactly(4L, 8L, 12L);
        assertThat(linear(null, 8, Long.MAX_VALUE, null, Long.MAX_VALUE - 1).sizes(1)).containsExactly(8L);
    }

    @Test
    void stepBytesIsTheJsonFieldStepBytes() throws Exception {
        JobSpec spec = io.allsum.model.ProtocolJson.mapper().readValue(
                "{\"minBytes\":1024,\"maxBytes\":4096,\"stepBytes\":1024}", JobSpec.class);

        assertThat(spec.stepBytes()).isEqualTo(1024L);
        assertThat(spec.sizes(1)).containsExactly(1024L, 2048L, 3072L, 4096L);
        assertThat(io.allsum.model.ProtocolJson.mapper().writeValueAsString(spec)).contains("\"stepBytes\":1024");
    }

    @Test
    void defaultsAreAnAllSumOfFloat32From8BytesTo64MiB() {
        JobSpec spec = UnsetJobSpec.NONE.withDefaults();
        assertThat(spec.op()).isEqualTo(CollectiveOp.ALL_REDUCE);
        assertThat(spec.dtype()).isEqualTo(DataType.FLOAT32);
        assertThat(spec.sizes(1)).first().isEqualTo(8L);
        assertThat(spec.sizes(1)).last().isEqualTo(64L << 20);
    }

    @Test
    void theKeptRanksRunTheJobRenumberedWithTheRootAmongThem() {
        JobSpec s = UnsetJobSpec.builder().op(CollectiveOp.BROADCAST).root(3).size(8).stepFactor(2)
                .excludeRanks(List.of(0, 2, 5)).build().withDefaults();
        assertThat(s.excludeRanks()).as("kept by the defaults").containsExactly(0, 2, 5);
        assertThat(s.keptRanks(6)).containsExactly(1, 3, 4);
        assertThat(s.keptSize(6)).isEqualTo(3);
        JobSpec kept = s.onKeptRanks();
        assertThat(kept.root()).as("rank 3 is the second kept rank").isEqualTo(1);
        assertThat(kept.excluded()).isEmpty();
        assertThat(sweep(null, null, 8, 8, 2).excluded()).isEmpty();
    }

    @Test
    void excludeRanksTravelInJsonAsWholeNumbers() {
        var json = AllsumJson.mapper();
        JobSpec s = json.readValue("{\"excludeRanks\": [1, 3.0]}", JobSpec.class);
        assertThat(s.excludeRanks()).containsExactly(1, 3);
        assertThat(json.writeValueAsString(s)).contains("\"excludeRanks\":[1,3]");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                () -> json.readValue("{\"excludeRanks\": [1.5]}", JobSpec.class))).hasMessageContaining("whole number");
    }
}
