package io.allsum.launcher;

import io.allsum.client.AllsumJson;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.format.ByteSize;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.validate.Baseline;
import io.allsum.model.validate.HostPairs;
import io.allsum.model.validate.LeftOut;
import io.allsum.model.validate.Thresholds;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code allsum validate}: one validation job (each rank alone, every pair, the all-reduce sweep, a verdict) on a
 * local group or a running cluster, each phase printed once measured ({@link ValidationReport}), the verdict last;
 * with {@code --exclude}, the sweep once more without the suspects.
 */
@Command(name = "validate", mixinStandardHelpOptions = true, sortOptions = false, usageHelpAutoWidth = true,
        defaultValueProvider = ValidateCommand.SweepDefaults.class,
        description = "Finds the slow GPU, link or host of a group in one job: each rank alone, every pair "
                + "(round-robin, N-1 rounds), the all-reduce sweep, then robust statistics name the suspects.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:healthy: no suspect", "1:suspects found, or the validation failed",
                "2:wrong options"},
        footer = {"%nMore: docs/validate.md"})
public final class ValidateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ClusterOptions target;

    @Mixin
    SweepOptions sweep;

    @Option(names = "--solo-bytes", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "Buffer each rank reduces alone (default: the server's, 16M).")
    Long soloBytes;

    @Option(names = "--pair-bytes", paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "What each pair exchanges both ways (default: 4M).")
    Long pairBytes;

    @Option(names = "--pair-iters", paramLabel = "N", description = "Timed exchanges per pair (default: 5).")
    Integer pairIterations;

    @Option(names = "--min-deviations", paramLabel = "X",
            description = "A suspect lies at least X robust standard deviations below the median (default: 3.5).")
    Double minDeviations;

    @Option(names = "--min-shortfall", paramLabel = "F",
            description = "... and at least this fraction below it (default: 0.25).")
    Double minShortfall;

    @Option(names = "--expect-busbw", paramLabel = "GBPS",
            description = "Bus bandwidth the largest size must reach, in GB/s; below it the group is a suspect.")
    Double expectBusBandwidth;

    @Option(names = "--min-stall-share", paramLabel = "F",
            description = "A rank the others waited for F of the lock-step time, beyond the ranks' median, is a "
                    + "straggler; a confirmation probe stalled twice F of its time confirms it (default: "
                    + Thresholds.DEFAULT_MIN_STALL_SHARE + ").")
    Double minStallShare;

    @Option(names = "--baseline", paramLabel = "FILE",
            description = "Hold this run against a healthy run's figures (--save-baseline): a figure short of it by "
                    + "more than its calibrated margin makes the group a suspect.")
    Path baselineFile;

    @Option(names = "--save-baseline", paramLabel = "FILE",
            description = "Validate --baseline-runs times and, when every run is healthy, write their figures with "
                    + "margins calibrated on how the runs differ from each other.")
    Path saveBaselineFile;

    @Option(names = "--baseline-runs", paramLabel = "N",
            description = "Healthy runs behind --save-baseline (default: 3).")
    Integer baselineRuns;

    static final int DEFAULT_BASELINE_RUNS = 3;
    static final int MAX_BASELINE_RUNS = 20;

    @Option(names = "--json", paramLabel = "FILE",
            description = "Write the verdict, suspects, pairs and ranks as JSON (always, whatever the outcome).")
    Path jsonFile;

    /** A short sweep: the pairs and the verdict are what validate is for. */
    static final class SweepDefaults extends SweepOptions.Defaults {
        SweepDefaults() {
            super("1K", "4M", 4, 10, 2);
        }
    }

    @Option(names = "--exclude", description = "When the verdict names suspects, run the all-reduce sweep again "
            + "without them and compare the bus bandwidth.")
    boolean exclude;

    @Option(names = "--every", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Validate again every DURATION (30s, 10m, 1h; the first at once), each validation a job in "
                    + "the server's history, until Ctrl-C or --rounds; --timeout then bounds each round. Exit 1 if "
                    + "any round named suspects or failed.")
    Duration every;

    @Option(names = "--rounds", paramLabel = "N", description = "With --every: stop after N validations.")
    Integer rounds;

    static final Duration MIN_EVERY = Duration.ofSeconds(1);

    @Override
    public Integer call() {
        ClusterRun run = new ClusterRun(spec.commandLine(), target, Progress.toStderr(target.quiet));
        ClusterRun.Outcome outcome = run.execute(() -> {
            JobSpec job = checkOptions();
            return run(run, job, target.deadline());
        });
        if (jsonFile != null) {
            writeJson(outcome, run.progress());
        }
        return outcome.exitOrThrow();
    }

    /** The validation the options describe, held against no baseline. */
    JobSpec jobSpec() {
        return jobSpec(null);
    }

    private JobSpec jobSpec(Baseline baseline) {
        // the builder's start is the validation's sweep: an out-of-place all-sum of float32 with verification
        return sweep.onto(JobSpec.builder()).timeoutSeconds(target.jobTimeoutSeconds())
                .validation(new ValidationSpec(soloBytes, pairBytes, pairIterations, minDeviations, minShortfall,
                        expectBusBandwidth, minStallShare, baseline)).build();
    }

    /** Refuses wrong options as a usage error; returns the validation they describe, with --baseline read. */
    private JobSpec checkOptions() {
        List<String> problems = new ArrayList<>();
        target.check(problems, 2, ": validate measures every pair of ranks");
        sweep.check(problems, jobSpec());
        if (baselineFile != null && saveBaselineFile != null) {
            problems.add("--baseline and --save-baseline: one at a time (a baseline is saved from runs held "
                    + "against none)");
        }
        if (baselineRuns != null && saveBaselineFile == null) {
            problems.add("--baseline-runs: only with --save-baseline");
        } else if (baselineRuns != null && (baselineRuns < 1 || baselineRuns > MAX_BASELINE_RUNS)) {
            problems.add("--baseline-runs: must be 1.." + MAX_BASELINE_RUNS + ", was " + baselineRuns);
        }
        if (every != null && (every.compareTo(MIN_EVERY) < 0)) {
            problems.add("--every: at least 1 s, was " + every.toMillis() + " ms");
        }
        if (every != null && saveBaselineFile != null) {
            problems.add("--every: not with --save-baseline (--baseline-runs repeats the runs a baseline needs)");
        }
        if (rounds != null && every == null) {
            problems.add("--rounds: only with --every");
        } else if (rounds != null && rounds < 1) {
            problems.add("--rounds: at least 1, was " + rounds);
        }
        if (exclude && saveBaselineFile != null) {
            problems.add("--exclude: not with --save-baseline, whose runs must all be healthy");
        }
        if (!problems.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", problems));
        }
        JobSpec job = jobSpec(baselineFile != null ? readBaseline(baselineFile) : null);
        // what the server would refuse, for any group of at least 2 ranks
        preflight(job, Math.max(2, target.ranks == null ? 2 : target.ranks));
        return job;
    }

    private void preflight(JobSpec job, int worldSize) {
        SpecProblems.refuse(spec.commandLine(), job, worldSize, null);
    }

    private Baseline readBaseline(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--baseline " + file + ": cannot read it ("
                    + AllsumCommand.oneLine(e.getMessage()) + ")");
        }
        try {
            Baseline read = AllsumJson.mapper().readValue(text, Baseline.class);
            if (read.figures().isEmpty() || read.worldSize() < 2) {
                throw new IllegalArgumentException("it holds no figures of a group of 2 or more ranks");
            }
            return read;
        } catch (RuntimeException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--baseline " + file + ": not a baseline "
                    + "saved by --save-baseline (" + AllsumCommand.oneLine(e.getMessage()) + ")");
        }
    }

    /**
     * The validation on a local cluster (a JVM per rank, as on a cluster: ranks sharing one JVM share its pauses,
     * which is what validate looks for) or on the group at --server.
     */
    private int run(ClusterRun run, JobSpec job, Deadline deadline) {
        return run.run(new ClusterRun.Shape(job, false, false), deadline, (ranks, backend) -> {
            if (ranks < 2) {
                throw new LauncherException(ExitCodes.USAGE, "validate needs at least 2 ranks, this machine has "
                        + ranks + " GPU; use --backend ring --ranks N for CPU ranks", null);
            }
            preflight(job, ranks);
        }, where -> validate(run, where.session(), job, deadline, where.groupMayBeNew()));
    }

    private int validate(ClusterRun run, JobSession session, JobSpec job, Deadline deadline, boolean groupMayBeNew) {
        Progress progress = run.progress();
        GroupStatus status = session.awaitComplete(deadline, groupMayBeNew);
        run.saw(status);
        if (status.worldSize() < 2) {
            throw new LauncherException(ExitCodes.USAGE, "group '" + status.group() + "' has 1 rank; validate "
                    + "measures every pair and needs at least 2", null);
        }
        preflight(job, status.worldSize());
        Baseline baseline = job.validation().baseline();
        if (baseline != null && baseline.worldSize() != status.worldSize()) {
            throw new LauncherException(ExitCodes.USAGE, "--baseline " + baselineFile + " was saved on "
                    + baseline.worldSize() + " ranks; group '" + status.group() + "' has " + status.worldSize(), null);
        }
        if (target.remote.server != null) {
            AllsumCommand.sizeWarnings(job, status.worldSize()).forEach(progress::warn);
        }
        progress.event(String.format(Locale.ROOT, "%d ranks joined group '%s' (generation %d, %s)",
                status.worldSize(), status.group(), status.generation(), status.backend()));
        PrintWriter out = spec.commandLine().getOut();
        Validation validation = new Validation(run, session, job, out);
        if (every != null) {
            return watch(validation, deadline, status);
        }
        if (saveBaselineFile == null) {
            return exitCode(validateOnce(validation, deadline, status));
        }
        int runs = baselineRuns != null ? baselineRuns : DEFAULT_BASELINE_RUNS;
        List<Map<String, Double>> figures = new ArrayList<>();
        for (int round = 1; round <= runs; round++) {
            out.printf(Locale.ROOT, "# baseline run %d of %d%n", round, runs);
            Job done = validateOnce(validation, deadline, status);
            if (exitCode(done) != ExitCodes.OK) {
                throw new LauncherException("baseline run " + round + " of " + runs + " found suspects: a baseline "
                        + "is saved from healthy runs only; " + saveBaselineFile + " is not written");
            }
            figures.add(done.validation().figures());
        }
        Baseline saved = Baseline.calibrate(status.worldSize(), figures, Instant.now().toString());
        writeBaseline(saved);
        DoubleSummaryStatistics margins = saved.figures().stream().mapToDouble(Baseline.Figure::margin)
                .summaryStatistics();
        out.printf(Locale.ROOT, "baseline: %d healthy runs of %d ranks, %d figures (margins %.0f%%..%.0f%%) written "
                        + "to %s%n", runs, status.worldSize(), saved.figures().size(), 100 * margins.getMin(),
                100 * margins.getMax(), saveBaselineFile);
        out.flush();
        return ExitCodes.OK;
    }

    /**
     * {@code --every}: a validation now and then one every {@link #every} from the previous one's start, each against
     * a fresh --timeout; a round that fails (a rank died) is reported and the next one waits for the group again.
     */
    private int watch(Validation validation, Deadline first, GroupStatus firstStatus) {
        PrintWriter out = validation.out();
        int worst = ExitCodes.OK;
        Deadline deadline = first;
        GroupStatus status = firstStatus;
        for (int round = 1; rounds == null || round <= rounds; round++) {
            long started = System.nanoTime();
            out.printf(Locale.ROOT, "# round %d%s, %s%n", round, rounds == null ? "" : " of " + rounds,
                    Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
            String verdict;
            try {
                if (round > 1) {
                    deadline = Deadline.in(target.timeout, "--timeout " + DurationConverter.describe(target.timeout));
                    status = validation.session().awaitComplete(deadline, false);
                }
                Job done = validateOnce(validation, deadline, status);
                worst = Math.max(worst, exitCode(done));
                verdict = ValidationReport.summary(done.validation());
            } catch (LauncherException e) {
                if (e.exitCode() == ExitCodes.USAGE) {
                    throw e;
                }
                worst = Math.max(worst, ExitCodes.FAILED);
                verdict = "validate: round failed: " + AllsumCommand.oneLine(e.getMessage());
            }
            boolean last = rounds != null && round == rounds;
            long next = started + every.toNanos();
            out.printf(Locale.ROOT, "# round %d: %s%s%n", round, verdict, last ? "" : "; next at "
                    + Instant.now().plusNanos(Math.max(0, next - System.nanoTime()))
                    .truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
            out.flush();
            if (!last) {
                validation.run().progress().event("waiting for round " + (round + 1) + " (--every "
                        + DurationConverter.describe(every) + ")");
                sleepUntil(next);
            }
        }
        return worst;
    }

    private static void sleepUntil(long nanoTime) {
        try {
            long left;
            while ((left = nanoTime - System.nanoTime()) > 0) {
                Thread.sleep(Duration.ofNanos(left));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException(ExitCodes.FAILED, "interrupted while waiting for the next round", e);
        }
    }

    private void writeBaseline(Baseline saved) {
        try {
            JsonFiles.write(saveBaselineFile, saved);
        } catch (IOException e) {
            throw new LauncherException("cannot write --save-baseline " + saveBaselineFile + ": "
                    + AllsumCommand.oneLine(e.getMessage()));
        }
    }

    /** A healthy verdict is 0, suspects 1. */
    private static int exitCode(Job validated) {
        return ValidationResult.HEALTHY.equals(validated.validation().verdict()) ? ExitCodes.OK : ExitCodes.FAILED;
    }

    /** The validations of one run on one group: the job each submits, where they print, what they tell the run. */
    private record Validation(ClusterRun run, JobSession session, JobSpec job, PrintWriter out) {
    }

    /**
     * One validation job, its report, and with --exclude the sweep without the suspects; returns the job, which
     * ended with a verdict (else this throws).
     */
    private Job validateOnce(Validation validation, Deadline deadline, GroupStatus status) {
        ClusterRun run = validation.run();
        ValidationReport report = new ValidationReport(String.valueOf(status.backend()), status.worldSize(),
                validation.out());
        Job submitted = validation.session().submit(validation.job());
        run.saw(submitted);
        Job done = validation.session().follow(submitted, deadline, job -> {
            run.saw(job);
            report.show(job);
        });
        run.saw(done);
        report.show(done);
        ValidationResult v = done.validation();
        if (done.state() != JobState.SUCCEEDED || v == null || v.verdict() == null) {
            String phase = v == null || v.phase() == null ? "?" : v.phase();
            throw new LauncherException("validation failed in phase " + phase + ": job " + done.jobId() + " "
                    + done.state() + (done.failureReason() == null ? "" : ": " + done.failureReason()));
        }
        if (exclude) {
            sweepWithout(validation, deadline, done, report);
        }
        return done;
    }

    /**
     * {@code --exclude}: the validation's sweep again on the ranks the suspects leave, its table, and one line
     * comparing the largest size's bus bandwidth with the whole group's; one line instead when nothing is left out.
     */
    private void sweepWithout(Validation validation, Deadline deadline, Job validated, ValidationReport report) {
        PrintWriter out = validation.out();
        JobSession session = validation.session();
        ValidationResult v = validated.validation();
        LeftOut left = LeftOut.of(v, validated.spec().validation().thresholds());
        int worldSize = v.ranks().size();
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("ranks", left.ranks());
        record.put("because", left.because());
        validation.run().note("excluded", record);
        JobSpec without = validation.job().withValidation(null).withExcludeRanks(left.ranks());
        // The ranks come from the group's own, sorted and distinct: only too few left keeps the server's rule.
        String skipped = left.ranks().isEmpty()
                ? (v.suspects().isEmpty() ? "healthy" : "the suspects name no rank") + ", nothing is excluded"
                : JobSpecRules.exclusionViolation(without.withDefaults(), worldSize) != null ? "leaving out ranks "
                + left.ranks() + " would leave " + without.keptSize(worldSize) + " of " + worldSize + " ranks, fewer "
                + "than " + JobSpecRules.MIN_RANKS_KEPT + ": skipped" : null;
        if (skipped != null) {
            record.put("skipped", skipped);
            out.println("exclude: " + skipped);
            out.flush();
            return;
        }
        Job done = session.follow(session.submit(without), deadline);
        record.put("job", done);
        if (done.state() != JobState.SUCCEEDED || done.results().isEmpty()) {
            throw new LauncherException("the sweep without ranks " + left.ranks() + " failed: job " + done.jobId()
                    + " " + done.state() + (done.failureReason() == null ? "" : ": " + done.failureReason()));
        }
        SizeResult all = validated.results().getLast();
        SizeResult kept = done.results().getLast();
        double ratio = kept.busBandwidthGBps() / all.busBandwidthGBps();
        String line = String.format(Locale.ROOT, "without ranks %s (%s): busbw %.3g GB/s at %s against %.3g GB/s "
                        + "with all %d (%.2fx)", left.ranks(), String.join(", ", left.because()),
                kept.busBandwidthGBps(), ByteSize.format(kept.bytes()), all.busBandwidthGBps(), worldSize, ratio);
        record.put("rows", done.results());
        record.put("ratio", ratio);
        record.put("summary", line);
        report.excluded(done, left.ranks(), v);
        out.println(line);
        out.flush();
    }

    /** The JSON record: verdict, suspects, pairs, ranks first; the job and the outcome after. */
    private void writeJson(ClusterRun.Outcome outcome, Progress progress) {
        ValidationResult v = outcome.job() == null ? null : outcome.job().validation();
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("verdict", v == null || v.verdict() == null ? ValidationResult.FAILED : v.verdict());
        record.put("suspects", v == null || v.suspects() == null ? List.of() : v.suspects());
        record.put("unconfirmed", v == null || v.unconfirmed() == null ? List.of() : v.unconfirmed());
        record.put("pairs", v == null ? List.of() : v.pairs());
        record.put("hostPairs", v == null ? List.of() : HostPairs.of(v.ranks(), v.pairs()));
        record.put("ranks", v == null ? List.of() : v.ranks());
        record.put("solo", v == null ? List.of() : v.solo());
        record.put("pairsSeconds", v == null ? null : v.pairsSeconds());
        record.put("lastArrivals", v == null ? List.of() : v.lastArrivals());
        record.put("worldSize", v == null ? null : v.worldSize());
        record.put("soloMedianGBps", v == null ? null : v.soloMedianGBps());
        record.put("pairMedianGBps", v == null ? null : v.pairMedianGBps());
        record.put("heat", v == null ? List.of() : v.heat());
        record.put("waits", v == null || v.waits() == null ? List.of() : v.waits());
        record.put("lockstepSeconds", v == null ? null : v.lockstepSeconds());
        record.put("retransmits", v == null ? List.of() : v.retransmits());
        record.put("figures", v == null || v.figures() == null ? Map.of() : v.figures());
        record.put("phase", v == null ? null : v.phase());
        record.put("excluded", outcome.notes().get("excluded"));
        record.put("baseline", baselineFile != null ? Map.of("heldAgainst", baselineFile.toString())
                : saveBaselineFile != null ? Map.of("savedTo", saveBaselineFile.toString()) : null);
        record.put("exitCode", outcome.exitCode());
        record.put("error", outcome.error());
        record.put("group", outcome.group());
        record.put("job", outcome.job());
        try {
            JsonFiles.write(jsonFile, record);
        } catch (IOException | RuntimeException e) {
            progress.warn("cannot write --json " + jsonFile + ": " + AllsumCommand.oneLine(e.getMessage()));
        }
    }
}
