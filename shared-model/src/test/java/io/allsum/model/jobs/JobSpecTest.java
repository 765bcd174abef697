package io.allsum.model.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.client.AllsumJson;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobSpecTest {

    private static JobSpec sweep(CollectiveOp op, DataType type, long min, long max, int factor) {
        return new JobSpec(op, type, null, null, min, max, factor, null, null, null, null, null);
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

    @Test
    void defaultsAreAnAllSumOfFloat32From8BytesTo64MiB() {
        JobSpec spec = new JobSpec(null, null, null, null, null, null, null, null, null, null, null, null).withDefaults();
        assertThat(spec.op()).isEqualTo(CollectiveOp.ALL_REDUCE);
        assertThat(spec.dtype()).isEqualTo(DataType.FLOAT32);
        assertThat(spec.sizes(1)).first().isEqualTo(8L);
        assertThat(spec.sizes(1)).last().isEqualTo(64L << 20);
    }

    @Test
    void theKeptRanksRunTheJobRenumberedWithTheRootAmongThem() {
        JobSpec s = new JobSpec(CollectiveOp.BROADCAST, null, null, 3, 8L, 8L, 2, null, null, null, null, null, null,
                List.of(0, 2, 5)).withDefaults();
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
