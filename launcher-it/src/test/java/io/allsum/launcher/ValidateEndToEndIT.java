package io.allsum.launcher;

import io.allsum.client.AllsumJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code allsum validate --ranks 4 --exclude}, end to end: real server and ring workers, every phase, healthy (so
 * nothing is excluded), exit 0; and {@code --every} for two rounds on one group.
 */
@Isolated("it judges a group's speed: another test's processes on the same cores would be its fault")
class ValidateEndToEndIT {

    @TempDir
    Path dir;

    @Test
    void fourHealthyRingRanksAreHealthyWithEveryPhasePrintedAndTheJsonWritten() throws Exception {
        Path repo = Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
        for (String jar : List.of("rendezvous-server/target/rendezvous-server.jar", "worker-agent/target/worker-agent.jar")) {
            assumeTrue(Files.isRegularFile(repo.resolve(jar)), repo.resolve(jar)
                    + " is absent: build the reactor (./mvnw verify -pl launcher-it -am packages it first)");
        }
        Path json = dir.resolve("validate.json");

        LauncherProcess.Result r = LauncherProcess.run(dir, 480, "validate", "--backend", "ring", "--ranks", "4",
                "--json", json.toString(), "--timeout", "300", "--exclude");

        assertThat(r.exitCode()).as("exit code; stdout:%n%s%nstderr:%n%s", r.stdout(), r.stderr()).isZero();
        assertThat(r.stdout()).containsSubsequence("# phase 1: each rank alone", "# phase 2: every pair",
                "# pair bandwidth, tenths of the median", "# phase 3: all together", "# Out of bounds values : 0 OK",
                "# phase 4: verdict: healthy", "validate: healthy (4 ranks, 6 pairs)");
        List<String> lines = r.stdout().lines().toList();
        assertThat(lines.subList(lines.size() - 2, lines.size())).containsExactly("validate: healthy (4 ranks, 6 pairs)",
                "exclude: healthy, nothing is excluded");

        JsonNode record = AllsumJson.mapper().readTree(json.toFile());
        assertThat(record.get("verdict").asString()).isEqualTo("healthy");
        assertThat(record.get("suspects")).isEmpty();
        assertThat(record.get("pairs")).hasSize(6);
        assertThat(record.get("ranks")).hasSize(4);
        assertThat(record.at("/ranks/0/host").asString()).isNotBlank();
        assertThat(record.at("/pairs/0/gbps").asDouble()).isPositive();
        assertThat(record.get("exitCode").asInt()).isZero();
        assertThat(record.at("/job/state").asString()).isEqualTo("succeeded");
        assertThat(record.at("/excluded/ranks")).isEmpty();
        assertThat(record.at("/excluded/skipped").asString()).isEqualTo("healthy, nothing is excluded");
    }

    @Test
    void everyRoundsValidatesTheSameGroupAgainAndGivesEachRoundsVerdict() throws Exception {
        Path repo = Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
        assumeTrue(Files.isRegularFile(repo.resolve("worker-agent/target/worker-agent.jar")),
                "the worker jar is absent: build the reactor (./mvnw verify -pl launcher-it -am packages it first)");

        // what is tested is the rounds: two ranks on a crowded 2-core host can stall a probe 19% (a 15% bar)
        LauncherProcess.Result r = LauncherProcess.run(dir, 480, "validate", "--backend", "ring", "--ranks", "2",
                "--every", "1s", "--rounds", "2", "--timeout", "300", "--min-stall-share", "0.3");

        assertThat(r.exitCode()).as("exit code; stdout:%n%s%nstderr:%n%s", r.stdout(), r.stderr()).isZero();
        assertThat(r.stdout()).containsSubsequence("# round 1 of 2", "# round 1: validate: healthy (2 ranks, 1 pair)",
                "# round 2 of 2", "# round 2: validate: healthy (2 ranks, 1 pair)");
        assertThat(r.stderr()).contains("waiting for round 2 (--every 1 s)");
        assertThat(r.stdout()).doesNotContain("# round 3");
    }

    @Test
    void badOptionsAreOneLineAndExit2BeforeAnythingStarts() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(dir, 60, "validate", "--ranks", "1");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderrLines()).singleElement().asString()
                .startsWith("allsum: ").contains("--ranks must be at least 2");
    }
}
