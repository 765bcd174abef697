package io.allsum.containers;

import static org.junit.jupiter.api.Assumptions.abort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * docker/compose.yaml driven through the compose CLI a user runs: the {@code docker compose} plugin when the client
 * has it, else Debian's {@code docker-compose} 1.29 (which reads the same file). Every call has a deadline.
 */
final class ComposeCli {

    record Result(int exitCode, String output) {
    }

    private final List<String> command;
    private final Path file;
    private final String project;
    private final Map<String, String> environment;

    private ComposeCli(List<String> command, Path file, String project, Map<String, String> environment) {
        this.command = command;
        this.file = file;
        this.project = project;
        this.environment = environment;
    }

    static ComposeCli find(Path file, String project, Map<String, String> environment) {
        for (List<String> candidate : List.of(List.of("docker", "compose"), List.of("docker-compose"))) {
            try {
                List<String> version = new ArrayList<>(candidate);
                version.add("version");
                Process p = new ProcessBuilder(version).redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return new ComposeCli(candidate, file, project, environment);
                }
            } catch (IOException | InterruptedException e) {
                // not this one
            }
        }
        abort("no compose CLI: neither `docker compose` nor `docker-compose` runs here");
        return null;
    }

    Result run(Duration deadline, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("-f", file.toString(), "-p", project));
        cmd.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process p = builder.start();
        // Drain while waiting, so a chatty command cannot block on a full pipe.
        var output = new java.io.ByteArrayOutputStream();
        Thread drain = Thread.ofVirtual().start(() -> {
            try {
                p.getInputStream().transferTo(output);
            } catch (IOException e) {
                // the process ended
            }
        });
        if (!p.waitFor(deadline.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            drain.join(5_000);
            throw new IOException(String.join(" ", cmd) + " took longer than " + deadline + ":\n" + output);
        }
        drain.join(5_000);
        return new Result(p.exitValue(), output.toString(StandardCharsets.UTF_8));
    }
}
