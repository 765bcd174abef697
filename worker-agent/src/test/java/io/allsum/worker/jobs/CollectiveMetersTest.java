package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CollectiveMetersTest {

    @Test
    void everyTimedSizeIsRecordedWithBoundedTags() {
        List<SimpleMeterRegistry> registries = List.of(new SimpleMeterRegistry(), new SimpleMeterRegistry());
        JobSpec spec = JobSpec.builder().sizes(96L, 96L << 10).stepFactor(1024).iterations(3, 1).build();

        Ranks.onEveryRank(2, comm -> new CollectiveJobRunner(new CollectiveMeters(registries.get(comm.rank())), Long.MAX_VALUE)
                .run(comm, spec, ProgressListener.NONE));

        SimpleMeterRegistry registry = registries.get(1);
        Timer small = registry.get(CollectiveMeters.TIMER)
                .tags("op", "all_reduce", "dtype", "float32", "size", "128B", "world.size", "2", "backend", "ring",
                        "outcome", "success")
                .timer();
        assertThat(small.count()).isEqualTo(1);
        assertThat(registry.get(CollectiveMeters.TIMER).tags("size", "128KiB").timer().count())
                .as("96 KiB lies in the 128 KiB bucket").isEqualTo(1);

        DistributionSummary payload = registry.get(CollectiveMeters.PAYLOAD).tags("size", "128B").summary();
        assertThat(payload.getId().getBaseUnit()).isEqualTo("bytes");
        assertThat(payload.totalAmount()).isEqualTo(96);

        DistributionSummary bandwidth = registry.get(CollectiveMeters.BUS_BANDWIDTH).tags("size", "128B").summary();
        assertThat(bandwidth.getId().getBaseUnit()).isEqualTo("bytes.per.second");
        double expected = 96 / (small.totalTime(java.util.concurrent.TimeUnit.SECONDS)) * CollectiveOp.ALL_REDUCE
                .busBandwidthFactor(2);
        assertThat(bandwidth.totalAmount()).isCloseTo(expected, org.assertj.core.data.Percentage.withPercentage(1));

        Set<String> tagKeys = registry.getMeters().stream()
                .flatMap(m -> m.getId().getTags().stream())
                .map(io.micrometer.core.instrument.Tag::getKey)
                .collect(Collectors.toSet());
        assertThat(tagKeys).containsExactlyInAnyOrder("op", "dtype", "size", "world.size", "backend", "outcome");
        assertThat(registry.find(CollectiveMeters.WRONG).meters()).as("nothing was wrong").isEmpty();
    }

    @Test
    void prometheusShowsTheHistogramPayloadAndBandwidthUnderConventionalNames() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);

        new CollectiveJobRunner(new CollectiveMeters(registry), Long.MAX_VALUE).run(comm, JobSpec.allSum(4096), ProgressListener.NONE);

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("allsum_collective_seconds_bucket{backend=\"ring\",dtype=\"float32\",op=\"all_reduce\","
                        + "outcome=\"success\",size=\"4KiB\",world_size=\"1\",le=")
                .contains("allsum_collective_payload_bytes_sum{")
                .contains("allsum_collective_bus_bandwidth_bytes_per_second_count{");
    }

    @Test
    void wrongElementsAreCounted() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Communicator faulty = new FaultyCommunicator(new InMemoryCommunicator.World(1, false).communicator(0), 2);

        new CollectiveJobRunner(new CollectiveMeters(registry), Long.MAX_VALUE).run(faulty, JobSpec.allSum(64), ProgressListener.NONE);

        assertThat(registry.get(CollectiveMeters.WRONG).tags("op", "all_reduce", "size", "64B").counter().count())
                .isEqualTo(2);
    }

    @Test
    void aFailedSizeIsTimedWithOutcomeError() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Communicator failing = new FaultyCommunicator(new InMemoryCommunicator.World(1, false).communicator(0), 0) {
            @Override
            public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
                throw new CommException("all_reduce", 0, "deadline of 5 s passed");
            }
        };

        assertThatThrownBy(() -> new CollectiveJobRunner(new CollectiveMeters(registry), Long.MAX_VALUE)
                .run(failing, JobSpec.allSum(1 << 20), ProgressListener.NONE))
                .isInstanceOf(CommException.class);

        assertThat(registry.get(CollectiveMeters.TIMER).tags("outcome", "error", "size", "1MiB").timer().count())
                .isEqualTo(1);
        assertThat(registry.find(CollectiveMeters.TIMER).tags("outcome", "success").meters()).isEmpty();
        assertThat(registry.find(CollectiveMeters.PAYLOAD).meters()).isEmpty();
    }

    @Test
    void unboundMetersRecordNothingAndDoNotFail() {
        CollectiveMeters meters = new CollectiveMeters();
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);

        assertThat(new CollectiveJobRunner(meters, Long.MAX_VALUE).run(comm, JobSpec.allSum(64), ProgressListener.NONE)).hasSize(1);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        meters.bindTo(registry);
        new CollectiveJobRunner(meters, Long.MAX_VALUE).run(comm, JobSpec.allSum(64), ProgressListener.NONE);
        assertThat(registry.getMeters()).extracting(Meter::getId).extracting(Meter.Id::getName)
                .contains(CollectiveMeters.TIMER, CollectiveMeters.PAYLOAD, CollectiveMeters.BUS_BANDWIDTH);
    }

    @Test
    void sizeBucketsAreTheNextPowerOfTwo() {
        assertThat(CollectiveMeters.sizeBucket(0)).isEqualTo("0B");
        assertThat(CollectiveMeters.sizeBucket(1)).isEqualTo("1B");
        assertThat(CollectiveMeters.sizeBucket(8)).isEqualTo("8B");
        assertThat(CollectiveMeters.sizeBucket(96)).isEqualTo("128B");
        assertThat(CollectiveMeters.sizeBucket(1023)).isEqualTo("1KiB");
        assertThat(CollectiveMeters.sizeBucket(64 << 10)).isEqualTo("64KiB");
        assertThat(CollectiveMeters.sizeBucket((64 << 10) + 1)).isEqualTo("128KiB");
        assertThat(CollectiveMeters.sizeBucket(1L << 30)).isEqualTo("1GiB");
        assertThat(CollectiveMeters.sizeBucket(8L << 30)).isEqualTo("8GiB");
        assertThat(CollectiveMeters.sizeBucket(Long.MAX_VALUE)).isEqualTo("8EiB");
    }
}
