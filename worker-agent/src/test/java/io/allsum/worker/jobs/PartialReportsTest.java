package io.allsum.worker.jobs;

import com.sun.net.httpserver.HttpServer;
import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumJson;
import io.allsum.client.HttpAllsumClient;
import io.allsum.client.RetryPolicy;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Partial reports go out from their own thread, newest snapshot only, and never hold up the sweep. */
class PartialReportsTest {

    private final List<RankReport> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstArrived = new CountDownLatch(1);
    private final CountDownLatch releaseFirst = new CountDownLatch(1);
    private HttpServer server;
    private AllsumClient client;

    /** A server whose first report is held until {@link #releaseFirst}; each is taken with 204. */
    private AllsumClient slowServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/rendezvous/g/jobs/job-1/reports", exchange -> {
            RankReport report = AllsumJson.mapper().readValue(exchange.getRequestBody().readAllBytes(), RankReport.class);
            boolean first = received.isEmpty();
            received.add(report);
            if (first) {
                firstArrived.countDown();
                try {
                    releaseFirst.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
        client = HttpAllsumClient.builder(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .requestTimeout(Duration.ofSeconds(30))
                .retryPolicy(new RetryPolicy(Duration.ofMillis(10), 2.0, Duration.ofMillis(50), Duration.ofMillis(200)))
                .build();
        return client;
    }

    @AfterEach
    void stop() {
        releaseFirst.countDown();
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private static RankSizeResult size(long bytes) {
        return new RankSizeResult(bytes, bytes / 4, 1.5, 0);
    }

    @Test
    void sizesThatCompleteWhileAReportIsOnItsWaySendOnlyTheNewestSnapshot() throws Exception {
        PartialReports progress = new PartialReports(slowServer(), "g", "job-1", 3, "inst-3", 7);

        progress.sizeCompleted(0, 6, size(8));
        assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();
        long start = System.nanoTime();
        for (int i = 1; i < 5; i++) {
            progress.sizeCompleted(i, 6, size(8L << i));
        }
        long listenerMillis = (System.nanoTime() - start) / 1_000_000;
        releaseFirst.countDown();
        awaitReports(2);
        progress.sizeCompleted(5, 6, size(256));
        Thread.sleep(300);
        progress.close();

        assertThat(listenerMillis).as("the sweep does not wait for the held report").isLessThan(1000);
        assertThat(received).hasSize(2);
        assertThat(received.getFirst()).satisfies(r -> {
            assertThat(r.isPartial()).isTrue();
            assertThat(r.rank()).isEqualTo(3);
            assertThat(r.instanceId()).isEqualTo("inst-3");
            assertThat(r.generation()).isEqualTo(7);
            assertThat(r.succeeded()).isTrue();
            assertThat(r.results()).extracting(RankSizeResult::bytes).containsExactly(8L);
        });
        assertThat(received.get(1).results()).as("sizes 1..3 coalesced into the newest snapshot")
                .extracting(RankSizeResult::bytes).containsExactly(8L, 16L, 32L, 64L, 128L);
        assertThat(progress.measured()).hasSize(6).as("the last size sends none: the final report follows");
    }

    @Test
    void sweepRunsToItsEndWhileTheServerHoldsTheFirstReportAndCloseDoesNotWait() throws Exception {
        PartialReports progress = new PartialReports(slowServer(), "g", "job-1", 0, "inst-0", 1);
        JobSpec spec = AllsumJson.mapper().convertValue(Map.of("minBytes", 8, "maxBytes", 1024, "stepFactor", 2,
                "iterations", 2, "warmupIterations", 0), JobSpec.class);

        // Once the first size's report is on its way (and held), the other sizes run.
        ProgressListener firstReportHeld = new ProgressListener() {
            @Override
            public void sizeCompleted(int index, int total, RankSizeResult result) {
                progress.sizeCompleted(index, total, result);
                if (index == 0) {
                    try {
                        assertThat(firstArrived.await(10, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
        };

        List<RankSizeResult> results = Ranks.onEveryRank(1,
                comm -> new CollectiveJobRunner().run(comm, spec, firstReportHeld, () -> false)).getFirst();
        long start = System.nanoTime();
        progress.close();
        long closeMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(results).hasSize(8);
        assertThat(progress.measured()).isEqualTo(results);
        assertThat(closeMillis).isLessThan(1000);
        releaseFirst.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!progress.senderEnded() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(progress.senderEnded()).as("closed: the snapshot still waiting is dropped").isTrue();
        assertThat(received).hasSize(1);
    }

    private void awaitReports(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }
}
