package io.allsum.launcher;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServerProbeTest {

    @Test
    void aDeadlineThatPassedBeforeTheFirstProbeIsATimeoutNotACrash() throws Exception {
        int closedPort = closedPort();
        ServerProbe probe = new ServerProbe(URI.create("http://127.0.0.1:" + closedPort));

        // A deadline already passed must not reach the JDK as a zero request timeout ("Invalid duration: PT0S").
        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ZERO, "--timeout 2 s"), () -> { }))
                .isInstanceOf(LauncherException.class)
                .hasMessageContaining("was not healthy within --timeout 2 s");
    }

    @Test
    void aClosedPortIsReportedAsConnectionRefusedWhenTimeRunsOut() throws Exception {
        int closedPort = closedPort();
        ServerProbe probe = new ServerProbe(URI.create("http://127.0.0.1:" + closedPort));

        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ofMillis(300)), () -> { }))
                .hasMessageContaining("connection refused");
    }

    @Test
    void aLongWaitSaysWhatItWaitsForEveryNoteInterval() throws Exception {
        int closedPort = closedPort();
        ServerProbe probe = new ServerProbe(URI.create("http://127.0.0.1:" + closedPort));
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        Progress progress = new Progress(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8),
                false, false, Duration.ofMillis(200));

        assertThatThrownBy(() -> probe.awaitHealthy(Deadline.in(Duration.ofMillis(900)), () -> { }, progress))
                .hasMessageContaining("connection refused");
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(l -> l.endsWith("waiting for the server at http://127.0.0.1:" + closedPort
                        + "/ to be healthy (last probe: connection refused)")))
                .hasSizeBetween(2, 5);
    }

    /** A loopback port nothing listens on: one the system just handed out and that was closed again. */
    private static int closedPort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
