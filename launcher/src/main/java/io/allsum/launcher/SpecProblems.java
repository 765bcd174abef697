package io.allsum.launcher;

import io.allsum.model.Backend;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobSpecRules;
import io.allsum.model.problem.Violation;
import picocli.CommandLine;

/**
 * The server's rules of a job spec ({@link JobSpecRules}) as the launcher's usage errors: each problem names the
 * option that sets the field its rule names, so that the command refuses what its server would, before it starts.
 */
final class SpecProblems {

    private SpecProblems() {
    }

    /**
     * Throws a usage error for the first rule {@code submitted} breaks on a group of {@code worldSize} ranks on
     * {@code backend} (null when unknown: its rules are skipped).
     */
    static void refuse(CommandLine command, JobSpec submitted, int worldSize, Backend backend) {
        Violation v = JobSpecRules.firstViolation(submitted, submitted.withDefaults(), worldSize, backend,
                JobSpecRules.Limits.DEFAULTS);
        if (v != null) {
            throw new CommandLine.ParameterException(command, problem(v));
        }
    }

    /** "OPTION: message". */
    static String problem(Violation v) {
        return optionOf(v.field()) + ": " + v.message();
    }

    /** The option that sets a job spec field, for messages. */
    static String optionOf(String field) {
        return switch (field) {
            case "minBytes" -> "-b/--minbytes";
            case "maxBytes" -> "-e/--maxbytes";
            case "stepFactor" -> "-f/--stepfactor";
            case "stepBytes" -> "-i/--stepbytes";
            case "iterations" -> "-n/--iters";
            case "warmupIterations" -> "-w/--warmup_iters";
            case "timeoutSeconds" -> "--timeout";
            case "root" -> "-r/--root";
            case "redop" -> "-o/--op";
            case "dtype" -> "-d/--datatype";
            case "op" -> "--collective";
            case "validation.minStallShare" -> "--min-stall-share";
            case "validation.baseline" -> "--baseline";
            case "validation.soloBytes" -> "--solo-bytes";
            case "validation.pairBytes" -> "--pair-bytes";
            case "validation.pairIterations" -> "--pair-iters";
            case "validation.minDeviations" -> "--min-deviations";
            case "validation.minShortfall" -> "--min-shortfall";
            case "validation.expectBusBandwidthGBps" -> "--expect-busbw";
            default -> field;
        };
    }
}
