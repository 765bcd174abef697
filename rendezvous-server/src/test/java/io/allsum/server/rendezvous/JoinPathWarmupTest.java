package io.allsum.server.rendezvous;

import io.allsum.server.web.ProblemException;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import java.time.Duration;

import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The warm-up runs real joins through a private copy of the join path, and none of it shows on the real server. */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "allsum.rendezvous.warm-up-joins=320", "allsum.security.token=warm-up-test-token"})
@Import(EventLog.class)
class JoinPathWarmupTest {

    @Autowired
    JoinPathWarmup warmup;

    @Autowired
    RendezvousRegistry registry;

    @Autowired
    MeterRegistry meters;

    @Autowired
    EventLog events;

    @LocalServerPort
    int port;

    @Test
    void warmsUpWithRealJoinsThatTheRealServerNeverShows(CapturedOutput output) {
        RendezvousHttp.await("the warm-up", Duration.ofSeconds(60), () -> warmup.result() != null);

        JoinPathWarmup.Result result = warmup.result();
        assertThat(result.failure()).isNull();
        assertThat(result.joins()).isEqualTo(320); // 10 groups of 32 ranks, each answered complete
        for (int round = 0; round < 10; round++) {
            String group = "warm-up-" + round;
            assertThatThrownBy(() -> registry.status(group)).isInstanceOf(ProblemException.class);
        }
        assertThat(meters.get("allsum.rendezvous.joins").counters())
                .allSatisfy(counter -> assertThat(counter.count()).isZero());
        assertThat(meters.get("allsum.rendezvous.delivery").timer().count()).isZero();
        assertThat(events.completed()).isEmpty();
        assertThat(output.getOut()).contains("join path warmed: 320 joins").doesNotContain("group warm-up-");

        // The real server's join path, warmed, answers as before (with the token the warm-up also used).
        RendezvousHttp http = new RendezvousHttp(port, "warm-up-test-token");

        assertThat(http.join(nccl("after-warm-up", 0, 1, "w0", newUniqueId()), 5).statusCode()).isEqualTo(200);
        assertThat(registry.status("after-warm-up").worldSize()).isEqualTo(1);
    }
}
