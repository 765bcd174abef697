package io.allsum.launcher;

import io.allsum.client.ServerUrl;
import io.allsum.model.Protocol;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code allsum run -n N -- PROGRAM ARGS...}, torchrun for library programs: a local server ({@link
 * LocalCluster#startServer}) or --server's, N copies with the variables {@code Allsum.init()} reads, their lines
 * relayed ({@link RankProcesses}); the first failing rank's code ends the run.
 */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs N copies of a program of the allsum library, one per rank, like torchrun.",
                "%nIt starts a rendezvous server on 127.0.0.1 (or uses the one at --server), gives copy r "
                + "ALLSUM_SERVER, ALLSUM_GROUP, ALLSUM_RANK=r, ALLSUM_WORLD_SIZE=N, ALLSUM_BACKEND, ALLSUM_TOKEN and "
                + "LOCAL_RANK=r (and drops inherited RANK, WORLD_SIZE, SLURM_*, MASTER_ADDR), and prints each "
                + "line a copy writes, on the same stream, after '[rank r] '. When a rank exits with a non-zero "
                + "code, the others are stopped (SIGTERM, a kill after " + RunCommand.GRACE_SECONDS + " s)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every rank exited with 0",
                "N:the first rank that failed exited with N; the others were stopped",
                "1:the rendezvous server did not start, could not be reached, or exited",
                "2:wrong options, or the program cannot be started",
                "124:--timeout passed; the ranks still running were named and stopped",
                "130:interrupted (Ctrl-C); the ranks and the server were stopped"},
        footer = {"%nExample:%n  allsum run -n 4 -- java -cp \"$CP\" com.example.Train 200%n"
                + "More: docs/library.md (examples/README.md: the sgd example under allsum run)"})
public final class RunCommand implements Callable<Integer> {

    /** More copies than this on one machine is a typo rather than a plan. */
    static final int MAX_RANKS = 256;
    static final int GRACE_SECONDS = 5;
    /** How long the ranks get after SIGTERM; it fits in the launcher's own {@link AllsumCommand#INTERRUPT_GRACE}. */
    static final Duration GRACE = Duration.ofSeconds(GRACE_SECONDS);
    /** How long an exited rank's last lines may take to arrive (a child it left may hold its pipe open). */
    static final Duration OUTPUT_DRAIN = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(200);

    /**
     * What a rank must not inherit from a launcher above this one: its rank, size, device and rendezvous, which
     * {@code Allsum.init()} reads after ours (or a program reads itself), and a token that is not this server's.
     */
    static final List<String> NOT_INHERITED = List.of("RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
            "MASTER_PORT", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "MLX_RANK", "MLX_WORLD_SIZE",
            "JOB_COMPLETION_INDEX", "ALLSUM_DEVICE", "ALLSUM_TOKEN", LocalCluster.LOCAL_RANKS);

