package io.allsum.server.rendezvous;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A server that takes only small groups still warms up: its warm-up groups are as large as it accepts. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "allsum.rendezvous.warm-up-joins=40", "allsum.rendezvous.max-world-size=4"})
class JoinPathWarmupSmallWorldTest {

    @Autowired
    JoinPathWarmup warmup;

    @Test
    void warmsUpInGroupsNoLargerThanTheMaxWorldSize() {
        RendezvousHttp.await("the warm-up", Duration.ofSeconds(60), () -> warmup.result() != null);

        assertThat(warmup.result().failure()).isNull();
        assertThat(warmup.result().joins()).isEqualTo(40); // 10 groups of 4
    }
}
