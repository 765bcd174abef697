package io.allsum.bench.rendezvous;

import io.allsum.client.AllsumJson;
import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Base64;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class RendezvousBenchmarkTest {

    private static JoinRequest parse(byte[] body) {
        return AllsumJson.mapper().readValue(body, JoinRequest.class);
    }

    @Test
    void onlyRankZeroCarriesTheUniqueIdWithNccl() {
        byte[] id = new byte[128];
        id[0] = 42;
        List<byte[]> bodies = RendezvousBenchmark.joinBodies("bench-g", 3, Backend.NCCL, id);

        assertThat(bodies).hasSize(3);
        JoinRequest rank0 = parse(bodies.get(0));
        assertThat(Base64.getDecoder().decode(rank0.uniqueId())).isEqualTo(id);
        assertThat(rank0.worldSize()).isEqualTo(3);
        assertThat(parse(bodies.get(1)).uniqueId()).isNull();
        assertThat(parse(bodies.get(2)).rank()).isEqualTo(2);
        assertThat(new String(bodies.get(1))).doesNotContain("uniqueId").doesNotContain("endpoint");
    }

    @Test
    void ringRanksBringDistinctEndpointsAndNoId() {
        List<byte[]> bodies = RendezvousBenchmark.joinBodies("g", 2, Backend.RING, new byte[128]);

        assertThat(bodies).extracting(b -> parse(b).uniqueId()).containsOnlyNulls();
        assertThat(bodies).extracting(b -> parse(b).endpoint()).doesNotHaveDuplicates().allMatch(e -> e.matches("127\\.0\\.0\\.1:\\d+"));
        assertThat(bodies).extracting(b -> parse(b).instanceId()).doesNotHaveDuplicates();
    }

    @Test
    void digestChecksumsAStreamedBodyAndKeepsItOnlyWhenAsked() {
        byte[] body = "{\"group\":\"g\",\"members\":[]}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.util.zip.CRC32 expected = new java.util.zip.CRC32();
        expected.update(body);

        for (boolean keep : new boolean[]{true, false}) {
            var subscriber = RendezvousBenchmark.Digest.subscriber(keep);
            subscriber.onSubscribe(new java.util.concurrent.Flow.Subscription() {
                public void request(long n) {
                }

                public void cancel() {
                }
            });
            subscriber.onNext(List.of(java.nio.ByteBuffer.wrap(body, 0, 5), java.nio.ByteBuffer.wrap(body, 5, body.length - 5)));
            subscriber.onComplete();
            var digest = subscriber.getBody().toCompletableFuture().join();

            assertThat(digest.crc()).isEqualTo(expected.getValue());
            assertThat(digest.length()).isEqualTo(body.length);
            assertThat(digest.bytes()).isEqualTo(keep ? body : null);
        }
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(RendezvousBenchmark.median(new double[]{5, 1, 3}).getAsDouble()).isEqualTo(3);
        assertThat(RendezvousBenchmark.median(new double[]{4, 1, 3, 2}).getAsDouble()).isEqualTo(2.5);
        assertThat(RendezvousBenchmark.median(new double[0])).isEmpty();
    }

    @Test
    void aRoundLineShowsTheLastRanksOwnAnswerWhenItWasMeasured() {
        var measured = new RendezvousBenchmark.RoundResult(64, 3_000_000, 500_000_000, 1.25, -1, 800_000);
        var not = new RendezvousBenchmark.RoundResult(64, 3_000_000, 500_000_000, 1.25);

        assertThat(measured.describe()).startsWith("last join -> all 3.00 ms (server delivery 1.25 ms, last rank's own "
                + "answer 0.80 ms), round 500.0 ms");
        assertThat(not.describe()).startsWith("last join -> all 3.00 ms (server delivery 1.25 ms), round 500.0 ms");
    }

    @Test
    void rowTakesMedianAndMaxOverRoundsAndJoinsPerSecondOverTheRound() {
        var results = List.of(new RendezvousBenchmark.RoundResult(1000, 3_000_000, 500_000_000, 1.0),
                new RendezvousBenchmark.RoundResult(1000, 9_000_000, 250_000_000, Double.NaN),
                new RendezvousBenchmark.RoundResult(1000, 4_000_000, 1_000_000_000, 2.0));

        var row = RendezvousBenchmark.Row.of(1000, results, OptionalLong.empty(), OptionalLong.of(204_800), OptionalLong.empty());

        assertThat(row.medianMillis()).isEqualTo(4.0);
        assertThat(row.maxMillis()).isEqualTo(9.0);
        assertThat(row.medianJoinsPerSecond()).isEqualTo(2000.0);
        assertThat(row.medianServerDeliveryMillis()).isEqualTo(1.5);
        String table = RendezvousBenchmark.formatTable(List.of(row));
        assertThat(table.lines().toList().get(1).trim().split("\\s+"))
                .containsExactly("1000", "3", "4.00", "9.00", "1.50", "2000", "n/a", "200.0", "n/a", "n/a");
    }

    @Test
    void readsActuatorMetricAndProcStatus() {
        assertThat(RendezvousBenchmark.metricStatistic("""
                {"name":"jvm.memory.used","baseUnit":"bytes","measurements":[{"statistic":"VALUE","value":1.2345678E8}]}""",
                "VALUE")).hasValue(1.2345678E8);
        assertThat(RendezvousBenchmark.metricStatistic("""
                {"name":"allsum.rendezvous.delivery","measurements":[{"statistic":"COUNT","value":3.0},
                 {"statistic":"TOTAL_TIME","value":0.0125},{"statistic":"MAX","value":0.01}]}""", "TOTAL_TIME"))
                .hasValue(0.0125);
        assertThat(RendezvousBenchmark.Machine.statusField("Name:\tjava\nVmHWM:\t  300000 kB\nVmRSS:\t  250000 kB\n", "VmRSS"))
                .hasValue(250_000);
        assertThat(RendezvousBenchmark.Machine.cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 9654\n")).hasValue("AMD EPYC 9654");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "--backend gloo | --backend: unknown Backend 'gloo'",
            "--clients pooled | --clients must be shared, per-rank or allsum, was pooled",
            "--clients allsum --view full | --clients allsum reads the compact rank view only"})
    void refusesABadOptionWithExitTwo(String options, String error) {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new RendezvousBenchmark()).setErr(new PrintWriter(err))
                .execute(("--server http://127.0.0.1:1 " + options).split(" "));

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains(error);
    }
}
