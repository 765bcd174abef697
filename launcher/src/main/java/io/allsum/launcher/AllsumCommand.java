package io.allsum.launcher;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.MemberStatus;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

/**
 * The {@code allsum} command: runs a collective sweep like nccl-tests and prints its table. Without --server it
 * starts a rendezvous server and one worker process per rank on this machine (one per GPU with NCCL, else CPU ranks
 * with the ring backend) and stops them afterwards; with --server and --group it submits the job to that cluster.
 */
@Command(name = "allsum", mixinStandardHelpOptions = true, version = "allsum " + AllsumCommand.VERSION,
        sortOptions = false, usageHelpAutoWidth = true, defaultValueProvider = AllsumCommand.SweepDefaults.class,
        description = "Runs a collective sweep on a local group of ranks (or on a running cluster with --server) "
                + "and prints an nccl-tests-style table.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the job succeeded with zero wrong elements",
                "1:the job failed or found wrong elements, or the cluster could not run it",
                "2:wrong options",
                "130:interrupted (Ctrl-C); the rows measured before it are printed"},
        footerHeading = "%nWhat it prints, and when:%n",
        footer = {
                "  stderr, as it happens (-q hides it): starting the server and N ranks, the",
                "  log folder, 'server up in X s', 'N ranks joined ... in X s', 'job ...",
                "  submitted', 'job ... running' (every rank has it), 'job ... succeeded'.",
                "  The first run after a build also says that the server and rank 0 record",
                "  AOT caches for the next runs, and, at the end, that they write them.",
                "  stdout, the nccl-tests table: the header, then each row as soon as every",
                "  rank measured that size (with --server: when the job is done), the footer.",
                "  A job the server would refuse is one 'allsum: ...' line, exit 2, before",
                "  anything starts. --json FILE is written at the end, whatever the outcome;",
                "  --plot FILE.svg too, from the rows measured.",
                "  Logs: /tmp/allsum-*, removed after a successful run unless --keep.",
                "Environment: ALLSUM_TOKEN (default of --token), ALLSUM_HOME (programs of a",
                "  distribution), ALLSUM_AOT=off (no AOT caches). More: docs/launcher.md"})
public final class AllsumCommand implements Callable<Integer> {

    static final String VERSION = "0.1.0";
    static final String LOCAL_GROUP = "local";
    /** How long --server waits for the group's missing ranks unless --wait-for-ranks says otherwise. */
    static final Duration REMOTE_RANKS_WAIT = Duration.ofSeconds(10);
    /** More local CPU ranks per core than this starve each other's heartbeats: refused. */
    static final int MAX_RANKS_PER_CORE = 4;
    /** Longer error messages are cut to one line of this length; the full text goes to the kept logs. */
    static final int MAX_ERROR_CHARS = 300;
    /** Set by the shutdown hook of {@link #main} on SIGINT or SIGTERM: the run ends as interrupted. */
    static final java.util.concurrent.atomic.AtomicBoolean INTERRUPTED =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** How long the shutdown hook lets the run print its rows and its "interrupted" line. */
    static final Duration INTERRUPT_GRACE = Duration.ofSeconds(8);

    @Spec
    CommandSpec spec;

    @Mixin
    SweepOptions sweep;

    @Option(names = {"-c", "--check"}, paramLabel = "0|1", defaultValue = "1",
            description = "Verify every result element (default ${DEFAULT-VALUE}).")
    int check;

    @Option(names = {"-d", "--datatype"}, paramLabel = "TYPE", defaultValue = "float",
            converter = WireConverters.DataTypes.class,
            description = "Element type: nccl-tests names (float, half, double, bfloat16, int32, ...) or allsum's "
                    + "(float32, float16, ...) (default ${DEFAULT-VALUE}).")
    DataType dataType;

