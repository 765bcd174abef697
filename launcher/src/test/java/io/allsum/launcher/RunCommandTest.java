package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code allsum run}: what it refuses before anything starts (one line, exit 2), and what each rank is given. */
class RunCommandTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = AllsumCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static RunCommand parse(String... args) {
        CommandLine cl = AllsumCommand.commandLine(System.out, System.err);
        cl.parseArgs(args);
        return cl.getSubcommands().get("run").getCommand();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "run -n 0 -- true                     | allsum: -n must be 1 to 256, was 0",
            "run -n 257 -- true                   | allsum: -n must be 1 to 256, was 257",
            "run -n 2                             | allsum: no program to run: give it after --",
            "run -n 2 --                          | allsum: no program to run: give it after --",
            "run -- true                          | allsum: Missing required option: '--nproc=N'",
            "run -n two -- true                   | allsum: Invalid value for option '--nproc'",
            "run -n 2 --backend auto -- true      | allsum: Invalid value for option '--backend'",
            "run -n 2 --timeout soon -- true      | allsum: Invalid value for option '--timeout'",
            "run -n 2 --timeout 0 -- true         | allsum: --timeout must be positive",
            "run -n 2 --group a/b -- true         | allsum: --group must match",
            "run -n 2 --server ftp://h:1 -- true  | allsum: --server must be http(s)://host[:port]",
            "run -n 2 --token t -- true           | allsum: --token is for --server",
            "run -n 2 -- /no/such/program         | allsum: cannot start /no/such/program: no such file",
            "run -n 2 -- no-such-program-4711     | allsum: cannot start no-such-program-4711: not found on PATH",
    })
    void badInputIsOneLineAndExitTwoBeforeAnythingStarts(String args, String start) {
        Run r = run(args.split(" "));

        assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err().lines()).singleElement().asString().startsWith(start);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aFileThatIsNotExecutableCannotBeStarted(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("train.sh"), "echo hi\n");

        Run r = run("run", "-n", "1", "--", script.toString());

        assertThat(r.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err().lines()).singleElement().asString()
                .isEqualTo("allsum: cannot start " + script + ": not executable");
        assertThat(RunCommand.startProblem("sh", System.getenv("PATH"))).isNull();
        assertThat(RunCommand.startProblem("sh", "")).isEqualTo("not found on PATH");
    }

    @Test
    void theProgramKeepsItsOwnOptionsWithOrWithoutDoubleDash() {
        RunCommand withDash = parse("run", "-n", "3", "--", "java", "-cp", "a.jar", "Main", "-n", "5", "--help");
        RunCommand without = parse("run", "-n", "3", "--backend", "nccl", "java", "-cp", "a.jar", "Main", "-q");

        assertThat(withDash.ranks).isEqualTo(3);
        assertThat(withDash.program).containsExactly("java", "-cp", "a.jar", "Main", "-n", "5", "--help");
        assertThat(withDash.backend).isEqualTo(RunCommand.RunBackend.ring);
        assertThat(withDash.timeout).isEqualTo(Duration.ofHours(1));
        assertThat(withDash.quiet).isFalse();
        assertThat(without.program).containsExactly("java", "-cp", "a.jar", "Main", "-q");
        assertThat(without.backend).isEqualTo(RunCommand.RunBackend.nccl);
    }

    @Test
    void helpNamesTheDefaultsAndTheExitCodes() {
        Run r = run("run", "--help");
        Run top = run("--help");

        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("-n, --nproc=N", "--backend=ring|nccl", "(default ring)",
                "--timeout=DURATION", "(default 1h)", "--server=URL", "--token=TOKEN", "PROGRAM",
                "124", "130", "[rank r]");
        assertThat(top.out()).contains("run", "validate");
    }

    @Test
    void eachRankGetsOurVariablesAndNoneOfAnOuterLaunchers() {
        Map<String, String> env = new HashMap<>(Map.of("RANK", "7", "WORLD_SIZE", "9", "MASTER_ADDR", "head",
                "MASTER_PORT", "29500", "SLURM_PROCID", "7", "SLURM_NTASKS", "9", "ALLSUM_DEVICE", "3",
                "ALLSUM_TOKEN", "theirs", "PATH", "/usr/bin", "ALLSUM_RING_SHARED_MEMORY", "false"));

        RunCommand.rankEnvironment(env, 2, 4, URI.create("http://127.0.0.1:18080"), "g", RunCommand.RunBackend.ring,
                "secret");

        assertThat(env).containsOnlyKeys("ALLSUM_SERVER", "ALLSUM_GROUP", "ALLSUM_RANK", "ALLSUM_WORLD_SIZE",
                        "ALLSUM_BACKEND", "ALLSUM_TOKEN", "LOCAL_RANK", "PATH", "ALLSUM_RING_SHARED_MEMORY")
                .containsEntry("ALLSUM_SERVER", "http://127.0.0.1:18080").containsEntry("ALLSUM_GROUP", "g")
                .containsEntry("ALLSUM_RANK", "2").containsEntry("ALLSUM_WORLD_SIZE", "4")
                .containsEntry("ALLSUM_BACKEND", "ring").containsEntry("LOCAL_RANK", "2")
                .containsEntry("ALLSUM_TOKEN", "secret");

        Map<String, String> noToken = new HashMap<>(Map.of("ALLSUM_TOKEN", "theirs"));
        RunCommand.rankEnvironment(noToken, 0, 1, URI.create("http://h:1"), "g", RunCommand.RunBackend.nccl, null);
        assertThat(noToken).doesNotContainKey("ALLSUM_TOKEN").containsEntry("ALLSUM_BACKEND", "nccl")
                .containsEntry("NCCL_NVLS_ENABLE", "0");
    }

    @Test
    void namesAndFreshGroups() {
        assertThat(RunCommand.who(List.of(1))).isEqualTo("rank 1");
        assertThat(RunCommand.who(List.of(0, 2))).isEqualTo("ranks 0, 2");
        String a = RunCommand.newGroupName();
        assertThat(a).matches("run-[0-9a-f]{8}").isNotEqualTo(RunCommand.newGroupName());
    }
}
