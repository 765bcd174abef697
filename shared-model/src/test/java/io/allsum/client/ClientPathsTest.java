package io.allsum.client;

import io.allsum.model.Protocol;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientPathsTest {

    @Test
    void pathSegmentsArePercentEncoded() {
        assertThat(ClientPaths.encode("a-b_c.d~9")).isEqualTo("a-b_c.d~9");
        assertThat(ClientPaths.encode("x/y z")).isEqualTo("x%2Fy%20z");
        assertThat(ClientPaths.encode("é")).isEqualTo("%C3%A9");
    }

    @Test
    void templatesTakeEncodedGroupAndJob() {
        assertThat(ClientPaths.job(Protocol.JOB_PATH, "g 1", "j/2")).isEqualTo("/rendezvous/g%201/jobs/j%2F2");
    }

    @Test
    void queriesEncodeTheirValuesAndLeaveOutNullOnes() {
        assertThat(ClientPaths.query("/p", "wait", 30L, "view", null, "instanceId", "w 1&x", "after", -1))
                .isEqualTo("/p?wait=30&instanceId=w%201%26x&after=-1");
        assertThat(ClientPaths.query("/p", "view", null)).isEqualTo("/p");
        assertThat(ClientPaths.query("/p")).isEqualTo("/p");
        assertThat(ClientPaths.stripQuery("/p?wait=30&rows=2")).isEqualTo("/p");
        assertThatThrownBy(() -> ClientPaths.query("/p", "wait")).hasMessageContaining("pairs");
    }
}
