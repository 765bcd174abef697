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
    void aTimeoutThatCannotBeMetEndsWithinTwoSecondsOfItNamingTheUsersValue() throws Exception {
        LauncherProcess.Started started = LauncherProcess.start(dir, "--ranks", "1", "--timeout", "3", "-q");
        LauncherProcess.Result r = started.await(120);
        double seconds = (System.nanoTime() - started.startNanos()) / 1e9;

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.FAILED);
        // One clock from the command's start: whichever phase it cut short, the line names --timeout as given.
        assertThat(r.stderrLines()).hasSize(1).first().asString()
                .doesNotContain("PT0S", "IllegalArgumentException")
                .startsWith("allsum: ").contains("within --timeout 3 s");
        // two seconds for stopping the children and the JVM's exit, on a crowded machine
        assertThat(seconds).as("exit after the 3 s deadline").isLessThan(5.0);
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
