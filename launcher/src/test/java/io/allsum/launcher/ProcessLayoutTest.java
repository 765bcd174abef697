package io.allsum.launcher;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessLayoutTest {

    @TempDir
    Path root;

    private Path touch(String relative) throws Exception {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        return Files.writeString(p, "");
    }

    @Test
    void repositoryNcclWorkersReadTheNcclFlagsAfterTheWorkerFlags() throws Exception {
        touch("rendezvous-server/target/rendezvous-server.jar");
        touch("worker-agent/target/worker-agent.jar");
        Path worker = touch("packaging/jvm/worker.jvmargs");
        Path nccl = touch("packaging/jvm/worker-nccl.jvmargs");

        ProcessLayout layout = ProcessLayout.resolve(null, root, Path.of("/opt/java/bin/java"));

        assertThat(layout.worker(Backend.NCCL).jvm())
                .containsExactly("/opt/java/bin/java", "@" + worker, "@" + nccl);
        assertThat(layout.worker(Backend.RING).jvm()).containsExactly("/opt/java/bin/java", "@" + worker);
        assertThat(layout.worker(Backend.NCCL).main()).isEqualTo(layout.worker(Backend.RING).main());
    }

    @Test
    void anOldCheckoutWithoutTheNcclFileStillStartsNcclWorkers() throws Exception {
        touch("rendezvous-server/target/rendezvous-server.jar");
        touch("worker-agent/target/worker-agent.jar");
        Path worker = touch("packaging/jvm/worker.jvmargs");

        ProcessLayout layout = ProcessLayout.resolve(null, root, Path.of("java"));

        assertThat(layout.worker(Backend.NCCL).jvm()).containsExactly("java", "@" + worker);
    }

    @Test
    void theDistributionsWorkerScriptPicksItsOwnFlags() throws Exception {
        for (String script : new String[] {"bin/allsum-server", "bin/allsum-worker"}) {
            Files.setPosixFilePermissions(touch(script), PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        ProcessLayout layout = ProcessLayout.resolve(root.toString(), null, Path.of("java"));

        assertThat(layout.worker(Backend.NCCL)).isEqualTo(layout.worker(Backend.RING));
        assertThat(layout.worker(Backend.NCCL).jvm()).containsExactly(root.resolve("bin/allsum-worker").toString());
    }
}