    /** --backend values: the ranks' ALLSUM_BACKEND. */
    public enum RunBackend { ring, nccl }

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--nproc"}, paramLabel = "N", required = true,
            description = "Copies of the program to start, one per rank: 1 to " + MAX_RANKS + ".")
    int ranks;

    @Option(names = "--backend", paramLabel = "ring|nccl", defaultValue = "ring",
            description = "The ranks' communicator, ALLSUM_BACKEND; with nccl, rank r takes GPU LOCAL_RANK=r "
                    + "(default ${DEFAULT-VALUE}).")
    RunBackend backend;

    @Option(names = "--group", paramLabel = "NAME",
            description = "The ranks' group (default: a new name for each run, run-XXXXXXXX).")
    String group;

    @Mixin
    ServerOptions remote;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "1h", converter = DurationConverter.class,
            description = "Deadline of the whole run, e.g. 90s, 30m, 2h: then the ranks still running are named and "
                    + "stopped, exit 124 (default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = {"-q", "--quiet"}, description = "No progress lines of the launcher on stderr (the ranks' lines "
            + "and errors still come).")
    boolean quiet;

    @Parameters(paramLabel = "PROGRAM", arity = "0..*",
            description = "The program and its arguments, after -- (what follows the first word is the program's).")
    List<String> program = new ArrayList<>();

    @Override
    public Integer call() {
        checkOptions();
        String problem = startProblem(program.getFirst(), System.getenv("PATH"));
        if (problem != null) {
            throw new LauncherException(ExitCodes.USAGE, "cannot start " + program.getFirst() + ": " + problem, null);
        }
        Deadline deadline = Deadline.sinceProcessStart(timeout, "--timeout " + DurationConverter.describe(timeout));
        Progress progress = Progress.toStderr(quiet);
        String groupName = group != null ? group : newGroupName();
        LocalCluster cluster = null;
        int exit = ExitCodes.FAILED;
        // The log folder of a server that died is kept.
        boolean serverDied = false;
        try {
            URI serverUri;
            String rankToken;
            if (remote.server != null) {
                String unreachable = new ServerProbe(remote.server)
                        .problem(deadline.remainingAtMost(Duration.ofSeconds(5)));
                if (unreachable != null && deadline.passed()) {
                    throw new LauncherException(ExitCodes.TIMED_OUT, deadline.label() + " passed before the allsum "
                            + "server at " + remote.server + " answered", null);
                }
                if (unreachable != null) {
                    throw new LauncherException("cannot reach the allsum server at " + remote.server + " ("
                            + unreachable + ")");
                }
                serverUri = remote.server;
                rankToken = remote.token;
            } else {
                cluster = startServer(groupName, deadline, progress);
                serverUri = cluster.serverUri();
                rankToken = cluster.token();
            }
            progress.event("starting " + ranks + " " + (ranks == 1 ? "rank" : "ranks") + " of group '" + groupName
                    + "' (" + backend + "): " + program.getFirst());
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try (RankProcesses started = RankProcesses.start(program, ranks, (env, rank) -> rankEnvironment(env,
                    rank, ranks, serverUri, groupName, backend, rankToken), out, err, GRACE)) {
                Awaited awaited = await(started, cluster, deadline, err);
                exit = awaited.exitCode();
                serverDied = awaited.serverDied();
                return exit;
            }
        } finally {
            if (cluster != null) {
                boolean succeeded = exit == ExitCodes.OK;
                if (succeeded && cluster.recordsAotCaches()) {
                    progress.event("stopping; the server writes its AOT cache (once per build)");
                }
                // After a success the server is killed at once (its groups die with it) unless it records a cache.
                cluster.close((succeeded ? LocalCluster.Stop.quick() : LocalCluster.Stop.graceful(GRACE))
                        .deletingLogs(!serverDied));
            }
        }
    }

    private void checkOptions() {
        List<String> problems = new ArrayList<>();
        if (ranks < 1 || ranks > MAX_RANKS) {
            problems.add("-n must be 1 to " + MAX_RANKS + ", was " + ranks);
        }
        if (program.isEmpty()) {
            problems.add("no program to run: give it after --, e.g. allsum run -n 2 -- java -cp app.jar Main");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            problems.add("--timeout must be positive");
        }
        if (group != null && !Protocol.GROUP_NAME.matcher(group).matches()) {
            problems.add("--group must match " + Protocol.GROUP_NAME.pattern());
        }
        if (remote.server != null) {
            String problem = ServerUrl.problem(remote.server);
            if (problem != null) {
                problems.add("--server " + problem);
            }
        } else if (spec.commandLine().getParseResult().hasMatchedOption("--token")) {
            problems.add("--token is for --server; the server this command starts has a random token");
        }
        if (!problems.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", problems));
        }
    }

    /**
     * Why {@code program} cannot be started, or null: a path must be an executable file, a bare name must be one on
     * {@code path} (where the JDK looks for it), so that a typo fails before a server starts.
     */
    static String startProblem(String program, String path) {
        if (program.contains("/")) {
            Path file = Path.of(program);
            return !Files.isRegularFile(file) ? "no such file" : !Files.isExecutable(file) ? "not executable" : null;
        }
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            Path file = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(file) && Files.isExecutable(file)) {
                return null;
            }
        }
        return "not found on PATH";
    }

    private LocalCluster startServer(String groupName, Deadline deadline, Progress progress) {
        ProcessLayout layout = ProcessLayout.resolve(System.getenv("ALLSUM_HOME"), ProcessLayout.findRepoRoot(),
                ProcessLayout.currentJava());
        progress.event("starting the rendezvous server (" + layout.description() + ")");
        LocalCluster cluster = LocalCluster.startServer(layout, groupName,
                LocalCluster.Options.forCommand(deadline, progress::event));
        if (cluster.recordsAotCaches()) {
            progress.event("first run after a build: the server records its AOT cache for the next runs");
        }
        try {
            new ServerProbe(cluster.serverUri()).awaitHealthy(deadline, () -> {
                checkInterrupted();
                cluster.checkAlive();
            }, progress);
        } catch (LauncherException e) {
            cluster.close(LocalCluster.Stop.graceful(deadline.remainingAtMost(GRACE)));
            throw deadline.passed() && e.exitCode() == ExitCodes.FAILED
                    ? new LauncherException(ExitCodes.TIMED_OUT, e.getMessage(), e) : e;
        } catch (RuntimeException e) {
            cluster.close(LocalCluster.Stop.graceful(deadline.remainingAtMost(GRACE)));
            throw e;
        }
        progress.event(String.format(Locale.ROOT, "server up in %.1f s at %s (its log: %s)",
                progress.elapsedSeconds(), cluster.serverUri(), cluster.server().log()));
        return cluster;
    }

    /** How the ranks ended: the run's exit code, and whether the server died under them. */
    private record Awaited(int exitCode, boolean serverDied) {
    }

    /** Until every rank exited with 0 (0), one failed (its code), the server died (1) or the deadline passed (124). */
    private Awaited await(RankProcesses started, LocalCluster cluster, Deadline deadline, PrintWriter err) {
        while (true) {
            checkInterrupted(started);
            RankProcesses.Exit exit = started.nextExit(deadline.remainingAtMost(POLL));
            checkInterrupted(started);
            if (exit != null && exit.code() != 0) {
                started.awaitOutput(exit.rank(), OUTPUT_DRAIN);
                return new Awaited(stop(started, err, exit.code(), "rank " + exit.rank() + " exited with code "
                        + exit.code() + stopping(started.running())), false);
            }
            if (started.allExitsTaken()) {
                started.awaitOutput(OUTPUT_DRAIN);
                return new Awaited(ExitCodes.OK, false);
            }
            if (exit != null) {
                continue;
            }
            if (cluster != null && !cluster.server().process().isAlive()) {
                String died = "the rendezvous server exited";
                try {
                    cluster.checkAlive();
                } catch (LauncherException e) {
                    died = AllsumCommand.oneLine(e.getMessage());
                }
                return new Awaited(stop(started, err, ExitCodes.FAILED, died + stopping(started.running())), true);
            }
            if (deadline.passed()) {
                return new Awaited(stop(started, err, ExitCodes.TIMED_OUT, deadline.label() + " passed with "
                        + who(started.running()) + " still running; stopping them"), false);
            }
        }
    }

    /** Says {@code why} on one line, then stops the ranks still running and returns {@code code}. */
    private static int stop(RankProcesses started, PrintWriter err, int code, String why) {
        err.println("allsum: " + why);
        started.close();
        return code;
    }

    private static String stopping(List<Integer> running) {
        return running.isEmpty() ? "" : "; stopping " + who(running);
    }

    private static void checkInterrupted(RankProcesses started) {
        if (started.shuttingDown()) {
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", null);
        }
        checkInterrupted();
    }

    private static void checkInterrupted() {
        if (AllsumCommand.INTERRUPTED.get()) {
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", null);
        }
    }

    /** "rank 2" or "ranks 0, 1, 3". */
    static String who(List<Integer> ranks) {
        return (ranks.size() == 1 ? "rank " : "ranks ")
                + ranks.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    /** Rank {@code rank}'s variables, over what it inherits. */
    static void rankEnvironment(Map<String, String> env, int rank, int worldSize, URI server, String group,
                                RunBackend backend, String token) {
        NOT_INHERITED.forEach(env::remove);
        env.put("ALLSUM_SERVER", server.toString());
        env.put("ALLSUM_GROUP", group);
        env.put("ALLSUM_RANK", Integer.toString(rank));
        env.put("ALLSUM_WORLD_SIZE", Integer.toString(worldSize));
        env.put("ALLSUM_BACKEND", backend.name());
        env.put("LOCAL_RANK", Integer.toString(rank));
        if (token != null && !token.isBlank()) {
            env.put("ALLSUM_TOKEN", token);
        }
        if (backend == RunBackend.nccl) {
            // As the launcher's own NCCL workers: NVLink SHARP needs multicast objects that shared hosts do not grant.
            env.putIfAbsent("NCCL_NVLS_ENABLE", "0");
        }
    }

    static String newGroupName() {
        byte[] bytes = new byte[4];
        new SecureRandom().nextBytes(bytes);
        return "run-" + HexFormat.of().formatHex(bytes);
    }
}
