package io.allsum.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Runs the packaged launcher jar as a real process, as a user would, with a hard deadline against hangs. */
final class LauncherProcess {

    record Result(int exitCode, String stdout, String stderr) {
        List<String> stderrLines() {
            return stderr.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    static Path launcherJar() {
        String jar = System.getProperty("allsum.launcher.jar", "target/allsum-launcher.jar");
        Path path = Path.of(jar);
        assumeTrue(Files.isRegularFile(path), "the launcher jar " + path.toAbsolutePath()
                + " is absent: run this test through `./mvnw verify -pl launcher-it -am` (failsafe runs after package)");
        return path;
    }

    /** Skips the test unless the reactor packaged the server and worker jars that a local run starts. */
    static void assumeReactorJars() {
        Path repo = Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
        for (String jar : List.of("rendezvous-server/target/rendezvous-server.jar", "worker-agent/target/worker-agent.jar")) {
            assumeTrue(Files.isRegularFile(repo.resolve(jar)), repo.resolve(jar)
                    + " is absent: build the reactor (./mvnw verify -pl launcher-it -am packages it first)");
        }
    }

    static Result run(Path workDir, long deadlineSeconds, String... args) throws IOException, InterruptedException {
        return start(workDir, args).await(deadlineSeconds);
    }

    /** As {@link #run(Path, long, String...)}, recording the AOT caches where this build has none yet. */
    static Result runRecordingAot(Path workDir, long deadlineSeconds, String... args)
            throws IOException, InterruptedException {
        return start(workDir, java.util.Map.of("ALLSUM_AOT", "on"), args).await(deadlineSeconds);
    }

    /** Whether this build's server jar has its AOT cache (the launcher records it once per build). */
    static boolean aotReady() {
        return new AotCache(Path.of(System.getProperty("allsum.repo", ".."), "rendezvous-server", "target",
                "rendezvous-server.jar")).ready();
    }

    /** A launcher process started in the background; its output goes to files in its work folder. */
    record Started(Process process, Path stdout, Path stderr, long startNanos, String[] args) {
        String stdoutSoFar() throws IOException {
            return Files.readString(stdout, StandardCharsets.UTF_8);
        }

        Result await(long deadlineSeconds) throws IOException, InterruptedException {
            if (!process.waitFor(deadlineSeconds, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError("allsum " + String.join(" ", args) + " did not exit within "
                        + deadlineSeconds + " s; stderr so far:\n" + Files.readString(stderr));
            }
            return new Result(process.exitValue(), Files.readString(stdout, StandardCharsets.UTF_8),
                    Files.readString(stderr, StandardCharsets.UTF_8));
        }
    }

    static Started start(Path workDir, String... args) throws IOException {
        return start(workDir, java.util.Map.of(), args);
    }

    /** As {@link #start(Path, String...)}, with {@code env} added to the launcher's environment. */
    static Started start(Path workDir, java.util.Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessLayout.currentJava().toString());
        command.add("-jar");
        command.add(launcherJar().toAbsolutePath().toString());
        command.addAll(List.of(args));
        Path out = workDir.resolve("stdout.txt");
        Path err = workDir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        // The test decides the layout: never a distribution that happens to be installed on the machine.
        pb.environment().remove("ALLSUM_HOME");
        pb.environment().remove("ALLSUM_TOKEN");
        // Recording the AOT caches doubles a run: only the main job's IT records them, the others use them once they
        // exist (DistAotCacheIT tests them)
        if (!env.containsKey("ALLSUM_AOT") && !aotReady()) {
            pb.environment().put("ALLSUM_AOT", "off");
        }
        pb.environment().putAll(env);
        long start = System.nanoTime();
        return new Started(pb.start(), out, err, start, args);
    }

    private LauncherProcess() {
    }
}
