package io.allsum.worker.jobs;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.comm.ring.RingCluster;
import io.allsum.comm.ring.RingSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A validation over the real ring: both directions of every pair on one link, the sweep after, the ring intact; with
 * the payload through shared memory and over TCP.
 */
class RingValidationTest {

    @ParameterizedTest(name = "sharedMemory={0}")
    @ValueSource(booleans = {true, false})
    void fourRingRanksMeasureEveryPairBothWaysAndTheSweepVerifies(boolean sharedMemory) {
        JobSpec spec = JobSpec.builder().sizes(1024L, 64L << 10).stepFactor(8).iterations(2, 1).timeoutSeconds(60)
                .validation(new ValidationSpec(1L << 20, 256L << 10, 3, null, null, null)).build();
        try (RingCluster cluster = new RingCluster(4, RingSettings.DEFAULTS.withSharedMemory(sharedMemory))
                .start(1)) {
            List<ValidationRunner.Outcome> outcomes = cluster.onEveryRank(rank -> new ValidationRunner(
                    new CollectiveJobRunner()).run(cluster.comms.get(rank), spec, "127.0.0.1", "cpu", v -> { },
                    () -> false));
            for (int rank = 0; rank < 4; rank++) {
                int self = rank;
                RankValidation v = outcomes.get(rank).validation();
                assertThat(v.soloGBps()).isPositive();
                assertThat(v.pairs()).extracting(RankValidation.PairMeasurement::peer)
                        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 4).filter(p -> p != self).boxed()
                                .toList());
                assertThat(v.pairs()).allSatisfy(p -> assertThat(p.gbps()).isPositive());
                assertThat(outcomes.get(rank).results()).extracting(r -> r.wrongElements()).containsOnly(0L);
            }
            cluster.assertSumOfRanks();
        }
    }
}
