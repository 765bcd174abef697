package io.allsum.launcher;

import io.allsum.client.AllsumJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** --json is written whatever the outcome, with the exit code and the error the command printed. */
class JsonOnFailureTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return AllsumCommand.execute(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aRefusedCombinationStillWritesTheRecordWithExitCodeTwo() throws Exception {
        Path json = dir.resolve("run.json");

        int code = run("--backend", "ring", "-o", "avg", "--collective", "broadcast", "--json", json.toString());

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        JsonNode record = AllsumJson.mapper().readTree(json.toFile());
        assertThat(record.get("schemaVersion").asInt()).isEqualTo(RunRecord.SCHEMA_VERSION);
        assertThat(record.get("exitCode").asInt()).isEqualTo(2);
        assertThat(record.get("error").asString()).contains("-o/--op");
        assertThat(record.get("timeStatistic").asString()).isEqualTo("avg");
        assertThat(record.at("/environment/versions/java").asString()).isEqualTo(System.getProperty("java.runtime.version"));
        assertThat(record.at("/environment/versions").has("nccl")).isTrue();
        assertThat(record.at("/environment/versions").has("cuda")).isTrue();
    }

    @Test
    void anUnreachableServerStillWritesTheRecordWithTheError() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Path json = dir.resolve("sub/run.json");

        int code = run("--server", "http://127.0.0.1:" + closedPort, "--group", "g", "--json", json.toString());

        assertThat(code).isEqualTo(ExitCodes.FAILED);
        JsonNode record = AllsumJson.mapper().readTree(json.toFile());
        assertThat(record.get("mode").asString()).isEqualTo("remote");
        assertThat(record.get("exitCode").asInt()).isEqualTo(1);
        assertThat(record.get("error").asString()).startsWith("cannot reach the allsum server").contains("connection refused");
        assertThat(record.hasNonNull("job")).isFalse();
        assertThat(record.get("sizes")).isEmpty();
    }
}
