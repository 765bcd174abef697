package io.allsum.worker.jobs;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The worker's collective meters, one sample per timed size of a job:
 * <ul>
 * <li>{@value #TIMER}: Timer of the average time of one call (total of the timed iterations / iterations), with a
 * percentile histogram; tags op, dtype, size (power-of-two bucket: the smallest power of two &gt;= the size, as
 * "64KiB"), world.size, backend, outcome (success, or error with the time until the failure);</li>
 * <li>{@value #PAYLOAD}: DistributionSummary of the size in bytes (nccl-tests' size: the op's whole buffer);</li>
 * <li>{@value #BUS_BANDWIDTH}: DistributionSummary of nccl-tests' bus bandwidth in bytes per second (base unit
 * {@value #BYTES_PER_SECOND}; Prometheus shows it as {@code allsum_collective_bus_bandwidth_bytes_per_second});</li>
 * <li>{@value #WRONG}: Counter of elements that failed verification.</li>
 * </ul>
 * Tags come from bounded sets only; job ids never appear. Records nothing until bound to a registry.
 */
public final class CollectiveMeters implements MeterBinder {

    public static final String TIMER = "allsum.collective";
    public static final String PAYLOAD = "allsum.collective.payload";
    public static final String BUS_BANDWIDTH = "allsum.collective.bus.bandwidth";
    public static final String WRONG = "allsum.collective.wrong.elements";
    public static final String BYTES_PER_SECOND = "bytes.per.second";

    private volatile MeterRegistry registry;

    /** Unbound: Spring binds it when it is a bean; otherwise call {@link #bindTo}. */
    public CollectiveMeters() {
    }

    public CollectiveMeters(MeterRegistry registry) {
        bindTo(registry);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
    }

    /** One timed size that completed: average call time, payload and bus bandwidth. */
    public void recordSuccess(CollectiveOp op, DataType type, int worldSize, Backend backend, long bytes,
                              long nanosPerCall, long wrongElements) {
        MeterRegistry r = registry;
        if (r == null) {
            return;
        }
        Tags tags = tags(op, type, bytes, worldSize, backend);
        timer(r, tags.and("outcome", "success")).record(nanosPerCall, TimeUnit.NANOSECONDS);
        DistributionSummary.builder(PAYLOAD)
                .description("Bytes moved per collective call, as nccl-tests counts a size")
                .baseUnit(BaseUnits.BYTES)
                .tags(tags)
                .register(r)
                .record(bytes);
        if (nanosPerCall > 0) {
            double bytesPerSecond = op.busBandwidthGBps(bytes, nanosPerCall / 1e3, worldSize) * 1e9;
            DistributionSummary.builder(BUS_BANDWIDTH)
                    .description("nccl-tests bus bandwidth of a collective call")
                    .baseUnit(BYTES_PER_SECOND)
                    .tags(tags)
                    .register(r)
                    .record(bytesPerSecond);
        }
        if (wrongElements > 0) {
            Counter.builder(WRONG)
                    .description("Elements that differed from the exact expected result")
                    .tags(tags)
                    .register(r)
                    .increment(wrongElements);
        }
    }

    /** A size that failed: the time from its start until the failure. */
    public void recordError(CollectiveOp op, DataType type, int worldSize, Backend backend, long bytes,
                            long elapsedNanos) {
        MeterRegistry r = registry;
        if (r == null) {
            return;
        }
        timer(r, tags(op, type, bytes, worldSize, backend).and("outcome", "error"))
                .record(elapsedNanos, TimeUnit.NANOSECONDS);
    }

    /** The power-of-two bucket of a size: the smallest power of two &gt;= bytes, as "8B", "64KiB", "1GiB". */
    public static String sizeBucket(long bytes) {
        if (bytes <= 0) {
            return "0B";
        }
        int exponent = bytes == 1 ? 0 : 64 - Long.numberOfLeadingZeros(bytes - 1);
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        return (1L << (exponent % 10)) + units[exponent / 10];
    }

    private static Tags tags(CollectiveOp op, DataType type, long bytes, int worldSize, Backend backend) {
        return Tags.of("op", op.wireName(), "dtype", type.wireName(), "size", sizeBucket(bytes),
                "world.size", Integer.toString(worldSize), "backend", backend.wireName());
    }

    private static Timer timer(MeterRegistry r, Tags tags) {
        return Timer.builder(TIMER)
                .description("Average time of one collective call of a job's timed iterations")
                .tags(tags)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(500))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(r);
    }
}
