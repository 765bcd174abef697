package io.allsum.server.dashboard;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.Backend;
import io.allsum.server.rendezvous.RendezvousHttp;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The ranks of a group as the server sees them, over real HTTP: each joins (long-poll), heartbeats every second,
 * long-polls for jobs and reports a timing per size. No collective runs: the times follow a bandwidth curve that
 * climbs to {@code peakGBps} (rank 1 a little slower), so that the page has a recognisable plot to draw. A validation
 * job gets figures alone and per pair near {@code peakGBps}, a fifth of it for a {@link #slowRank} and its pairs, and
 * for a {@link #slowLink}.
 */
final class HttpRanks implements AutoCloseable {

    private final RendezvousHttp http;
    private final String group;
    private final int worldSize;
    private final double peakGBps;
    private final List<String> instances = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    /** Paced ranks report each size after this pause, as partial reports, and the final one once released. */
    private long sizeMillis = -1;
    private final CountDownLatch finish = new CountDownLatch(1);
    private int slowRank = -1;
    private List<Integer> slowLink = List.of();

    HttpRanks(RendezvousHttp http, String group, int worldSize, double peakGBps) {
        this.http = http;
        this.group = group;
        this.worldSize = worldSize;
        this.peakGBps = peakGBps;
        for (int rank = 0; rank < worldSize; rank++) {
            instances.add("browser-it-" + rank + "-" + UUID.randomUUID());
        }
    }

    /**
     * From now on every rank measures one size per {@code millis}, reporting each as progress (a partial report),
     * and sends its final report only after {@link #finishJobs()}.
     */
    HttpRanks paced(long millis) {
        this.sizeMillis = millis;
        return this;
    }

    int worldSize() {
        return worldSize;
    }

    /** Validation figures of {@code rank}, alone and with every peer, are a fifth of the others'. */
    HttpRanks slowRank(int rank) {
        this.slowRank = rank;
        return this;
    }

    /** The validation figure of the pair {@code a}-{@code b} is a fifth of the others'. */
    HttpRanks slowLink(int a, int b) {
        this.slowLink = List.of(a, b);
        return this;
    }

    /** Paced ranks send their final reports. */
    void finishJobs() {
        finish.countDown();
    }

    /** Rank {@code rank} joins; the future completes when the generation does. */
    CompletableFuture<GroupView> join(int rank) {
        return CompletableFuture.supplyAsync(() -> {
            JoinRequest request = new JoinRequest(group, rank, worldSize, instances.get(rank), Backend.RING, null,
                    "127.0.0.1:" + (42000 + rank), "node-" + rank / 2, "cpu:" + rank % 2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() - deadline < 0 && !stopped) {
                HttpResponse<String> answer = http.join(request, 5);
                if (answer.statusCode() == 200) {
                    return RendezvousHttp.read(answer, GroupView.class);
                }
                if (answer.statusCode() != 202) {
                    throw new IllegalStateException("join of rank " + rank + ": " + answer.statusCode() + " " + answer.body());
                }
            }
            throw new IllegalStateException("rank " + rank + " of " + group + " did not complete its join in time");
        }, runnable -> Thread.ofVirtual().start(runnable));
    }

    /** Every rank heartbeats and runs the group's jobs until {@link #close()}. */
    void serve(long generation) {
        for (int rank = 0; rank < worldSize; rank++) {
            int r = rank;
            threads.add(Thread.ofVirtual().name("rank-" + r).start(() -> serveRank(r, generation)));
        }
    }

    private void serveRank(int rank, long generation) {
        String instance = instances.get(rank);
        Thread heartbeat = Thread.ofVirtual().start(() -> {
            while (!stopped) {
                http.post("/rendezvous/" + group + "/heartbeat", new HeartbeatRequest(rank, instance, generation));
                sleep(1000);
            }
        });
        long after = 0;
        while (!stopped) {
            HttpResponse<String> next = http.get("/rendezvous/" + group + "/jobs/next?rank=" + rank + "&instanceId="
                    + instance + "&after=" + after + "&wait=2");
            if (next.statusCode() != 200) {
                if (next.statusCode() != 204) {
                    sleep(200); // the group is going away; close() ends the loop
                }
                continue;
            }
            JobAssignment job = RendezvousHttp.read(next, JobAssignment.class);
            after = job.seq();
            List<RankSizeResult> results = job.spec().sizes(worldSize).stream()
                    .map(bytes -> new RankSizeResult(bytes, bytes / job.spec().dtype().bytes(), micros(bytes, rank), 0))
                    .toList();
            String reports = "/rendezvous/" + group + "/jobs/" + job.jobId() + "/reports";
            RankValidation validation = null;
            if (job.spec().validates()) {
                validation = validation(rank, job.spec().validation().withDefaults().pairBytes());
                // Alone, then the pairs, as partial reports: the page shows each phase as it comes.
                for (RankValidation phase : List.of(new RankValidation(validation.host(), validation.device(),
                        validation.soloGBps(), List.of(), null), validation)) {
                    http.post(reports, new RankReport(rank, instance, generation, true, null, List.of(), true, phase));
                    sleep(Math.max(sizeMillis, 0));
                }
            } else if (sizeMillis >= 0) {
                for (int done = 1; done < results.size() && !stopped; done++) {
                    sleep(sizeMillis);
                    http.post(reports, new RankReport(rank, instance, generation, true, null,
                            results.subList(0, done), true, null));
                }
            }
            if (sizeMillis >= 0) {
                awaitQuietly(finish);
            }
            http.post(reports, new RankReport(rank, instance, generation, true, null, results, null, validation));
        }
        heartbeat.interrupt();
    }

    /** Near {@code peakGBps} (a little spread, as real figures have), a fifth of it for the slow rank and link. */
    private RankValidation validation(int rank, long pairBytes) {
        List<RankValidation.PairMeasurement> pairs = new ArrayList<>();
        for (int peer = 0; peer < worldSize; peer++) {
            if (peer != rank) {
                boolean slow = rank == slowRank || peer == slowRank
                        || slowLink.contains(rank) && slowLink.contains(peer);
                double spread = 1 - 0.02 * ((rank + peer) % 4);
                pairs.add(new RankValidation.PairMeasurement(peer, pairBytes, peakGBps * spread * (slow ? 0.2 : 1),
                        slow ? 90.0 : 18.0 + rank + peer));
            }
        }
        double solo = 4 * peakGBps * (1 - 0.01 * rank) * (rank == slowRank ? 0.2 : 1);
        return new RankValidation("node-" + rank / 2, "cpu:" + rank % 2, solo, pairs, 0.5 + 0.1 * rank);
    }

    /** A latency floor plus a bandwidth that saturates above 1 MiB, as a network link's curve does. */
    private double micros(long bytes, int rank) {
        double gbps = peakGBps * (1 - Math.exp(-bytes / (double) (1 << 20))) * (rank == 1 ? 0.95 : 1.0);
        return 8.0 + bytes / (gbps * 1e3);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(120, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        finish.countDown();
        for (Thread thread : threads) {
            thread.join(Duration.ofSeconds(10));
        }
        http.delete("/rendezvous/" + group);
    }
}
