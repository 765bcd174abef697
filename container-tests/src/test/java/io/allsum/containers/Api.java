package io.allsum.containers;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The server's public REST API as a user reaches it from outside the containers: JSON over HTTP with the token. */
final class Api {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    Api(String base, String token) {
        this.base = base;
        this.token = token;
    }

    JsonNode group(String group) throws IOException, InterruptedException {
        return send(request("/rendezvous/" + group).GET(), 200);
    }

    JsonNode submit(String group, String specJson) throws IOException, InterruptedException {
        return send(request("/rendezvous/" + group + "/jobs").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(specJson)), 201);
    }

    JsonNode job(String group, String jobId) throws IOException, InterruptedException {
        return send(request("/rendezvous/" + group + "/jobs/" + jobId).GET(), 200);
    }

    /** The job once it has ended (any state but queued and running), polled until the deadline. */
    JsonNode awaitEnded(String group, String jobId, Duration deadline) {
        return await().atMost(deadline).pollInterval(Duration.ofMillis(250))
                .until(() -> job(group, jobId), job -> switch (job.get("state").asString()) {
                    case "queued", "running" -> false;
                    default -> true;
                });
    }

    /** True once the group has formed a generation after {@code generation} and it is complete. */
    boolean formedAfter(String group, long generation) throws IOException, InterruptedException {
        JsonNode view = group(group);
        return view.get("generation").asLong() > generation && view.get("state").asString().equals("complete");
    }

    int status(String path, boolean withToken) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
        if (withToken) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json");
    }

    private JsonNode send(HttpRequest.Builder request, int expected) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != expected) {
            throw new IOException(response.request().method() + " " + response.request().uri() + " answered "
                    + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }
}
