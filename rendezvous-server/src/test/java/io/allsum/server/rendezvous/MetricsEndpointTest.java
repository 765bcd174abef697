package io.allsum.server.rendezvous;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

@RendezvousServerTest
class MetricsEndpointTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @Test
    void prometheusShowsJoinsCompletionDeliveryAndGaugesButNeverTheId() {
        RendezvousHttp http = new RendezvousHttp(port);
        String id = newUniqueId();
        double deliveredBefore = meters.get("allsum.rendezvous.delivery").timer().count();
        assertThat(http.join(nccl("metered", 0, 2, "w0", id), 0).statusCode()).isEqualTo(202);
        CompletableFuture<HttpResponse<String>> waiting = http.joinAsync(nccl("metered", 0, 2, "w0", id), 30);
        RendezvousHttp.await("the parked join", Duration.ofSeconds(20),
                () -> meters.get("allsum.rendezvous.joins.waiting").gauge().value() >= 1);
        assertThat(http.join(nccl("metered", 1, 2, "w1", null), 30).statusCode()).isEqualTo(200);
        assertThat(waiting.join().statusCode()).isEqualTo(200);
        http.join(ring("metered", 0, 3, "w0"), 0); // 409: worldSize differs
        RendezvousHttp.await("both answers delivered", Duration.ofSeconds(20),
                () -> meters.get("allsum.rendezvous.delivery").timer().count() > deliveredBefore);

        String scrape = http.get("/actuator/prometheus").body();

        assertThat(scrape)
                .contains("allsum_rendezvous_joins_total{outcome=\"complete\"}")
                .contains("allsum_rendezvous_joins_total{outcome=\"pending\"}")
                .contains("allsum_rendezvous_joins_total{outcome=\"conflict\"}")
                .contains("allsum_rendezvous_completion_seconds_count")
                .contains("allsum_rendezvous_delivery_seconds_count")
                .contains("allsum_rendezvous_groups_active")
                .contains("allsum_rendezvous_joins_waiting")
                .contains("allsum_rendezvous_generations_failed_total{cause=\"heartbeat_timeout\"}")
                .doesNotContain(id)
                .doesNotContain("metered");
        assertThat(meters.get("allsum.rendezvous.joins").tag("outcome", "conflict").counter().count())
                .isGreaterThanOrEqualTo(1);
    }
}
