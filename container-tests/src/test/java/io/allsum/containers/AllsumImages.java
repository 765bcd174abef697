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
 * in the local store (CI makes it with {@code docker/local-bases.sh}); without it the tests are skipped with that
 * reason, and a failing image build fails them.
 */
final class AllsumImages {

    static final String SERVER = "allsum/rendezvous-server:latest";
    static final String WORKER = "allsum/worker:cpu";
    static final String BASE = "debian:bookworm-slim";
    private static final Duration BUILD_DEADLINE = Duration.ofMinutes(10);

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
