package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.testing.SeededProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated join, job, report, heartbeat and failure bodies against the real server (seeded, {@link SeededProperty}): valid bodies with fields
 * removed, added or given hostile values (wrong types, huge and negative numbers, "NaN", unicode, deep nesting,
 * long strings), truncated or random bytes, wrong content types, gzip'd garbage. Every answer must come within its
 * deadline, below 500, a 4xx as problem+json with a {@code code}; the server must be healthy afterwards.
 */
class RequestFuzzTest extends RendezvousHttpTestBase {

    /** A join waits at most this long ({@code wait=0} answers a forming group at once); far above any answer here. */
    private static final Duration REQUEST_DEADLINE = Duration.ofSeconds(10);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String JOBS_GROUP = "fuzz-jobs";

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** One fuzzed request: where it goes, its body, and the headers that describe it. */
    record Input(String path, byte[] body, String contentType, String contentEncoding, String shown) {
        @Override
        public String toString() {
            return "POST " + path + " Content-Type=" + contentType + " Content-Encoding=" + contentEncoding + " " + shown;
        }
    }

    @BeforeEach
    void formJobsGroup() {
        // A one-rank group: its generation is complete at once, so that valid job bodies are accepted (201).
        assertThat(http.join(ring(JOBS_GROUP, 0, 1, "fuzz-worker"), 5).statusCode()).isEqualTo(200);
    }

