package io.allsum.bench.dispatch;

import io.allsum.bench.BenchCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DispatchBenchmarkTest {

    @Test
    void percentileIsNearestRankAndIgnoresMissingValues() {
        double[] values = {5, 1, 4, 2, 3, Double.NaN, 10, 9, 8, 7, 6};

        assertThat(DispatchBenchmark.percentile(values, 50)).isEqualTo(5);
        assertThat(DispatchBenchmark.percentile(values, 90)).isEqualTo(9);
        assertThat(DispatchBenchmark.percentile(new double[]{Double.NaN}, 50)).isNaN();
    }

    @Test
    void benchDispatchIsASubcommandWithItsOwnOptions() {
        var cl = BenchCommand.commandLine(System.out, System.err);
        var parsed = cl.parseArgs("bench-dispatch", "--ranks", "2,3", "--jobs", "5");
        DispatchBenchmark bench = parsed.subcommand().commandSpec().commandLine().getCommand();

        assertThat(bench.worldSizes).containsExactly(2, 3);
        assertThat(bench.jobs).isEqualTo(5);
    }
}