    @Option(names = {"-o", "--op"}, paramLabel = "OP", defaultValue = "sum", converter = WireConverters.ReduceOps.class,
            description = "Reduction: sum, prod, max, min, avg (default ${DEFAULT-VALUE}).")
    ReduceOp reduceOp;

    @Option(names = {"-r", "--root"}, paramLabel = "RANK", defaultValue = "0",
            description = "Root rank of broadcast and reduce (default ${DEFAULT-VALUE}).")
    int root;

    @Option(names = "--collective", paramLabel = "OP", defaultValue = "all_reduce",
            converter = WireConverters.Collectives.class,
            description = "all_reduce, all_gather, reduce_scatter, broadcast, reduce, send_recv (default ${DEFAULT-VALUE}).")
    CollectiveOp collective;

    @Option(names = "--in-place", description = "Use one buffer for input and output.")
    boolean inPlace;

    @Mixin
    ClusterOptions target;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the job and its environment as JSON.")
    Path jsonFile;

    @Option(names = "--plot", paramLabel = "FILE.svg",
            description = "Write the run's bus bandwidth by message size as an SVG plot (log-2 size axis).")
    Path plotFile;

    @Option(names = "--process-per-rank", description = "Start each local CPU rank in a JVM of its own, as a cluster "
            + "runs them (default: the CPU ranks of a local run share one worker JVM; GPU ranks have a JVM each).")
    boolean processPerRank;

    @Option(names = "--keep", description = "Keep the local server and workers running after the job (Ctrl-C stops them).")
    boolean keep;

