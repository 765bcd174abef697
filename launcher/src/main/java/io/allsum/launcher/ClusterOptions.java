package io.allsum.launcher;

import io.allsum.client.ServerUrl;
import io.allsum.model.Protocol;
import io.allsum.model.jobs.JobSpecRules;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;

/**
 * Where a command runs and for how long, mixed into {@code allsum} and {@code allsum validate}: local ranks it
 * starts, or the group of a running cluster at --server; --timeout bounds the whole command.
 */
final class ClusterOptions {

    @Option(names = "--ranks", paramLabel = "N",
            description = "Local ranks to start (default: one per GPU with NCCL, else 4 CPU ranks).")
    Integer ranks;

    @Option(names = "--backend", paramLabel = "auto|nccl|ring", defaultValue = "auto",
            description = "Communicator of the local ranks; auto picks nccl when nvidia-smi lists GPUs "
                    + "(default ${DEFAULT-VALUE}).")
    AllsumCommand.BackendChoice backend;

    @Mixin
    ServerOptions remote;

    @Option(names = "--group", paramLabel = "NAME", description = "The cluster's group to run on (with --server).")
    String group;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10m", converter = DurationConverter.class,
            description = "Deadline of the whole run: start-up, joins and the job, e.g. 600 (seconds), 90s, 30m "
                    + "(default ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = {"-q", "--quiet"}, description = "No progress on stderr.")
    boolean quiet;

    /** One clock for the whole command, from the JVM's start, named as the user gave it. */
    Deadline deadline() {
        return Deadline.sinceProcessStart(timeout, "--timeout " + DurationConverter.describe(timeout));
    }

    /** The job's own deadline: --timeout, capped at what the server accepts. */
    int jobTimeoutSeconds() {
        return (int) Math.min(timeout.toSeconds(), JobSpecRules.MAX_TIMEOUT_SECONDS);
    }

    /**
     * Adds what these options break to {@code problems}: fewer than {@code minRanks} local ranks ({@code why} says
     * why that is the least, or is empty), --server without its --group, or with options of local runs.
     */
    void check(List<String> problems, int minRanks, String why) {
        if (ranks != null && ranks < minRanks) {
            problems.add("--ranks must be at least " + minRanks + why);
        }
        if (timeout.toSeconds() < 1) {
            problems.add("--timeout must be at least 1 second");
        }
        if (remote.server != null) {
            if (group == null) {
                problems.add("--server needs --group (the cluster's group to run on)");
            }
            if (ranks != null || backend != AllsumCommand.BackendChoice.auto) {
                problems.add("--ranks and --backend are for local runs; the cluster at --server has its own");
            }
            String problem = ServerUrl.problem(remote.server);
            if (problem != null) {
                problems.add("--server " + problem);
            }
        }
        if (group != null && !Protocol.GROUP_NAME.matcher(group).matches()) {
            problems.add("--group must match " + Protocol.GROUP_NAME.pattern());
        }
    }
}
