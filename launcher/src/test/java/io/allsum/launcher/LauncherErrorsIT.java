package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The launcher as a real process: wrong input ends at once with one line and the right exit code. */
class LauncherErrorsIT {

    @TempDir
    Path dir;

    @Test
    void badOptionExitsTwoWithOneLine() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(dir, 60, "--no-such-option");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderrLines()).hasSize(1).first().asString()
                .startsWith("allsum: ").contains("--no-such-option");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void aTimeoutShorterThanTheStartUpIsATimeoutLineNotACrash() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(dir, 120, "--ranks", "1", "--timeout", "2", "-q");

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.FAILED);
        // Most often the local server is not up within 2 s; with the AOT caches a first ./allsum run records it can
        // be (0.9 s), and then the group's forming or the job runs out of the same deadline. Whichever phase it is:
        // one timeout line naming it, not a crash.
        assertThat(r.stderrLines()).hasSize(1).first().asString()
                .doesNotContain("PT0S", "IllegalArgumentException")
                .satisfiesAnyOf(
                        line -> assertThat(line).startsWith("allsum: the server at http://127.0.0.1:")
                                .contains("was not healthy within", "--timeout"),
                        line -> assertThat(line).startsWith("allsum: group 'local' was not complete in time"),
                        line -> assertThat(line).startsWith("allsum: job ").contains("did not finish in time"));
    }

    @Test
    void anUnsupportedCombinationIsRefusedBeforeAnythingStarts() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(dir, 60, "-d", "half", "-o", "max", "--collective", "all_gather");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.stderrLines()).hasSize(1).first().asString().startsWith("allsum: -o/--op: is only meaningful for");
        assertThat(r.stdout()).isEmpty();
    }

    @Test
    void closedServerPortGivesOneLineErrorAndNonZeroExit() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }

        LauncherProcess.Result r = LauncherProcess.run(dir, 60, "--server", "http://127.0.0.1:" + closedPort,
                "--group", "g", "-b", "8", "-e", "8");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(r.stderrLines()).hasSize(1).first().asString()
                .startsWith("allsum: cannot reach the allsum server at http://127.0.0.1:" + closedPort)
                .contains("connection refused");
        assertThat(r.stdout()).isEmpty();
    }
}
