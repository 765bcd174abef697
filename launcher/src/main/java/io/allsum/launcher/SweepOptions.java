package io.allsum.launcher;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import io.allsum.model.problem.Violation;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.Map;

/**
 * The sweep of sizes and its iterations as nccl-tests' letters (-b -e -f -i -n -w), mixed into {@code allsum} and
 * {@code allsum validate}. Their defaults differ by command: each names them in its {@link Defaults}.
 */
final class SweepOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = {"-b", "--minbytes"}, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "Smallest size of the sweep, e.g. 8, 1K, 64M (default ${DEFAULT-VALUE}).")
    long minBytes;

    @Option(names = {"-e", "--maxbytes"}, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "Largest size of the sweep (default ${DEFAULT-VALUE}).")
    long maxBytes;

    @Option(names = {"-f", "--stepfactor"}, paramLabel = "N",
            description = "Multiply the size by N between steps (default ${DEFAULT-VALUE}).")
    int stepFactor;

    @Option(names = {"-i", "--stepbytes"}, paramLabel = "SIZE", converter = ByteSizeConverter.class,
            description = "Add SIZE between steps instead of multiplying, as nccl-tests' -i: with no -f (or -f 1).")
    Long stepBytes;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Timed iterations per size (default ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = {"-w", "--warmup_iters"}, paramLabel = "N",
            description = "Warm-up iterations per size (default ${DEFAULT-VALUE}).")
    int warmupIterations;

    /**
     * A command's defaults of these options: picocli's default value provider of that command
     * ({@code @Command(defaultValueProvider = ...)}), so that its help shows them.
     */
    abstract static class Defaults implements CommandLine.IDefaultValueProvider {

        private final Map<String, String> byName;

        Defaults(String minBytes, String maxBytes, int stepFactor, int iterations, int warmupIterations) {
            byName = Map.of("--minbytes", minBytes, "--maxbytes", maxBytes, "--stepfactor", String.valueOf(stepFactor),
                    "--iters", String.valueOf(iterations), "--warmup_iters", String.valueOf(warmupIterations));
        }

        @Override
        public String defaultValue(ArgSpec arg) {
            return arg instanceof OptionSpec option ? byName.get(option.longestName()) : null;
        }
    }

    /** The step factor of the job: with -i and no -f, 1 (nccl-tests' -f defaults to 1, so its -i alone steps). */
    /** The sweep's sizes, steps and iterations set on {@code job}. */
    JobSpec.Builder onto(JobSpec.Builder job) {
        return job.sizes(minBytes, maxBytes).stepFactor(stepFactor()).stepBytes(stepBytes)
                .iterations(iterations, warmupIterations);
    }

    int stepFactor() {
        return stepBytes != null && !given("--stepfactor") ? 1 : stepFactor;
    }

    private boolean given(String option) {
        ParseResult parsed = mixee.commandLine() == null ? null : mixee.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption(option);
    }

    /**
     * Adds what these options break to {@code problems}, each naming its option: the server's rules of a sweep
     * ({@link JobSpecRules#sweepViolation}) for {@code job}, the job they describe, and the launcher's own below.
     */
    void check(List<String> problems, JobSpec job) {
        Violation v = JobSpecRules.sweepViolation(job.withDefaults(), JobSpecRules.Limits.DEFAULTS);
        if (v != null) {
            problems.add(SpecProblems.problem(v));
        }
        if (stepFactor() == 1 && stepBytes == null && minBytes != maxBytes) {
            // nccl-tests steps by its -i default (1 MiB) here; allsum asks for the step instead of guessing it.
            problems.add("-f/--stepfactor 1 would run only -b/--minbytes: give the linear step with -i/--stepbytes"
                    + " SIZE, or use -f 2 or more, or -b equal to -e for one size");
        }
    }
}
