package io.allsum.server.jobs;

import io.allsum.model.ProtocolJson;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.server.RendezvousServerApplication;
import io.allsum.server.rendezvous.RendezvousHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real server whose data directory is a 2 MB tmpfs: the disk is filled, submissions are answered 503 and health
 * is DOWN; the space is freed, and within seconds submissions succeed again and health is UP, without a restart.
 * Mounting needs root (CI runs as root); elsewhere the test is skipped, saying so.
 */
class JobStoreDiskFullTest {

    private static final Duration RECOVERY = Duration.ofSeconds(5);

    @TempDir
    Path mountPoint;

    private boolean mounted;
    private ConfigurableApplicationContext server;

    @BeforeEach
    void mountSmallFilesystem() throws Exception {
        String failure = run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint.toString());
        Assumptions.assumeTrue(failure == null, () -> "needs a small filesystem for the data directory (mount -t tmpfs,"
                + " as root): " + failure);
        mounted = true;
    }

    @AfterEach
    void stopAndUnmount() throws Exception {
        if (server != null) {
            server.close();
        }
        if (mounted) {
            assertThat(run("umount", mountPoint.toString())).isNull();
        }
    }

    @Test
    void aFullDiskAnswers503AndHealthDownThenBothRecoverOnceSpaceIsFreed() throws Exception {
        server = new SpringApplicationBuilder(RendezvousServerApplication.class).run("--server.port=0",
                "--server.address=127.0.0.1", "--spring.main.banner-mode=off", "--spring.datasource.url=",
                "--allsum.data-dir=" + mountPoint, "--allsum.rendezvous.heartbeat-timeout=300s");
        int port = Integer.parseInt(server.getEnvironment().getRequiredProperty("local.server.port"));
        JobsHttp jobs = new JobsHttp(port, ProtocolJson.mapper());
        RendezvousHttp http = new RendezvousHttp(port);
        String group = "disk-" + UUID.randomUUID().toString().substring(0, 8);
        jobs.formRingGroup(group, 2);
        Job before = jobs.submitOk(group, JobSpec.allSum(8));
        assertThat(http.get("/actuator/health").statusCode()).isEqualTo(200);

        Path filler = fill(mountPoint.resolve("filler"));
        HttpResponse<String> refused = submitUntilRefused(jobs, group);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(RendezvousHttp.json(refused).path("code").asString()).isEqualTo("service-unavailable");
        HttpResponse<String> down = http.get("/actuator/health");
        assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
        assertThat(down.body()).contains("DOWN");

        Files.delete(filler);
        long freed = System.nanoTime();
        HttpResponse<String> accepted = jobs.submit(group, JobSpec.allSum(8));
        while (accepted.statusCode() != 201 && System.nanoTime() - freed < RECOVERY.toNanos()) {
            Thread.sleep(100);
            accepted = jobs.submit(group, JobSpec.allSum(8));
        }
        assertThat(accepted.statusCode()).as("a submission %s after the space was freed: %s",
                Duration.ofNanos(System.nanoTime() - freed), accepted.body()).isEqualTo(201);
        HttpResponse<String> up = http.get("/actuator/health");
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        assertThat(jobs.listOk(group)).extracting(Job::jobId).contains(before.jobId(),
                jobs.read(accepted, Job.class).jobId());
    }

    /** Submits until one is refused: the database file may hold free pages that take the first writes. */
    private static HttpResponse<String> submitUntilRefused(JobsHttp jobs, String group) {
        HttpResponse<String> response = jobs.submit(group, JobSpec.allSum(8));
        for (int i = 0; i < 200 && response.statusCode() == 201; i++) {
            response = jobs.submit(group, JobSpec.allSum(8));
        }
        return response;
    }

    /** Writes the file until the filesystem has no byte left. */
    private static Path fill(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int block : new int[]{64 * 1024, 4096, 1}) {
                byte[] bytes = new byte[block];
                try {
                    while (true) {
                        out.write(bytes);
                        out.flush();
                    }
                } catch (IOException full) {
                    // the next, smaller block takes what is left
                }
            }
        } catch (IOException closingFull) {
            // closing flushes nothing more: every write went straight to the file
        }
        return file;
    }

    /** Runs the command; null when it succeeded, else what it said. */
    private static String run(String... command) throws Exception {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return String.join(" ", command) + " did not end within 30 s";
        }
        String output = new String(process.getInputStream().readAllBytes()).strip();
        return process.exitValue() == 0 ? null : String.join(" ", command) + ": exit " + process.exitValue() + " "
                + output;
    }
}
