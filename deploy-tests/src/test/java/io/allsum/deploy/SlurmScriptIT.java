package io.allsum.deploy;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/slurm/allsum.sbatch end to end on one machine: the real server, worker and launcher jars behind a
 * distribution-shaped ALLSUM_HOME, and fake {@code srun}/{@code scontrol} that do what Slurm's do for one node
 * (srun starts SLURM_NTASKS copies of its command with SLURM_PROCID and SLURM_LOCALID set). The workers get no rank,
 * world size or device other than Slurm's variables, form a ring group, and the script's sweep must pass.
 */
class SlurmScriptIT {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SERVER_JAR = ROOT.resolve("rendezvous-server/target/rendezvous-server.jar");
    static final Path WORKER_JAR = ROOT.resolve("worker-agent/target/worker-agent.jar");
    static final Path LAUNCHER_JAR = ROOT.resolve("launcher/target/allsum-launcher.jar");
    static final String JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss512k -Xmx192m"
            + " --enable-native-access=ALL-UNNAMED";

    @TempDir
    Path dir;

    private void script(Path path, String body) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, "#!/usr/bin/env bash\n" + body);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void sbatchScriptFormsAGroupFromSlurmVariablesAndItsSweepPasses() throws Exception {
        for (Path jar : List.of(SERVER_JAR, WORKER_JAR, LAUNCHER_JAR)) {
            Assumptions.assumeTrue(Files.isRegularFile(jar), jar + " is absent: build the modules first");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        Path home = dir.resolve("allsum");
        script(home.resolve("bin/allsum-server"), "exec " + java + " " + JVM + " -jar " + SERVER_JAR + " \"$@\"\n");
        script(home.resolve("bin/allsum-worker"), "exec " + java + " " + JVM + " -jar " + WORKER_JAR + " \"$@\"\n");
        script(home.resolve("bin/allsum"), "exec " + java + " " + JVM + " -jar " + LAUNCHER_JAR + " \"$@\"\n");
        Files.copy(ROOT.resolve("packaging/dist/bin/allsum-health"), home.resolve("bin/allsum-health"));

        Path fake = dir.resolve("slurm-bin");
        Path pids = dir.resolve("task-pids.txt");
        script(fake.resolve("scontrol"), "[[ \"$1 $2\" == \"show hostnames\" ]] && echo localhost\n");
        // One node: task i is SLURM_PROCID=i, SLURM_LOCALID=i. Killing srun ends its tasks, as Slurm's does.
        script(fake.resolve("srun"), """
                echo "srun $*" >> "%s.args"
                while [[ "$1" == --* ]]; do shift; done
                trap 'kill $(jobs -p) 2>/dev/null; wait; exit 143' TERM
                for ((i = 0; i < SLURM_NTASKS; i++)); do
                  SLURM_PROCID=$i SLURM_LOCALID=$i SLURM_NODEID=0 "$@" &
                  echo $! >> "%s"
                done
                wait
                """.formatted(pids, pids));

        Path log = dir.resolve("job.out");
        ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("deploy/slurm/allsum.sbatch").toString(),
                "-b", "8", "-e", "64K", "-f", "8").redirectErrorStream(true).redirectOutput(log.toFile())
                .directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("ALLSUM_") || k.equals("RANK")
                || k.equals("WORLD_SIZE") || k.equals("LOCAL_RANK") || k.startsWith("MLX_"));
        env.put("PATH", fake + ":" + System.getenv("PATH"));
        env.putAll(Map.of("SLURM_JOB_ID", "4242", "SLURM_JOB_NODELIST", "localhost", "SLURM_NTASKS", "2",
                "SLURM_JOB_NUM_NODES", "1", "ALLSUM_HOME", home.toString(), "ALLSUM_PORT",
                String.valueOf(freePort()), "ALLSUM_WORKER_PORT_BASE", "0", "ALLSUM_BACKEND", "ring",
                "ALLSUM_SWEEP_TIMEOUT", "180"));
        Process job = pb.start();
        try {
            assertThat(job.waitFor(240, TimeUnit.SECONDS)).as("the batch script finished:\n%s", read(log)).isTrue();
            String out = read(log);
            assertThat(job.exitValue()).as(out).isZero();
            assertThat(out).contains("group slurm-4242, 2 workers on 1 nodes")
                    .contains("# Out of bounds values : 0 OK")
                    .contains("sweep exit status 0");
            assertThat(read(Path.of(pids + ".args"))).contains("--kill-on-bad-exit=0");
            // Every rank came from SLURM_PROCID: the workers were told nothing else.
            assertThat(out).contains("Rank 0 READY in generation 1 of group 'slurm-4242' (2 ranks, ring)")
                    .contains("Rank 1 READY in generation 1 of group 'slurm-4242' (2 ranks, ring)");
        } finally {
            job.destroyForcibly();
            job.waitFor(10, TimeUnit.SECONDS);
        }
        // The script stops what it started: the worker tasks are gone shortly after it exits.
        for (String pid : Files.exists(pids) ? Files.readAllLines(pids) : List.<String>of()) {
            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(p -> {
                boolean ended = p.onExit().completeOnTimeout(null, 30, TimeUnit.SECONDS).join() != null
                        || !p.isAlive();
                if (!ended) {
                    p.destroyForcibly();
                }
                assertThat(ended).as("worker task %s ended with the script", pid).isTrue();
            });
        }
    }

    private static int freePort() throws IOException {
        try (var s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
