package io.allsum.model.format;

import io.allsum.model.DataType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NcclTestsTableTest {

    @Test
    void timeColumnDropsDecimalsAsItGrows() {
        assertThat(NcclTestsTable.time(12.345)).isEqualTo("  12.35");
        assertThat(NcclTestsTable.time(123.45)).isEqualTo("  123.5");
        assertThat(NcclTestsTable.time(12345.6)).isEqualTo("  12346");
    }

    @Test
    void rowHasNcclTestsWidthsAndUnverifiedIsNotApplicable() {
        String row = NcclTestsTable.row(new NcclTestsTable.Row(1024, 256, DataType.FLOAT32, "sum", -1, 12.5, 0.08,
                0.12, -1));

        assertThat(row).isEqualTo("        1024           256     float     sum      -1    12.50    0.08    0.12    N/A");
    }

    @Test
    void footerSaysFailedForWrongElementsAndNotApplicableWhenUnverified() {
        assertThat(NcclTestsTable.footer(0, true, 3, 1.5)).startsWith("# Out of bounds values : 0 OK")
                .contains("# Avg bus bandwidth    : 1.5000");
        assertThat(NcclTestsTable.footer(2, true, 3, 1.5)).startsWith("# Out of bounds values : 2 FAILED");
        assertThat(NcclTestsTable.footer(0, false, 3, 1.5)).startsWith("# Out of bounds values : 0 N/A");
    }
}