    @Test
    void everyGeneratedRequestIsAnsweredBelow500AsAProblemAndTheServerStaysHealthy() {
        SeededProperty.forAll(RequestFuzzTest::input, input -> {
            HttpResponse<String> response = send(input);
            int status = response.statusCode();
            assertThat(status).as("status of %s: %s", input, response.body()).isLessThan(500);
            if (status >= 400) {
                assertThat(response.headers().firstValue("Content-Type")).as("content type of the %d", status)
                        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
                JsonNode problem = RendezvousHttp.json(response);
                assertThat(problem.path("code").isString()).as("code in %s", response.body()).isTrue();
                assertThat(problem.path("status").asInt()).isEqualTo(status);
            }
        });
        HttpResponse<String> health = http.get("/actuator/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("UP");
    }

    private HttpResponse<String> send(Input input) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + input.path()))
                .timeout(REQUEST_DEADLINE).POST(HttpRequest.BodyPublishers.ofByteArray(input.body()));
        if (input.contentType() != null) {
            request.header("Content-Type", input.contentType());
        }
        if (input.contentEncoding() != null) {
            request.header("Content-Encoding", input.contentEncoding());
        }
        try {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("no answer within " + REQUEST_DEADLINE + " to " + input, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static Input input(SplittableRandom random) {
        String path;
        ObjectNode valid;
        switch (random.nextInt(10)) {
            case 0, 1, 2, 3 -> {
                path = Protocol.RENDEZVOUS_PATH + "?wait=0";
                valid = validJoin(random);
            }
            case 4, 5, 6 -> {
                path = "/rendezvous/" + JOBS_GROUP + "/jobs";
                valid = validJob(random);
            }
            case 7 -> {
                path = "/rendezvous/" + JOBS_GROUP + "/jobs/" + new UUID(random.nextLong(), random.nextLong()) + "/reports";
                valid = validReport(random);
            }
            default -> {
                boolean heartbeat = random.nextBoolean();
                path = "/rendezvous/fuzz-" + random.nextInt(50) + (heartbeat ? "/heartbeat" : "/failures");
                valid = heartbeat ? validHeartbeat(random) : validFailure(random);
            }
        }
        int mutations = random.nextInt(4);
        for (int i = 0; i < mutations; i++) {
            mutate(valid, random);
        }
        byte[] body = valid.toString().getBytes(StandardCharsets.UTF_8);
        String shown = abbreviate(valid.toString());
        switch (random.nextInt(10)) {
            case 0 -> {
                body = Arrays.copyOf(body, random.nextInt(body.length + 1));
                shown = "truncated to " + body.length + " bytes: " + abbreviate(new String(body, StandardCharsets.UTF_8));
            }
            case 1 -> {
                body = new byte[random.nextInt(512)];
                random.nextBytes(body);
                shown = "random bytes " + abbreviate(HexFormat.of().formatHex(body));
            }
            case 2 -> {
                String nested = deepNesting(random);
                body = nested.getBytes(StandardCharsets.UTF_8);
                shown = "nested " + nested.length() + " chars";
            }
            default -> {
            }
        }
        String contentType = switch (random.nextInt(12)) {
            case 0 -> null;
            case 1 -> "text/plain";
            case 2 -> "application/json; charset=ISO-8859-1";
            case 3 -> "multipart/form-data; boundary=fuzz";
            case 4 -> "application/x-www-form-urlencoded";
            case 5 -> "application/json;;;";
            default -> "application/json";
        };
        String contentEncoding = null;
        switch (random.nextInt(12)) {
            case 0 -> {
                contentEncoding = "gzip";
                body = gzip(body);
            }
            case 1 -> {
                contentEncoding = "gzip";
                shown += " (not gzip'd)";
            }
            case 2 -> {
                byte[] garbage = gzip(body);
                for (int i = 10; i < garbage.length; i += 1 + random.nextInt(8)) {
                    garbage[i] = (byte) random.nextInt(256);
                }
                contentEncoding = "gzip";
                body = garbage;
                shown += " (gzip'd, then corrupted)";
            }
            case 3 -> contentEncoding = "br";
            default -> {
            }
        }
        return new Input(path, body, contentType, contentEncoding, shown);
    }

    private static ObjectNode validJoin(SplittableRandom random) {
        int worldSize = 1 + random.nextInt(4);
        ObjectNode join = NODES.objectNode();
        join.put("group", "fuzz-" + random.nextInt(50));
        join.put("rank", random.nextInt(worldSize));
        join.put("worldSize", worldSize);
        join.put("instanceId", "fuzz-" + Long.toHexString(random.nextLong()));
        join.put("backend", "ring");
        join.put("endpoint", "127.0.0.1:" + (20000 + random.nextInt(1000)));
        if (random.nextBoolean()) {
            join.put("lastGeneration", random.nextInt(20));
        }
        return join;
    }

    private static ObjectNode validJob(SplittableRandom random) {
        ObjectNode job = NODES.objectNode();
        long bytes = 4L << random.nextInt(10);
        job.put("minBytes", bytes);
        job.put("maxBytes", bytes << random.nextInt(3));
        job.put("iterations", 1 + random.nextInt(3));
        if (random.nextBoolean()) {
            job.put("op", random.nextBoolean() ? "all_reduce" : "broadcast");
        }
        if (random.nextBoolean()) {
            job.put("timeoutSeconds", 1 + random.nextInt(60));
        }
        return job;
    }

    private static ObjectNode validReport(SplittableRandom random) {
        ObjectNode report = NODES.objectNode();
        report.put("rank", random.nextInt(2));
        report.put("instanceId", "fuzz-worker");
        report.put("generation", 1 + random.nextInt(3));
        report.put("succeeded", random.nextBoolean());
        ArrayNode results = report.putArray("results");
        results.addObject().put("bytes", 8).put("count", 2).put("timeMicros", random.nextDouble() * 100)
                .put("wrongElements", 0);
        return report;
    }

    private static ObjectNode validHeartbeat(SplittableRandom random) {
        ObjectNode heartbeat = NODES.objectNode();
        heartbeat.put("rank", random.nextInt(4));
        heartbeat.put("instanceId", "fuzz-" + Long.toHexString(random.nextLong()));
        heartbeat.put("generation", 1 + random.nextInt(3));
        return heartbeat;
    }

    private static ObjectNode validFailure(SplittableRandom random) {
        ObjectNode failure = validHeartbeat(random);
        failure.set("reporterRank", failure.remove("rank"));
        failure.put("failedRank", random.nextInt(4));
        failure.put("reason", "fuzz: peer went away");
        return failure;
    }

    private static void mutate(ObjectNode body, SplittableRandom random) {
        List<String> names = new ArrayList<>(body.propertyNames());
        switch (random.nextInt(3)) {
            case 0 -> {
                if (!names.isEmpty()) {
                    body.remove(names.get(random.nextInt(names.size())));
                }
            }
            case 1 -> body.set(random.nextBoolean() ? "extra" + random.nextInt(3) : "ränk\u0000", hostile(random));
            default -> {
                if (!names.isEmpty()) {
                    body.set(names.get(random.nextInt(names.size())), hostile(random));
                }
            }
        }
    }

    /** A value of the wrong type, range or size for whatever field receives it. */
    private static JsonNode hostile(SplittableRandom random) {
        return switch (random.nextInt(20)) {
            case 0 -> NODES.nullNode();
            case 1 -> NODES.booleanNode(random.nextBoolean());
            case 2 -> NODES.stringNode("");
            case 3 -> NODES.stringNode("x".repeat(random.nextInt(200_000)));
            case 4 -> NODES.numberNode(Long.MAX_VALUE);
            case 5 -> NODES.numberNode(Long.MIN_VALUE);
            case 6 -> NODES.numberNode(-1 - random.nextInt(1000));
            case 7 -> NODES.numberNode(0);
            case 8 -> NODES.numberNode(1L << 31);
            case 9 -> NODES.numberNode(1e308);
            case 10 -> NODES.numberNode(1.5);
            case 11 -> NODES.stringNode(random.nextBoolean() ? "NaN" : "-Infinity");
            case 12 -> NODES.numberNode(new java.math.BigInteger("9".repeat(1 + random.nextInt(400))));
            case 13 -> NODES.stringNode("\u202e\ud83d\ude00\u0000\u00ff\ud800 ../\"'<%");
            case 14 -> {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(5); i > 0; i--) {
                    array.add(random.nextInt());
                }
                yield array;
            }
            case 15 -> NODES.objectNode().put("nested", random.nextInt());
            case 16 -> NODES.stringNode(Long.toString(random.nextLong()));
            case 17 -> NODES.numberNode(random.nextInt());
            case 18 -> NODES.stringNode("ring");
            default -> NODES.stringNode("fuzz-" + random.nextInt(50));
        };
    }

    /** Arrays or objects nested beyond what a parser should follow. */
    private static String deepNesting(SplittableRandom random) {
        int depth = 100 + random.nextInt(5000);
        boolean arrays = random.nextBoolean();
        return (arrays ? "[" : "{\"a\":").repeat(depth) + "1" + (arrays ? "]" : "}").repeat(depth);
    }

    private static byte[] gzip(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static String abbreviate(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "... (" + text.length() + " chars)" : text;
    }
}
