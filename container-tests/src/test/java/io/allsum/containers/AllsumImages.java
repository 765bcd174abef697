package io.allsum.containers;

import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.testcontainers.DockerClientFactory;

/**
 * The images under test, built once per test JVM by {@code docker/build-images.sh cpu} from the jars this build just
 * made, so that the containers run the code of this checkout. Tests never pull: the public base image must already be
 * in the local store (CI makes it with {@code docker/local-bases.sh}, beside the build: the first test waits for
 * it); without it the tests are skipped with that reason, and a failing image build fails them.
 */
final class AllsumImages {

    static final String SERVER = "allsum/rendezvous-server:latest";
    static final String WORKER = "allsum/worker:cpu";
    static final String BASE = "debian:bookworm-slim";
    private static final Duration BUILD_DEADLINE = Duration.ofMinutes(10);
    private static final Duration BASES_DEADLINE = Duration.ofMinutes(5);

    private static boolean built;

    private AllsumImages() {
    }

    static Path repo() {
        return Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
    }

    static synchronized void ensureBuilt() throws IOException, InterruptedException {
        if (built) {
            return;
        }
        awaitLocalBases();
        if (!imagePresent(BASE)) {
            abort("base image " + BASE + " is not in the local image store and tests never pull; make it with "
                    + "docker/local-bases.sh (CI does) or `docker pull " + BASE + "` by hand");
        }
        Path log = repo().resolve("container-tests/target/build-images.log");
        Files.createDirectories(log.getParent());
        Process build = new ProcessBuilder("bash", "docker/build-images.sh", "cpu").directory(repo().toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!build.waitFor(BUILD_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            build.destroyForcibly();
            throw new IllegalStateException("docker/build-images.sh took longer than " + BUILD_DEADLINE + "; see " + log);
        }
        if (build.exitValue() != 0) {
            throw new IllegalStateException("docker/build-images.sh failed (exit " + build.exitValue() + "):\n"
                    + tail(log));
        }
        built = true;
    }

    /** CI makes the base image beside the build: docker/local-bases.sh holds this lock (flock) while it works. */
    private static void awaitLocalBases() throws IOException, InterruptedException {
        Path lock = Path.of(System.getenv().getOrDefault("ALLSUM_BASES_LOCK", "/tmp/allsum-local-bases.lock"));
        if (!Files.exists(lock) || flock(lock, "-n") != 1) {
            return; // no run of it, free, or no flock here
        }
        System.out.println("containers: waiting up to " + BASES_DEADLINE.toMinutes() + " min for docker/local-bases.sh "
                + "to make " + BASE + " (it holds " + lock + ")");
        if (flock(lock, "-w", Long.toString(BASES_DEADLINE.toSeconds())) != 0) {
            throw new IllegalStateException("docker/local-bases.sh still held " + lock + " after " + BASES_DEADLINE);
        }
    }

    /** {@code flock OPTIONS LOCK true}: 0 once the lock was free or freed, 1 when it was not, -1 without flock. */
    private static int flock(Path lock, String... options) throws InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("flock"));
        command.addAll(List.of(options));
        command.addAll(List.of(lock.toString(), "true"));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(BASES_DEADLINE.toSeconds() + 10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return 1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        }
    }

    static boolean imagePresent(String image) {
        try {
            DockerClientFactory.instance().client().inspectImageCmd(image).exec();
            return true;
        } catch (com.github.dockerjava.api.exception.NotFoundException e) {
            return false;
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
