package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A plain JDK HTTP client for the job API, as a worker or a user would call it; every request has a deadline. */
final class JobsHttp {

    private static final Duration REQUEST_DEADLINE = Duration.ofSeconds(90);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final JsonMapper json;

    JobsHttp(int port, JsonMapper json) {
        this.base = "http://127.0.0.1:" + port;
        this.json = json;
    }

    HttpResponse<String> submit(String group, Object spec) {
        return send("POST", "/rendezvous/" + group + "/jobs", spec);
    }

    Job submitOk(String group, Object spec) {
        HttpResponse<String> response = submit(group, spec);
        if (response.statusCode() != 201) {
            throw new AssertionError("submit answered " + response.statusCode() + ": " + response.body());
        }
        return read(response, Job.class);
    }

    HttpResponse<String> list(String group) {
        return send("GET", "/rendezvous/" + group + "/jobs", null);
    }

    List<Job> listOk(String group) {
        return json.readValue(expect(list(group), 200).body(), new TypeReference<List<Job>>() {
        });
    }

    HttpResponse<String> get(String group, String jobId) {
        return send("GET", "/rendezvous/" + group + "/jobs/" + jobId, null);
    }

    Job getOk(String group, String jobId) {
        return read(expect(get(group, jobId), 200), Job.class);
    }

    /** The job long-poll: {@code query} is e.g. "wait=10&state=running&rows=1". */
    HttpResponse<String> watch(String group, String jobId, String query) {
        return send("GET", "/rendezvous/" + group + "/jobs/" + jobId + "?" + query, null);
    }

    Job watchOk(String group, String jobId, String query) {
        return read(expect(watch(group, jobId, query), 200), Job.class);
    }

    HttpResponse<String> cancel(String group, String jobId) {
        return send("DELETE", "/rendezvous/" + group + "/jobs/" + jobId, null);
    }

    HttpResponse<String> next(String group, int rank, String instanceId, long after, int waitSeconds) {
        return send("GET", "/rendezvous/" + group + "/jobs/next?rank=" + rank + "&instanceId=" + instanceId
                + "&after=" + after + "&wait=" + waitSeconds, null);
    }

    Optional<JobAssignment> nextOk(String group, int rank, String instanceId, long after, int waitSeconds) {
        HttpResponse<String> response = next(group, rank, instanceId, after, waitSeconds);
        return switch (response.statusCode()) {
            case 200 -> Optional.of(read(response, JobAssignment.class));
            case 204 -> Optional.empty();
            default -> throw new AssertionError("next answered " + response.statusCode() + ": " + response.body());
        };
    }

    HttpResponse<String> report(String group, String jobId, RankReport report) {
        return send("POST", "/rendezvous/" + group + "/jobs/" + jobId + "/reports", report);
    }

    void reportOk(String group, String jobId, RankReport report) {
        expect(report(group, jobId, report), 204);
    }

    /** A ring group whose ranks all joined: each rank's instance id, and the generation they completed. */
    record FormedGroup(List<String> instances, long generation) {
    }

    /** Joins ranks 0..ranks-1 of a ring group over HTTP, all at once, and waits until the generation completed. */
    FormedGroup formRingGroup(String group, int ranks) throws Exception {
        List<String> instances = new ArrayList<>();
        List<CompletableFuture<GroupView>> joins = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++) {
            String instance = "worker-" + rank + "-" + UUID.randomUUID();
            instances.add(instance);
            JoinRequest join = new JoinRequest(group, rank, ranks, instance, Backend.RING, null,
                    "127.0.0.1:" + (40000 + rank), "localhost", null);
            joins.add(CompletableFuture.supplyAsync(() -> postOk("/rendezvous?wait=30", join, GroupView.class)));
        }
        long generation = 0;
        for (CompletableFuture<GroupView> join : joins) {
            generation = join.get(60, TimeUnit.SECONDS).generation();
        }
        return new FormedGroup(List.copyOf(instances), generation);
    }

    /** POST a JSON body, expecting a 2xx; the answer read as {@code type} (null for Void or an empty body). */
    <T> T postOk(String path, Object body, Class<T> type) {
        HttpResponse<String> response = send("POST", path, body);
        if (response.statusCode() / 100 != 2) {
            throw new AssertionError("POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return type == Void.class || response.body().isEmpty() ? null : json.readValue(response.body(), type);
    }

    /** The ProblemDetail's {@code detail}, from an error answer. */
    String detail(HttpResponse<String> response) {
        JsonNode problem = json.readTree(response.body());
        return problem.path("detail").asString();
    }

    <T> T read(HttpResponse<String> response, Class<T> type) {
        return json.readValue(response.body(), type);
    }

    private HttpResponse<String> expect(HttpResponse<String> response, int status) {
        if (response.statusCode() != status) {
            throw new AssertionError(response.request().method() + " " + response.uri() + " answered "
                    + response.statusCode() + " instead of " + status + ": " + response.body());
        }
        return response;
    }

    private HttpResponse<String> send(String method, String path, Object body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_DEADLINE);
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " " + path + " interrupted", e);
        }
    }
}
