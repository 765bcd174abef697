package io.allsum.launcher;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code allsum run} as a user runs it: the launcher jar, a real rendezvous server and real rank processes. Shell
 * ranks, which never join, get --server pointing at a stub that answers the health probe: no server start-up.
 */
class RunCommandIT {

    private static final Pattern PID = Pattern.compile("^\\[rank (\\d+)] pid (\\d+)", Pattern.MULTILINE);

    @TempDir
    Path dir;

    private HttpServer stub;

    @AfterEach
    void stopStub() {
        if (stub != null) {
            stub.stop(0);
        }
    }

    @Test
    void threeCopiesOfALibraryProgramAllReduceThroughTheServerItStarts() throws Exception {
        LauncherProcess.assumeReactorJars();
        String classpath = System.getProperty("java.class.path");
        String aot = LauncherProcess.aotReady() ? "on" : "off"; // as every IT but the main job's
        LauncherProcess.Started started = LauncherProcess.start(dir, Map.of("RANK", "5", "WORLD_SIZE", "9",
                        "ALLSUM_AOT", aot), "run", "-n", "3", "--timeout", "120s", "--",
                ProcessLayout.currentJava().toString(), "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath, SumOfRanks.class.getName());
        LauncherProcess.Result r = started.await(180);
        double seconds = (System.nanoTime() - started.startNanos()) / 1e9;

        assertThat(r.exitCode()).as("stdout:%n%s%nstderr:%n%s", r.stdout(), r.stderr()).isZero();
        assertThat(r.stdout().lines().toList()).containsExactlyInAnyOrder("[rank 0] sum 6", "[rank 1] sum 6",
                "[rank 2] sum 6");
        assertThat(r.stderrLines()).contains("[rank 0] rank 0 of 3 (ring) done", "[rank 1] rank 1 of 3 (ring) done",
                "[rank 2] rank 2 of 3 (ring) done");
        assertThat(r.stderrLines()).allSatisfy(line -> assertThat(line).matches("(\\[rank [0-2]] |allsum: ).*"));
        Matcher up = Pattern.compile("server up in \\S+ s at (\\S+) \\(its log: (\\S+)\\)").matcher(r.stderr());
        assertThat(up.find()).as("stderr:%n%s", r.stderr()).isTrue();
        assertThat(new ServerProbe(URI.create(up.group(1))).problem(Duration.ofSeconds(2))).as("server stopped")
                .isNotNull();
        assertThat(Path.of(up.group(2))).doesNotExist();
        System.out.printf("RunCommandIT: 3 library ranks through a local server (AOT cache %s) in %.1f s%n", aot,
                seconds);
    }

    @Test
    void aFailingRankEndsTheRunWithItsCodeNamingItAndTheOthersAreStopped() throws Exception {
        URI server = startStub();
        String script = "echo \"pid $$ $ALLSUM_SERVER $ALLSUM_GROUP $ALLSUM_RANK/$ALLSUM_WORLD_SIZE"
                + " $ALLSUM_BACKEND $LOCAL_RANK $ALLSUM_TOKEN"
                + " ${RANK-none} ${WORLD_SIZE-none} ${MASTER_ADDR-none} ${SLURM_PROCID-none}\";"
                + " echo \"to stderr\" >&2;"
                + " if [ \"$ALLSUM_RANK\" = 1 ]; then sleep 0.5; exit 3; fi; exec sleep 60";

        LauncherProcess.Started started = LauncherProcess.start(dir, Map.of("RANK", "7", "WORLD_SIZE", "9",
                        "MASTER_ADDR", "head", "SLURM_PROCID", "7"),
                "run", "-q", "-n", "3", "--server", server.toString(), "--group", "fail-it", "--token", "tok", "--",
                "bash", "-c", script);
        LauncherProcess.Result r = started.await(60);
        double seconds = (System.nanoTime() - started.startNanos()) / 1e9;

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(3);
        assertThat(r.stderrLines().stream().filter(l -> l.startsWith("allsum: ")).toList())
                .containsExactly("allsum: rank 1 exited with code 3; stopping ranks 0, 2");
        assertThat(r.stderrLines()).contains("[rank 0] to stderr", "[rank 1] to stderr", "[rank 2] to stderr");
        for (int rank = 0; rank < 3; rank++) {
            assertThat(r.stdout()).containsPattern("\\[rank " + rank + "] pid \\d+ " + Pattern.quote(server.toString())
                    + " fail-it " + rank + "/3 ring " + rank + " tok none none none none\\n");
        }
        assertThat(pids(r.stdout())).hasSize(3).noneMatch(RunCommandIT::alive);
        assertThat(seconds).as("rank 1 fails after 0.5 s; the others stop on SIGTERM").isLessThan(10);
    }

    @Test
    void theTimeoutNamesTheRanksStillRunningStopsThemAndExits124() throws Exception {
        URI server = startStub();

        // 10 s: the launcher JVM's start and its probe of the server fit inside it on a busy 2-core machine
        LauncherProcess.Started started = LauncherProcess.start(dir, "run", "-n", "2", "--server", server.toString(),
                "--timeout", "10s", "--", "bash", "-c",
                "echo pid $$; if [ \"$ALLSUM_RANK\" = 0 ]; then exit 0; fi; exec sleep 60");
        LauncherProcess.Result r = started.await(60);
        double seconds = (System.nanoTime() - started.startNanos()) / 1e9;

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.TIMED_OUT);
        assertThat(r.stderrLines()).last().asString()
                .isEqualTo("allsum: --timeout 10 s passed with rank 1 still running; stopping them");
        assertThat(pids(r.stdout())).hasSize(2).noneMatch(RunCommandIT::alive);
        assertThat(seconds).as("the deadline counts from the launcher's start").isBetween(9.5, 16.0);
    }

    @Test
    void sigintStopsEveryRankAndExits130() throws Exception {
        URI server = startStub();
        LauncherProcess.Started started = LauncherProcess.start(dir, "run", "-n", "2", "--server", server.toString(),
                "--", "bash", "-c", "echo pid $$; exec sleep 60");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pids(started.stdoutSoFar()).size() < 2) {
            assertThat(started.process().isAlive()).as("still running; stdout:%n%s", started.stdoutSoFar()).isTrue();
            assertThat(System.nanoTime()).as("both ranks within 30 s").isLessThan(until);
            Thread.sleep(50);
        }
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(started.process().pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();

        LauncherProcess.Result r = started.await(30);

        assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(r.stderrLines()).last().asString().isEqualTo("allsum: interrupted");
        assertThat(pids(r.stdout())).as("no orphans").hasSize(2).noneMatch(RunCommandIT::alive);
    }

    private URI startStub() throws IOException {
        stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stub.createContext("/actuator/health", exchange -> {
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        stub.start();
        return URI.create("http://127.0.0.1:" + stub.getAddress().getPort());
    }

    private static List<Long> pids(String stdout) {
        List<Long> out = new ArrayList<>();
        Matcher m = PID.matcher(stdout);
        while (m.find()) {
            out.add(Long.parseLong(m.group(2)));
        }
        return out;
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
