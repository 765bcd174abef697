package io.allsum.model.format;

import io.allsum.model.DataType;
import org.junit.jupiter.api.Test;

import java.util.List;

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
    void singleModeHeaderKeepsNcclTestsColumns() {
        assertThat(NcclTestsTable.columnHeader("in-place").lines().toList()).containsExactly(
                "#" + " ".repeat(62) + "in-place",
                "#       size         count      type   redop    root     time   algbw   busbw #wrong",
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       ");
    }

    @Test
    void twoModeRowIsOutOfPlaceThenInPlaceThenExtrasUnderTheirHeaders() {
        String header = NcclTestsTable.twoModeHeader(new NcclTestsTable.Extra("host(us)", "/call"),
                new NcclTestsTable.Extra("jni(us)", "/call"));
        String row = NcclTestsTable.row(new NcclTestsTable.Row(1024, 256, DataType.FLOAT32, "sum", -1, 12.5, 0.08,
                0.12, 0), new NcclTestsTable.Measured(123.45, 0.01, 0.02, -1), 4.5, 3.25);

        assertThat(row.trim().split("\\s+")).containsExactly("1024", "256", "float", "sum", "-1",
                "12.50", "0.08", "0.12", "0", "123.5", "0.01", "0.02", "N/A", "4.50", "3.25");
        List<String> lines = header.lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).isEqualTo("#" + " ".repeat(62) + "out-of-place" + " ".repeat(23) + "in-place");
        assertThat(lines.get(1).substring(1).trim().split("\\s+")).containsExactly("size", "count", "type", "redop",
                "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", "host(us)", "jni(us)");
        // Right-aligned as in nccl-tests: every column name ends where its values end.
        assertThat(columnEnds(" " + lines.get(1).substring(1))).isEqualTo(columnEnds(row));
        assertThat(lines.get(2)).hasSize(row.length()).endsWith("/call     /call");
        assertThat(row.substring(0, NcclTestsTable.row(new NcclTestsTable.Row(1024, 256, DataType.FLOAT32, "sum", -1,
                12.5, 0.08, 0.12, 0)).length())).isEqualTo(
                "        1024           256     float     sum      -1    12.50    0.08    0.12      0");
    }

    @Test
    void footerSaysFailedForWrongElementsAndNotApplicableWhenUnverified() {
        assertThat(NcclTestsTable.footer(0, true, 3, 1.5)).startsWith("# Out of bounds values : 0 OK")
                .contains("# Avg bus bandwidth    : 1.5000");
        assertThat(NcclTestsTable.footer(2, true, 3, 1.5)).startsWith("# Out of bounds values : 2 FAILED");
        assertThat(NcclTestsTable.footer(0, false, 3, 1.5)).startsWith("# Out of bounds values : 0 N/A");
    }

    private static List<Integer> columnEnds(String line) {
        List<Integer> ends = new java.util.ArrayList<>();
        for (int i = 0; i < line.length(); i++) {
            if (line.charAt(i) != ' ' && (i + 1 == line.length() || line.charAt(i + 1) == ' ')) {
                ends.add(i);
            }
        }
        return ends;
    }
}
