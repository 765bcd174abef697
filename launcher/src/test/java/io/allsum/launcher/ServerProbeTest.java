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

        // A deadline already passed must not reach the JDK as a zero request timeout ("Invalid duration: PT0S").
        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ZERO, "--timeout 2 s"), () -> { }))
                .isInstanceOf(LauncherException.class)
                .hasMessageContaining("was not healthy within --timeout 2 s");
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
