package io.allsum.comm.nccl;

import io.allsum.model.format.NcclTestsTable;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The sweep's table without a GPU: bench/h200 reads rows by whitespace-separated field (medians.py takes the size and
 * the out-of-place time; run.sh greps rows as lines starting with blanks and a digit).
 */
class NcclSelfCheckTableTest {

    @Test
    void rowFieldsAreOutOfPlaceThenInPlaceThenHostAndJniTimes() {
        NcclSelfCheck.SweepRow row = new NcclSelfCheck.SweepRow(1024,
                NcclSelfCheck.SweepRow.measured(1024, 10.24, 2.0, 0),
                NcclSelfCheck.SweepRow.measured(1024, 20.48, 2.0, 3), 4.5, 3.25);

        String line = row.line();

        assertThat(line).matches("^ +[0-9].*");
        assertThat(line.trim().split("\\s+")).containsExactly(
                "1024", "256", "float", "sum", "-1",
                "10.24", "0.10", "0.20", "0",
                "20.48", "0.05", "0.10", "3",
                "4.50", "3.25");
    }

    @Test
    void medianScriptReadsSizeAndOutOfPlaceTime() {
        String line = new NcclSelfCheck.SweepRow(1L << 30, NcclSelfCheck.SweepRow.measured(1L << 30, 12345.67, 1, 0),
                NcclSelfCheck.SweepRow.measured(1L << 30, 12000, 1, 0), 5, 4).line();

        // bench/h200/medians.py's row pattern, verbatim.
        var m = java.util.regex.Pattern.compile("^\\s+(\\d+)\\s+\\d+\\s+\\w+\\s+sum\\s+-?\\d+\\s+([\\d.]+)").matcher(line);
        assertThat(m.find()).isTrue();
        assertThat(m.group(1)).isEqualTo(Long.toString(1L << 30));
        assertThat(Double.parseDouble(m.group(2))).isCloseTo(12345.67, within(1.0));
    }

    @Test
    void bandwidthsFollowNcclTestsFormulas() {
        NcclTestsTable.Measured m = NcclSelfCheck.SweepRow.measured(64L << 20, 500, 2.0 * 7 / 8, 0);

        assertThat(m.algBandwidthGBps()).isCloseTo((64L << 20) / 500e3, within(1e-9));
        assertThat(m.busBandwidthGBps()).isCloseTo(m.algBandwidthGBps() * 1.75, within(1e-9));
    }

    @Test
    void headerNamesEveryRowFieldAndSaysWhenTimesAreGraphReplays() {
        List<String> plain = NcclSelfCheck.sweepHeader(0, 20).lines().toList();
        List<String> graph = NcclSelfCheck.sweepHeader(10, 20).lines().toList();

        assertThat(plain).hasSize(4).allMatch(l -> l.startsWith("#"));
        assertThat(plain.get(0)).isEqualTo("#");
        assertThat(plain.get(1)).contains("out-of-place", "in-place");
        assertThat(plain.get(2).substring(1).trim().split("\\s+")).containsExactly("size", "count", "type", "redop",
                "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "host(us)", "jni(us)");
        assertThat(graph.get(0)).startsWith("# CUDA-graph mode (-G 10)").contains("graph of 20 all-reduces");
        assertThat(graph.subList(1, 4)).isEqualTo(plain.subList(1, 4));
    }
}
