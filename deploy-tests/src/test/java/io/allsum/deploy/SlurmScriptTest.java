package io.allsum.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/slurm/allsum.sbatch without Slurm: its functions are sourced and run with the variables srun would set,
 * against a fake distribution whose bin/ scripts record their arguments and environment.
 */
class SlurmScriptTest {

    static final Path SCRIPT = Path.of("..", "deploy", "slurm", "allsum.sbatch").toAbsolutePath().normalize();

    @TempDir
    Path home;

    record Run(int exitCode, String output, List<String> recorded) {
        String recordedValue(String name) {
            return recorded.stream().filter(l -> l.startsWith(name + "=")).map(l -> l.substring(name.length() + 1))
                    .findFirst().orElse(null);
        }
    }

    /** A bin/NAME that writes "ARGS ..." and its ALLSUM_/SLURM_ environment to record.txt, then exits 0. */
    private void fakeBinary(String name) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path script = bin.resolve(name);
        Files.writeString(script, """
                #!/usr/bin/env bash
                { echo "ARGS=$*"; env | grep -E '^(ALLSUM|SLURM|CUDA)_' | sort; } > "$(dirname "$0")/../record.txt"
                """);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private Run run(String function, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "ALLSUM_SBATCH_LIB=1 source \"$0\"; " + function, SCRIPT.toString()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("ALLSUM_")
                || k.startsWith("CUDA_"));
        pb.environment().put("ALLSUM_HOME", home.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s finished", function).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Path record = home.resolve("record.txt");
        List<String> recorded = Files.exists(record) ? Files.readAllLines(record) : List.of();
        return new Run(p.exitValue(), out, recorded);
    }

    @Test
    void workerTaskPassesSlurmsRankWorldSizeAndLocalIdToTheWorkerAndPointsItAtTheFirstNode() throws Exception {
        fakeBinary("allsum-worker");
        Run r = run("allsum_worker_task", Map.of("SLURM_PROCID", "5", "SLURM_NTASKS", "8", "SLURM_LOCALID", "1",
                "ALLSUM_SERVER_HOST", "node001", "CUDA_VISIBLE_DEVICES", "0,1,2,3"));
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.recordedValue("ARGS")).isEqualTo("--server.port=8182");
        assertThat(r.recordedValue("ALLSUM_SERVER")).isEqualTo("http://node001:8080");
        assertThat(r.recordedValue("SLURM_PROCID")).isEqualTo("5");
        assertThat(r.recordedValue("SLURM_NTASKS")).isEqualTo("8");
        assertThat(r.recordedValue("SLURM_LOCALID")).isEqualTo("1");
        // The worker maps the SLURM_* variables itself; nothing here may override them.
        assertThat(r.recordedValue("ALLSUM_RANK")).isNull();
        assertThat(r.recordedValue("ALLSUM_WORLD_SIZE")).isNull();
        assertThat(r.recordedValue("ALLSUM_DEVICE")).as("all GPUs visible: SLURM_LOCALID picks").isNull();
    }

    @Test
    void workerTaskWithOneBoundGpuUsesDeviceZero() throws Exception {
        fakeBinary("allsum-worker");
        Run r = run("allsum_worker_task", Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "4", "SLURM_LOCALID", "3",
                "ALLSUM_SERVER_HOST", "10.0.0.1", "ALLSUM_PORT", "9000", "CUDA_VISIBLE_DEVICES", "3"));
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.recordedValue("ALLSUM_DEVICE")).isEqualTo("0");
        assertThat(r.recordedValue("ALLSUM_SERVER")).isEqualTo("http://10.0.0.1:9000");
        assertThat(r.recordedValue("ARGS")).isEqualTo("--server.port=8184");
    }

    @Test
    void workerTaskOutsideAnSrunStepFailsNamingIt() throws Exception {
        fakeBinary("allsum-worker");
        Run r = run("allsum_worker_task", Map.of("ALLSUM_SERVER_HOST", "node001"));
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.output()).contains("not inside an srun step");
        assertThat(r.recorded()).isEmpty();
    }

    @Test
    void firstHostIsTheFirstNameScontrolExpandsFromTheNodeList() throws Exception {
        // A fake scontrol on the PATH, as Slurm's would expand "gpu[007-008]".
        Path bin = Files.createDirectories(home.resolve("fakebin"));
        Path scontrol = bin.resolve("scontrol");
        Files.writeString(scontrol, """
                #!/usr/bin/env bash
                [[ "$*" == "show hostnames gpu[007-008]" ]] && printf 'gpu007\\ngpu008\\n'
                """);
        Files.setPosixFilePermissions(scontrol, PosixFilePermissions.fromString("rwxr-xr-x"));
        Run r = run("allsum_first_host", Map.of("SLURM_JOB_NODELIST", "gpu[007-008]",
                "PATH", bin + ":" + System.getenv("PATH")));
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output().strip()).isEqualTo("gpu007");
    }

    @Test
    void mainRefusesAnIncompleteDistributionWithExitTwo() throws Exception {
        fakeBinary("allsum-worker");
        Run r = run("allsum_main", Map.of("SLURM_JOB_ID", "42", "ALLSUM_SERVER_HOST", "node001",
                "SLURM_NTASKS", "2"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.output()).contains("bin/allsum-server is missing");
    }

    @Test
    void sbatchHeaderAsksForOneTaskPerGpu() throws IOException {
        List<String> directives = Arrays.stream(Files.readString(SCRIPT).split("\n"))
                .filter(l -> l.startsWith("#SBATCH")).toList();
        String perNode = directives.stream().filter(l -> l.contains("--ntasks-per-node=")).findFirst().orElseThrow();
        String gpus = directives.stream().filter(l -> l.contains("--gpus-per-node=")).findFirst().orElseThrow();
        assertThat(perNode.substring(perNode.indexOf('=') + 1)).isEqualTo(gpus.substring(gpus.indexOf('=') + 1));
    }
}