    @Option(names = "--wait-for-ranks", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long to wait for missing ranks of the group, e.g. 30s, 5m (default with --server: "
                    + "10s, so that a group with a rank down fails at once; local runs: the --timeout).")
    Duration waitForRanks;

    @Option(names = {"-a", "--average"}, paramLabel = "0|1|2|3", defaultValue = "1",
            description = "What the time column shows, as nccl-tests: 0 rank 0's time, 1 the average over ranks, "
                    + "2 the fastest rank's, 3 the slowest rank's (default ${DEFAULT-VALUE}).")
    int average;

    /** allsum's sweep: nccl-tests' defaults. */
    static final class SweepDefaults extends SweepOptions.Defaults {
        SweepDefaults() {
            super("8", "64M", 2, 20, 5);
        }
    }

    /** --backend values: auto decides by looking for GPUs. */
    public enum BackendChoice { auto, nccl, ring }

    public static void main(String[] args) {
        java.util.concurrent.CountDownLatch reported = new java.util.concurrent.CountDownLatch(1);
        // Ctrl-C: the run notices the flag at its next poll, prints what it measured and ends as interrupted;
        // System.exit then waits for this hook, which waits (bounded) for that.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (reported.getCount() == 0) {
                return;
            }
            INTERRUPTED.set(true);
            try {
                if (!reported.await(INTERRUPT_GRACE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    System.err.println("allsum: interrupted");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "allsum-interrupt"));
        int exit = execute(args, System.out, System.err);
        reported.countDown();
        System.exit(exit);
    }

    /** Parses and runs; every failure becomes one line on {@code err} and an exit code. */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return commandLine(out, err).execute(args);
    }

    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new AllsumCommand());
        cl.addSubcommand("validate", new ValidateCommand()); // before setOut/setErr, which reach existing subcommands
        cl.addSubcommand("run", new RunCommand());
        // The program's own options follow its first word, with or without a "--" before it.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setParameterExceptionHandler((ex, args) -> {
            String hint = " (see allsum --help)";
            if (ex instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
                hint = " (did you mean " + String.join(" or ", u.getSuggestions().stream().limit(3).toList()) + "?)";
            }
            ex.getCommandLine().getErr().println("allsum: " + oneLine(ex.getMessage()) + hint);
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (ex instanceof LauncherException le) {
                commandLine.getErr().println("allsum: " + oneLine(le.getMessage()));
                return le.exitCode();
            }
            commandLine.getErr().println("allsum: " + ex.getClass().getSimpleName() + ": " + oneLine(ex.getMessage()));
            return ExitCodes.FAILED;
        });
        return cl;
    }

    @Override
    public Integer call() {
        ClusterRun run = new ClusterRun(spec.commandLine(), target, Progress.toStderr(target.quiet));
        ClusterRun.Outcome outcome = run.execute(() -> {
            try {
                validate();
                return run(run, jobSpec(), target.deadline());
            } catch (CommandLine.ParameterException e) {
                throw e;
            } catch (RuntimeException e) {
                if (INTERRUPTED.get()) {
                    // Whatever broke after Ctrl-C (a poll cut short, a child stopped by the hook) is the interrupt.
                    throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", e);
                }
                throw e;
            }
        });
        if (jsonFile != null) {
            writeJsonQuietly(outcome, run.progress());
        }
        if (plotFile != null && outcome.exitCode() != ExitCodes.USAGE) {
            writePlotQuietly(outcome, run.progress());
        }
        if (outcome.failure() != null && !(outcome.failure() instanceof CommandLine.ParameterException)) {
            throw new LauncherException(outcome.exitCode(), shorten(outcome.error(), outcome.logDir()),
                    outcome.failure());
        }
        return outcome.exitOrThrow();
    }

    /**
     * The message as one line of at most {@link #MAX_ERROR_CHARS}: a longer one is cut, and its full text is written
     * to the kept log folder {@code logDir} (a local run; null with --server) or is in --json.
     */
    String shorten(String message, Path logDir) {
        if (message.length() <= MAX_ERROR_CHARS) {
            return message;
        }
        String where = jsonFile != null ? "full text in " + jsonFile : null;
        if (logDir != null && Files.isDirectory(logDir)) {
            Path file = logDir.resolve("allsum-error.txt");
            try {
                Files.writeString(file, message + System.lineSeparator());
                where = "full text in " + file;
            } catch (IOException e) {
                // The cut line still names the cause; the full text is a courtesy.
            }
        }
        return message.substring(0, MAX_ERROR_CHARS - 3) + "..." + (where == null ? "" : " (" + where + ")");
    }

    /** Throws as interrupted once Ctrl-C was pressed; waits call it between polls. */
    static void checkInterrupted() {
        if (INTERRUPTED.get()) {
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", null);
        }
    }

    /**
     * Warning lines for sizes that do not run as given: nccl-tests' rule, each size is rounded down to whole
     * elements (one per rank for all-gather and reduce-scatter).
     */
    static List<String> sizeWarnings(JobSpec spec, int worldSize) {
        JobSpec s = spec.withDefaults();
        List<Long> sizes = s.sizes(worldSize);
        long granule = s.granule(worldSize);
        if (sizes.isEmpty()) {
            return List.of();
        }
        String unit = granule == s.dtype().bytes() ? "whole " + s.dtype() + " elements (" + granule + " B)"
                : "multiples of " + granule + " B (one " + s.dtype() + " element per rank)";
        List<String> warnings = new ArrayList<>();
        if (s.minBytes() > 0 && s.minBytes() % granule != 0) {
            warnings.add("-b/--minbytes " + s.minBytes() + " runs as " + sizes.getFirst() + " B: sizes are " + unit);
        }
        if (s.stepsLinearly() && s.stepBytes() % granule != 0 && sizes.size() > 1) {
            warnings.add("-i/--stepbytes " + s.stepBytes() + " is no multiple of " + granule + " B: each size is "
                    + "rounded down (sizes are " + unit + ")" + (s.stepBytes() < granule ? ", a repeated size runs once" : ""));
        }
        if (s.maxBytes() % granule != 0 && s.maxBytes() > s.minBytes()) {
            warnings.add("-e/--maxbytes " + s.maxBytes() + " is rounded down (sizes are " + unit + "); the largest "
                    + "size is " + sizes.getLast() + " B");
        }
        return warnings;
    }

    /** The job the options describe. */
    JobSpec jobSpec() {
        return sweep.onto(JobSpec.builder().collective(collective, dataType, reduceOp).root(root)).inPlace(inPlace)
                .verify(check == 1).timeoutSeconds(target.jobTimeoutSeconds()).build();
    }

    /**
     * Refuses, as a usage error, a job the server would refuse for a group of {@code worldSize} ranks on
     * {@code backend} (null when unknown), before anything starts.
     */
    void preflight(int worldSize, Backend backend) {
        SpecProblems.refuse(spec.commandLine(), jobSpec(), worldSize, backend);
    }

    /** Checks what picocli's types cannot: ranges and combinations. Throws a usage error naming the option. */
    void validate() {
        List<String> problems = new ArrayList<>();
        sweep.check(problems, jobSpec());
        target.check(problems, 1, "");
        if (check != 0 && check != 1) {
            problems.add("-c/--check must be 0 or 1");
        }
        if (waitForRanks != null && (waitForRanks.isNegative() || waitForRanks.isZero())) {
            problems.add("--wait-for-ranks must be positive");
        }
        if (average < 0 || average > 3) {
            problems.add("-a/--average must be 0 (rank 0), 1 (average), 2 (min) or 3 (max)");
        }
        if (target.remote.server != null && (keep || processPerRank)) {
            problems.add((keep ? "--keep" : "--process-per-rank") + " is for local runs; the cluster at --server has"
                    + " its own");
        }
        if (plotFile != null && BandwidthPlot.formatProblem(plotFile) != null) {
            problems.add(BandwidthPlot.formatProblem(plotFile));
        }
        if (!problems.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", problems));
        }
    }

    /** The local run's or the remote group's job, its table and its exit code. */
    private int run(ClusterRun run, JobSpec jobSpec, Deadline deadline) {
        if (target.remote.server != null) {
            // What does not depend on the group is refused before any request.
            preflight(Math.max(1, root + 1), null);
        }
        return run.run(new ClusterRun.Shape(jobSpec, !processPerRank, keep), deadline, this::preflight, where -> {
            Duration ranksWait = where.cluster() != null ? waitForRanks
                    : waitForRanks != null ? waitForRanks : REMOTE_RANKS_WAIT;
            return report(runJob(run, where, jobSpec, deadline, ranksWait));
        });
    }

    /**
     * The job on the group, its rows printed as they come; {@code ranksWait}: how long the group may miss ranks (null:
     * as long as the deadline allows). Returns the ended job with its table, the footer not printed yet.
     */
    private Ended runJob(ClusterRun run, ClusterRun.Where where, JobSpec jobSpec, Deadline deadline,
                         Duration ranksWait) {
        Progress progress = run.progress();
        Deadline joined = ranksWait == null ? deadline
                : deadline.earlier(Deadline.in(ranksWait, "--wait-for-ranks " + DurationConverter.describe(ranksWait)));
        GroupStatus status = where.session().awaitComplete(joined, where.groupMayBeNew());
        run.saw(status);
        run.phase("groupComplete");
        progress.event(String.format(Locale.ROOT, "%d ranks joined group '%s' in %.1f s (generation %d, %s)",
                status.worldSize(), status.group(), run.reached("groupComplete"), status.generation(),
                status.backend()));
        // The group's size and backend are known now: refuse what its server would, with the option's name.
        preflight(status.worldSize(), status.backend());
        if (target.remote.server != null) {
            sizeWarnings(jobSpec, status.worldSize()).forEach(progress::warn);
        }
        List<ResultTable.RankLine> rankLines = new ArrayList<>();
        List<MemberStatus> members = status.members() == null ? List.of() : status.members();
        for (MemberStatus m : members) {
            rankLines.add(new ResultTable.RankLine(m.rank(), where.pidOfRank(m.rank()), m.host(), m.device(),
                    m.endpoint()));
        }
        LiveTable table = new LiveTable(spec.commandLine().getOut(), progress, String.valueOf(status.backend()),
                status.worldSize(), rankLines, statistic());
        Job submitted = where.session().submit(jobSpec);
        run.saw(submitted);
        run.phase("jobSubmitted");
        Job done;
        try {
            done = where.session().follow(submitted, deadline, job -> {
                // After Ctrl-C the ranks stop, so the job fails: that is the interrupt, not news of the job.
                checkInterrupted();
                run.saw(job);
                table.show(job);
                if (job.state() == JobState.RUNNING && run.reached("jobRunning") == null) {
                    run.phase("jobRunning");
                }
            });
        } catch (RuntimeException e) {
            if (INTERRUPTED.get()) {
                // The footer over the rows printed so far (nothing when none was).
                table.finish(run.job());
            }
            throw e;
        }
        run.saw(done);
        run.phase("jobDone");
        return new Ended(done, table);
    }

    /** An ended job and the table that printed its rows. */
    private record Ended(Job job, LiveTable table) {
    }

    /** Prints the table's footer and turns the job's outcome into an exit code. */
    private static int report(Ended ended) {
        Job job = ended.job();
        ended.table().finish(job);
        if (job.state() != JobState.SUCCEEDED) {
            throw new LauncherException("job " + job.jobId() + " " + job.state()
                    + (job.failureReason() == null ? "" : ": " + job.failureReason()));
        }
        long wrong = ResultTable.totalWrongElements(job);
        if (wrong > 0) {
            throw new LauncherException("job " + job.jobId() + " found " + wrong + " wrong elements");
        }
        return ExitCodes.OK;
    }

    TimeStatistic statistic() {
        return TimeStatistic.fromCode(average);
    }

    /** Writes --json; a failure to write is reported on stderr without hiding the run's own outcome. */
    private void writeJsonQuietly(ClusterRun.Outcome outcome, Progress progress) {
        try {
            Job job = outcome.job() == null ? null : statistic().apply(outcome.job(),
                    outcome.worldSize() != null ? outcome.worldSize() : 1);
            List<SizeResult> sizes = job == null || job.results() == null ? List.of() : job.results();
            Double avgBusBw = sizes.isEmpty() ? null
                    : sizes.stream().mapToDouble(SizeResult::busBandwidthGBps).average().orElse(0);
            List<String> args = spec.commandLine().getParseResult() == null ? List.of()
                    : List.copyOf(spec.commandLine().getParseResult().originalArgs());
            GroupStatus group = outcome.group();
            JsonFiles.write(jsonFile, new RunRecord(RunRecord.SCHEMA_VERSION, VERSION, outcome.mode(),
                    outcome.server() == null ? null : outcome.server().toString(),
                    group != null ? group.group() : target.group, outcome.backend(), outcome.worldSize(), args,
                    outcome.exitCode(), outcome.error(), statistic().name().toLowerCase(Locale.ROOT), avgBusBw, sizes,
                    environment(), outcome.phases(), group, outcome.job()));
        } catch (IOException | RuntimeException e) {
            progress.warn("cannot write --json " + jsonFile + ": " + oneLine(e.getMessage()));
        }
    }

    /** Writes --plot from the rows the run got (all of them, or those measured before it failed). */
    private void writePlotQuietly(ClusterRun.Outcome outcome, Progress progress) {
        try {
            int world = outcome.worldSize() != null ? outcome.worldSize() : 1;
            Job job = outcome.job() == null ? null : statistic().apply(outcome.job(), world);
            List<SizeResult> rows = job == null || job.results() == null ? List.of() : job.results();
            if (rows.isEmpty() || job == null) {
                progress.warn("--plot " + plotFile + ": the run measured no size, nothing plotted");
                return;
            }
            String backendName = outcome.backend() != null ? outcome.backend() : "?";
            BandwidthPlot.write(plotFile, BandwidthPlot.svg(job.spec(), rows, world + " ranks, " + backendName
                    + ", time: " + statistic().name().toLowerCase(Locale.ROOT)));
            progress.event("plot of " + rows.size() + " sizes written to " + plotFile);
        } catch (RuntimeException e) {
            progress.warn("cannot write --plot " + plotFile + ": " + oneLine(e.getMessage()));
        }
    }

    private Map<String, Object> environment() {
        Map<String, Object> env = new LinkedHashMap<>();
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        env.put("host", host);
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        env.put("arch", System.getProperty("os.arch"));
        env.put("cpus", Runtime.getRuntime().availableProcessors());
        env.put("java", System.getProperty("java.vendor") + " " + System.getProperty("java.runtime.version"));
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("java", System.getProperty("java.runtime.version"));
        if (target.remote.server == null) {
            List<String> gpus = GpuProbe.listGpus();
            env.put("gpus", gpus);
            // CUDA and NCCL of this host; a remote cluster's are its own, which the server does not report.
            if (!gpus.isEmpty()) {
                versions.putAll(GpuProbe.versions());
            }
        }
        versions.putIfAbsent("cuda", null);
        versions.putIfAbsent("nccl", null);
        env.put("versions", versions);
        return env;
    }

    static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\R\\s*", "; ").strip();
    }

    /**
     * CPU ranks beyond the cores share them (a warning); beyond {@link #MAX_RANKS_PER_CORE} per core their
     * heartbeats starve and the run fails late, so it is refused before anything starts. Returns the warning, or null.
     */
    String coresWarning(LocalPlan plan, int cores) {
        return coresWarning(spec.commandLine(), plan, cores);
    }

    /** {@link #coresWarning(LocalPlan, int)} for any command that starts local CPU ranks. */
    static String coresWarning(CommandLine command, LocalPlan plan, int cores) {
        if (plan.backend() != Backend.RING || plan.ranks() <= cores) {
            return null;
        }
        if (plan.ranks() > MAX_RANKS_PER_CORE * cores) {
            throw new CommandLine.ParameterException(command, "--ranks " + plan.ranks() + " is more than "
                    + MAX_RANKS_PER_CORE + " CPU ranks per core on " + cores + " cores; use --ranks "
                    + MAX_RANKS_PER_CORE * cores + " or fewer");
        }
        return "--ranks " + plan.ranks() + " on " + cores + " CPU cores: ranks share cores, so times are slower and "
                + "start-up takes longer";
    }

    /** How many local ranks, on which backend and GPUs. */
    record LocalPlan(Backend backend, int ranks, List<Integer> devices) {

        static final int DEFAULT_CPU_RANKS = 4;

        static LocalPlan decide(BackendChoice choice, Integer ranks, java.util.function.Supplier<List<String>> gpus) {
            List<String> found = choice == BackendChoice.ring ? List.of() : gpus.get();
            if (choice == BackendChoice.ring || (choice == BackendChoice.auto && found.isEmpty())) {
                return new LocalPlan(Backend.RING, ranks != null ? ranks : DEFAULT_CPU_RANKS, List.of());
            }
            if (found.isEmpty()) {
                throw new LauncherException("--backend nccl needs GPUs, and nvidia-smi -L lists none; "
                        + "use --backend ring for CPU ranks");
            }
            int n = ranks != null ? ranks : found.size();
            if (n > found.size()) {
                // NCCL refuses two ranks on one GPU (ncclInvalidUsage).
                throw new LauncherException(ExitCodes.USAGE, "--ranks " + n + " needs " + n + " GPUs for NCCL (one "
                        + "per rank), but nvidia-smi -L lists " + found.size(), null);
            }
            return new LocalPlan(Backend.NCCL, n, IntStream.range(0, n).boxed().toList());
        }
    }
}
