package io.allsum.worker.jobs;

import com.sun.net.httpserver.HttpServer;
import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.client.RetryPolicy;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.worker.jobs.ReportDelivery.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Report delivery against a real HTTP server on a loopback port that answers each report with the next status of
 * a script (the last one repeats), as a server that is restarting, overloaded or has forgotten the job would.
 */
class ReportDeliveryTest {

    private static final RankReport REPORT = new RankReport(1, "instance-1", 3L, true, null,
            List.of(new RankSizeResult(8, 2, 12.5, 0)));
    /** Short pauses and a short deadline; only a broken delivery ever waits the whole test deadline. */
    private static final ReportDelivery.Settings FAST =
            new ReportDelivery.Settings(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(20), 4);

    private final AtomicInteger reportsReceived = new AtomicInteger();
    private final Deque<Integer> script = new ArrayDeque<>();
    private HttpServer server;
    private ReportDelivery delivery;

    @AfterEach
    void stop() {
        if (delivery != null) {
            delivery.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private AllsumClient serverAnswering(Integer... statuses) throws IOException {
        script.addAll(List.of(statuses));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/rendezvous/g/jobs/job-1/reports", exchange -> {
            exchange.getRequestBody().readAllBytes();
            reportsReceived.incrementAndGet();
            int status;
            synchronized (script) {
                status = script.size() > 1 ? script.poll() : script.peek();
            }
            if (status == 204) {
                exchange.sendResponseHeaders(204, -1);
            } else {
                byte[] problem = ("{\"title\":\"scripted\",\"status\":" + status + ",\"detail\":\"scripted " + status
                        + "\"}").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/problem+json");
                exchange.sendResponseHeaders(status, problem.length);
                exchange.getResponseBody().write(problem);
            }
            exchange.close();
        });
        server.start();
        return client(URI.create("http://127.0.0.1:" + server.getAddress().getPort()));
    }

    private static AllsumClient client(URI uri) {
        return HttpAllsumClient.builder(uri).requestTimeout(Duration.ofSeconds(5))
                .retryPolicy(new RetryPolicy(Duration.ofMillis(10), 2.0, Duration.ofMillis(50), Duration.ofMillis(200)))
                .build();
    }

    @Test
    void reportRefusedByAnUnwellServerIsRetriedUntilItIsTaken() throws Exception {
        delivery = new ReportDelivery(serverAnswering(500, 502, 429, 204), FAST);

        Outcome outcome = delivery.deliver("g", "job-1", REPORT).get(30, TimeUnit.SECONDS);

        assertThat(outcome).isEqualTo(Outcome.DELIVERED);
        assertThat(reportsReceived).hasValue(4);
    }

    @Test
    void reportOfAJobTheServerNoLongerKnowsStopsAtOnce() throws Exception {
        delivery = new ReportDelivery(serverAnswering(500, 404), FAST);

        assertThat(delivery.deliver("g", "job-1", REPORT).get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.GONE);
        assertThat(reportsReceived).hasValue(2);
    }

    @Test
    void reportRefusedForGoodIsNotRetried() throws Exception {
        delivery = new ReportDelivery(serverAnswering(409), FAST);

        assertThat(delivery.deliver("g", "job-1", REPORT).get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.REFUSED);
        assertThat(reportsReceived).hasValue(1);
    }

    @Test
    void reportIsRetriedWhileTheServerIsDownAndDeliveredOnceItIsBack() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        delivery = new ReportDelivery(client(URI.create("http://127.0.0.1:" + port)), FAST);

        var outcome = delivery.deliver("g", "job-1", REPORT);
        Thread.sleep(300); // several refused connections
        assertThat(outcome).isNotDone();
        script.add(204);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/rendezvous/g/jobs/job-1/reports", exchange -> {
            exchange.getRequestBody().readAllBytes();
            reportsReceived.incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();

        assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.DELIVERED);
        assertThat(reportsReceived).hasValue(1);
    }

    @Test
    void deliveryGivesUpAtItsDeadline() throws Exception {
        delivery = new ReportDelivery(serverAnswering(503),
                new ReportDelivery.Settings(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(500), 4));

        assertThat(delivery.deliver("g", "job-1", REPORT).get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.GAVE_UP);
        assertThat(reportsReceived.get()).isGreaterThan(1);
    }

    @Test
    void stoppingTheWorkerEndsPendingDeliveries() throws Exception {
        delivery = new ReportDelivery(serverAnswering(500), FAST);
        var outcome = delivery.deliver("g", "job-1", REPORT);

        delivery.close();

        assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.GAVE_UP);
    }
}
