package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

/** Real-HTTP test client for the rendezvous server: JDK HttpClient over HTTP/1.1, JSON by hand or from records. */
public final class RendezvousHttp {

    public static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String token;

    public RendezvousHttp(int port) {
        this(port, null);
    }

    public RendezvousHttp(int port, String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    public HttpResponse<String> join(JoinRequest request, int waitSeconds) {
        return post("/rendezvous?wait=" + waitSeconds, JSON.writeValueAsString(request));
    }

    public CompletableFuture<HttpResponse<String>> joinAsync(JoinRequest request, int waitSeconds) {
        return client.sendAsync(builder("/rendezvous?wait=" + waitSeconds)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> post(String path, String json) {
        return send(builder(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    public HttpResponse<String> post(String path, Object body) {
        return post(path, JSON.writeValueAsString(body));
    }

    public HttpResponse<String> get(String path) {
        return send(builder(path).GET().build());
    }

    public HttpResponse<String> delete(String path) {
        return send(builder(path).DELETE().build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException("request " + request + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + request, e);
        }
    }

    public HttpRequest.Builder builder(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT);
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    public static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    public static <T> T read(HttpResponse<String> response, Class<T> type) {
        return JSON.readValue(response.body(), type);
    }

    public static String newUniqueId() {
        byte[] id = new byte[128];
        ThreadLocalRandom.current().nextBytes(id);
        return Base64.getEncoder().encodeToString(id);
    }

    public static JoinRequest nccl(String group, int rank, int worldSize, String instanceId, String uniqueId) {
        return new JoinRequest(group, rank, worldSize, instanceId, Backend.NCCL, rank == 0 ? uniqueId : null, null,
                "host-" + rank, "GPU-" + rank);
    }

    public static JoinRequest ring(String group, int rank, int worldSize, String instanceId) {
        return new JoinRequest(group, rank, worldSize, instanceId, Backend.RING, null, "127.0.0.1:" + (20000 + rank),
                null, null);
    }

    /** A join request as a mutable map, for bodies that break one rule. */
    public static Map<String, Object> joinBody(JoinRequest request) {
        @SuppressWarnings("unchecked")
        Map<String, Object> map = JSON.convertValue(request, Map.class);
        return new java.util.LinkedHashMap<>(map);
    }

    /** Polls until {@code condition} holds; fails after {@code deadline}. Only waits, never asserts on time. */
    public static void await(String what, Duration deadline, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out after " + deadline + " waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }
}
