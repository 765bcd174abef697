package io.allsum.launcher;

import io.allsum.model.jobs.JobSpec;
import io.allsum.testing.UnsetJobSpec;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class BandwidthPlotTest {

    @TempDir
    Path dir;

    private static final JobSpec SWEEP = UnsetJobSpec.builder().sizes(1024L, 1L << 20).stepFactor(2).iterations(5, 1)
            .build();

    private static List<SizeResult> rows(long... wrong) {
        List<SizeResult> rows = new ArrayList<>();
        long[] sizes = LongStream.rangeClosed(10, 20).map(e -> 1L << e).toArray();
        for (int i = 0; i < sizes.length; i++) {
            double micros = 8 + sizes[i] / 10e3;
            double algbw = sizes[i] / micros / 1e3;
            rows.add(new SizeResult(sizes[i], sizes[i] / 4, micros, algbw, algbw * 1.5, i < wrong.length ? wrong[i] : 0));
        }
        return rows;
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<String> texts(Document svg) {
        NodeList nodes = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    @Test
    void thePlotIsWellFormedSvgWithOnePointPerSizeAndLabelledAxes() throws Exception {
        Document svg = parse(BandwidthPlot.svg(SWEEP, rows(), "4 ranks, ring, time: avg"));

        assertThat(svg.getDocumentElement().getLocalName()).isEqualTo("svg");
        NodeList points = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle");
        List<Long> bytes = new ArrayList<>();
        for (int i = 0; i < points.getLength(); i++) {
            bytes.add(Long.parseLong(((Element) points.item(i)).getAttribute("data-bytes")));
        }
        assertThat(bytes).containsExactlyElementsOf(LongStream.rangeClosed(10, 20).map(e -> 1L << e).boxed().toList());
        assertThat(texts(svg)).contains("message size (log2 scale)", "bus bandwidth (GB/s)", "1 KiB", "1 MiB")
                .anySatisfy(t -> assertThat(t).contains("all_reduce float32 sum").contains("bus bandwidth"))
                .anySatisfy(t -> assertThat(t).contains("1 KiB to 1 MiB x2").contains("4 ranks, ring"));
    }

    @Test
    void pointsClimbWithBandwidthAndASizeWithWrongElementsIsMarked() throws Exception {
        Document svg = parse(BandwidthPlot.svg(SWEEP, rows(0, 0, 3), null));

        NodeList points = svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle");
        double firstY = Double.parseDouble(((Element) points.item(0)).getAttribute("cy"));
        double lastY = Double.parseDouble(((Element) points.item(points.getLength() - 1)).getAttribute("cy"));
        assertThat(lastY).as("higher bandwidth is drawn higher (smaller y)").isLessThan(firstY);
        assertThat(((Element) points.item(2)).getAttribute("class")).isEqualTo("point wrong");
        assertThat(((Element) points.item(1)).getAttribute("class")).isEqualTo("point");
        assertThat(points.item(2).getTextContent()).contains("3 wrong");
    }

    @Test
    void aRunWithoutRowsStillGivesAValidPictureThatSaysSo() throws Exception {
        Document svg = parse(BandwidthPlot.svg(SWEEP, List.of(), "2 ranks"));

        assertThat(svg.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle").getLength()).isZero();
        assertThat(texts(svg)).contains("no measured size to plot");
    }

    @Test
    void anotherExtensionIsRefusedWithOneLineAndExitTwoBeforeAnythingStarts() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Path png = dir.resolve("run.png");

        int code = AllsumCommand.execute(new String[]{"--plot", png.toString(), "--ranks", "2", "--backend", "ring"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList()).singleElement().asString()
                .startsWith("allsum: --plot writes SVG only").contains("run.png");
        assertThat(Files.exists(png)).isFalse();
    }

    @Test
    void sizesAreLabelledInWholeBinaryUnitsAndTicksWithTheDecimalsTheyNeed() {
        assertThat(BandwidthPlot.bytes(8)).isEqualTo("8 B");
        assertThat(BandwidthPlot.bytes(64L << 20)).isEqualTo("64 MiB");
        assertThat(BandwidthPlot.bytes(1536)).isEqualTo("1536 B");
        assertThat(BandwidthPlot.niceMax(23.4)).isEqualTo(25);
        assertThat(BandwidthPlot.niceMax(0)).isEqualTo(1);
        assertThat(BandwidthPlot.tickDigits(BandwidthPlot.niceMax(0.26) / 5)).as("0.06 per tick").isEqualTo(2);
        assertThat(BandwidthPlot.tickDigits(12.0 / 5)).as("2.4 per tick").isEqualTo(1);
        assertThat(BandwidthPlot.tickDigits(25.0 / 5)).isZero();
    }
}
