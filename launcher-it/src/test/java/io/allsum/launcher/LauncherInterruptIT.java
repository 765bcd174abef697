package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Ctrl-C in a local run, as a real SIGINT to the launcher process: interrupted, exit 130, the rows kept. */
class LauncherInterruptIT {

    @TempDir
    Path dir;

    @Test
    void sigintAfterTheFirstRowsEndsAsInterruptedWithTheRowsMeasured() throws Exception {
        // 1000 iterations per size up to 64 MiB on CPU ranks: minutes of sweep, the first rows within seconds.
        LauncherProcess.Started started = LauncherProcess.start(dir, "--backend", "ring", "--ranks", "2",
                "-b", "8", "-e", "64M", "-n", "1000", "-w", "0", "--timeout", "400");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (dataRows(started.stdoutSoFar()) < 3) {
            assertThat(started.process().isAlive()).as("still running; stdout:%n%s", started.stdoutSoFar()).isTrue();
            assertThat(System.nanoTime()).as("3 rows within 300 s").isLessThan(until);
            Thread.sleep(100);
        }
        int rowsBefore = dataRows(started.stdoutSoFar());
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(started.process().pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();

        LauncherProcess.Result r = started.await(60);

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(r.stderrLines()).last().asString().isEqualTo("allsum: interrupted");
        assertThat(r.stderr()).doesNotContain("exited with code", "could not leave", "failed", "Exception");
        assertThat(dataRows(r.stdout())).isGreaterThanOrEqualTo(rowsBefore);
        assertThat(r.stdout()).doesNotContain("FAILED").contains("# Out of bounds values : 0 OK")
                .containsPattern("# Avg bus bandwidth    : [0-9.]+");
    }

    private static int dataRows(String stdout) {
        return (int) stdout.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
    }
}
