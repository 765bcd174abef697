package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.GroupView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting joins are servlet async requests. With room for only 8 requests in flight at once and connections idle
 * after 1 s, a join that held a thread while it waited would stall the ninth join, and one parked past the idle
 * timeout would lose its connection: neither may happen.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"server.jetty.threads.max=8", "server.jetty.connection-idle-timeout=1s"})
class ParkedJoinsTest {

    @LocalServerPort
    int port;

    @Autowired
    RendezvousRegistry registry;

    RendezvousHttp http;

    @BeforeEach
    void client() {
        http = new RendezvousHttp(port);
    }

    @Test
    void farMoreWaitingJoinsThanRequestThreadsAllParkAndComplete() {
        int waiting = 200;
        String id = newUniqueId();
        List<CompletableFuture<HttpResponse<String>>> joins = IntStream.range(1, waiting + 1)
                .mapToObj(rank -> http.joinAsync(nccl("crowd", rank, waiting + 1, "w" + rank, null), 60))
                .toList();
        RendezvousHttp.await(waiting + " parked joins", Duration.ofSeconds(30),
                () -> registry.parkedJoins("crowd") == waiting);

        HttpResponse<String> last = http.join(nccl("crowd", 0, waiting + 1, "w0", id), 30);

        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(joins).allSatisfy(join -> {
            HttpResponse<String> answer = join.join();
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(read(answer, GroupView.class).uniqueId()).isEqualTo(id);
        });
    }

    @Test
    void aJoinParkedLongerThanTheIdleTimeoutStillGetsItsAnswer() throws InterruptedException {
        String id = newUniqueId();
        CompletableFuture<HttpResponse<String>> first = http.joinAsync(nccl("patient", 1, 2, "w1", null), 30);
        RendezvousHttp.await("the join to park", Duration.ofSeconds(10), () -> registry.parkedJoins("patient") == 1);
        Thread.sleep(3000); // three idle timeouts

        HttpResponse<String> last = http.join(nccl("patient", 0, 2, "w0", id), 30);

        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(first.join().statusCode()).isEqualTo(200);
        assertThat(read(first.join(), GroupView.class).uniqueId()).isEqualTo(id);
    }

    @Test
    void aWaitThatRunsOutIsAnswered202FromTheParkedRequest() {
        HttpResponse<String> answer = http.join(nccl("alone", 1, 2, "w1", null), 1);

        assertThat(answer.statusCode()).isEqualTo(202);
        assertThat(answer.headers().firstValue("Retry-After")).isPresent();
        assertThat(RendezvousHttp.json(answer).get("missingRanks").get(0).asInt()).isZero();
    }
}
