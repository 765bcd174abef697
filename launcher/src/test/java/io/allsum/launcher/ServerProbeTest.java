package io.allsum.launcher;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServerProbeTest {

    @Test
    void aDeadlineThatPassedBeforeTheFirstProbeIsATimeoutNotACrash() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        ServerProbe probe = new ServerProbe(URI.create("http://127.0.0.1:" + closedPort));

        // --timeout 2 with a slow start used to end in "IllegalArgumentException: Invalid duration: PT0S".
        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ZERO), () -> { }))
                .isInstanceOf(LauncherException.class)
                .hasMessageContaining("was not healthy within")
                .hasMessageContaining("--timeout");
    }

    @Test
    void aClosedPortIsReportedAsConnectionRefusedWhenTimeRunsOut() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        ServerProbe probe = new ServerProbe(URI.create("http://127.0.0.1:" + closedPort));

        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ofMillis(300)), () -> { }))
                .hasMessageContaining("connection refused");
    }
}
