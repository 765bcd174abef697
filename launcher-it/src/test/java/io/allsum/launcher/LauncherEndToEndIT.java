package io.allsum.launcher;

import io.allsum.client.AllsumJson;
import io.allsum.model.jobs.JobSpec;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The main job, end to end: the launcher jar starts a real rendezvous server and 3 ring ranks, runs an all-sum sweep
 * of 8 B to 1 MiB, prints the table, writes JSON and stops its children. Both ways of hosting local CPU ranks: one
 * worker JVM for all (the default) and a JVM per rank (--process-per-rank).
 */
class LauncherEndToEndIT {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "process per rank: {0}")
    @ValueSource(booleans = {false, true})
    void threeRingRanksRunTheSweepAndPrintARowPerSize(boolean processPerRank) throws Exception {
        LauncherProcess.assumeReactorJars();
        Path json = dir.resolve("result.json");

        List<String> args = new java.util.ArrayList<>(List.of("--backend", "ring", "--ranks", "3",
                "-b", "8", "-e", "1M", "--json", json.toString(), "--timeout", "300"));
        if (processPerRank) {
            args.add("--process-per-rank");
        }
        LauncherProcess.Result r = LauncherProcess.runRecordingAot(dir, 480, args.toArray(String[]::new));

        assertThat(r.exitCode()).as("exit code; stderr:%n%s", r.stderr()).isZero();
        List<Long> expectedSizes =
                io.allsum.testing.UnsetJobSpec.builder().sizes(8L, 1L << 20).stepFactor(2).build().sizes(3);
        List<String[]> rows = r.stdout().lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.strip().split("\\s+")).toList();
        assertThat(rows).extracting(cols -> Long.parseLong(cols[0])).containsExactlyElementsOf(expectedSizes);
        assertThat(rows).allSatisfy(cols -> {
            assertThat(cols).hasSize(9);
            assertThat(cols[2]).isEqualTo("float");
            assertThat(cols[3]).isEqualTo("sum");
            assertThat(cols[8]).as("#wrong of size %s", cols[0]).isEqualTo("0");
        });
        assertThat(r.stdout()).contains("# Out of bounds values : 0 OK", "# Avg bus bandwidth", "#  Rank  2",
                "# time: average of ranks per iteration (-a 1)");
        assertThat(r.stdout().lines().filter(l -> l.startsWith("# allsum "))).as("one header").hasSize(1);
        List<String> pids = r.stdout().lines().filter(l -> l.startsWith("#  Rank "))
                .map(l -> l.replaceAll(".* Pid +(\\d+) .*", "$1")).toList();
        assertThat(pids).hasSize(3);
        assertThat(pids.stream().distinct()).as("worker JVMs").hasSize(processPerRank ? 3 : 1);
        // Phases as they happen, in order.
        String err = r.stderr();
        assertThat(err).containsSubsequence("starting the server and 3 ring ranks", "server up in",
                "3 ranks joined group 'local' in", "submitted", "running: every rank has it", "succeeded");
        // The log folder goes away after a successful run.
        java.util.regex.Matcher logs = java.util.regex.Pattern.compile("logs in (\\S+) ").matcher(err);
        assertThat(logs.find()).as("stderr names the log folder:%n%s", err).isTrue();
        assertThat(Path.of(logs.group(1))).doesNotExist();

        JsonNode record = AllsumJson.mapper().readTree(json.toFile());
        assertThat(record.get("mode").asString()).isEqualTo("local");
        assertThat(record.get("worldSize").asInt()).isEqualTo(3);
        assertThat(record.at("/job/state").asString()).isEqualTo("succeeded");
        assertThat(record.at("/job/results")).hasSize(expectedSizes.size());
        assertThat(record.toString()).doesNotContain("token");
        assertThat(record.get("schemaVersion").asInt()).isEqualTo(RunRecord.SCHEMA_VERSION);
        assertThat(record.get("exitCode").asInt()).isZero();
        assertThat(record.get("sizes")).hasSize(expectedSizes.size());
        assertThat(record.at("/sizes/0/rankTimesMicros")).hasSize(3);
        assertThat(record.get("averageBusBandwidthGBps").asDouble()).isPositive();
    }
}
