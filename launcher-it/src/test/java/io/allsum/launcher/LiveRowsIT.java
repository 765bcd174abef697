package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows appear on stdout as they are measured: a local sweep whose last size is slow prints its first row while the
 * job still runs (before the footer, with the process alive), then the rest and the footer.
 */
class LiveRowsIT {

    @TempDir
    Path dir;

    @Test
    void localRunPrintsTheFirstRowWhileTheSlowLastSizeStillRuns() throws Exception {
        LauncherProcess.assumeReactorJars();
        // Two sizes: 1 KiB (fast) and 16 MiB, 20 iterations of which take a second or more on the ring backend.
        LauncherProcess.Started run = LauncherProcess.start(dir, "--backend", "ring", "--ranks", "2",
                "-b", "1K", "-e", "16M", "-f", "16384", "-n", "20", "-w", "1", "--timeout", "300");

        String firstSeen = null;
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (run.process().isAlive() && System.nanoTime() < deadline) {
            String out = run.stdoutSoFar();
            if (dataRows(out).size() >= 1) {
                firstSeen = out;
                break;
            }
            Thread.sleep(20);
        }
        boolean aliveAtFirstRow = run.process().isAlive();
        LauncherProcess.Result r = run.await(300);

        assertThat(r.exitCode()).as("exit code; stderr:%n%s", r.stderr()).isZero();
        assertThat(firstSeen).as("a row appeared while the launcher ran; stdout:%n%s", r.stdout()).isNotNull();
        assertThat(aliveAtFirstRow).isTrue();
        assertThat(dataRows(firstSeen)).as("only the fast size so far").hasSize(1);
        assertThat(firstSeen).contains("# allsum ").doesNotContain("# Avg bus bandwidth");
        assertThat(dataRows(r.stdout())).extracting(cols -> cols[0]).containsExactly("1024", "16777216");
        assertThat(r.stdout()).contains("# Out of bounds values : 0 OK", "# Avg bus bandwidth");
    }

    /** The table's rows among the complete lines of {@code stdout}. */
    private static List<String[]> dataRows(String stdout) {
        return stdout.substring(0, stdout.lastIndexOf('\n') + 1).lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.strip().split("\\s+")).filter(cols -> cols.length == 9).toList();
    }
}
