package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.rendezvous.GroupStatus;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * One run of a command's jobs, the same for {@code allsum} and {@code allsum validate}: a local cluster that this
 * process starts (a server and the ranks, with AOT caches) and stops afterwards, or the group of a running server
 * (--server). A command gives only what differs (its rules for a planned group, its job for the size warnings,
 * whether local ranks share a JVM, --keep) and the body that runs its jobs; {@link #execute} tells how the run ended
 * and what it got to (the group and job last seen, the phases), for the command's printing and --json.
 */
final class ClusterRun {

    /**
     * How a run ended: its exit code, its error as one line (null on success) and the failure to rethrow, with what
     * it got to; {@code plan} and {@code logDir} are null with --server, {@code group} and {@code job} until seen.
     */
    record Outcome(int exitCode, String error, Throwable failure, String mode, URI server,
                   AllsumCommand.LocalPlan plan, Path logDir, GroupStatus group, Job job, Map<String, Double> phases,
                   Map<String, Object> notes) {

        /** The group's size once seen, else the planned one; null when neither is known. */
        Integer worldSize() {
            return group != null ? Integer.valueOf(group.worldSize()) : plan != null ? plan.ranks() : null;
        }

        /** The group's backend once seen, else the planned one; null when neither is known. */
        String backend() {
            return group != null ? String.valueOf(group.backend()) : plan != null ? plan.backend().toString() : null;
        }

        /** The exit code of a run that ended normally; else its failure, thrown. */
        int exitOrThrow() {
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            return exitCode;
        }
    }

    /** What a command asks of a local cluster: {@code job} for the size warnings. */
    record Shape(JobSpec job, boolean shareJvm, boolean keep) {
    }

    /** A command's rules for the group it is about to start (world size and backend), as usage errors. */
    @FunctionalInterface
    interface Preflight {
        void check(int worldSize, Backend backend);
    }

    /** The group's job session, and the local cluster it runs on (null with --server). */
    record Where(JobSession session, boolean groupMayBeNew, LocalCluster cluster) {

        /** The pid of the local process that runs {@code rank}; null on a remote cluster. */
        Long pidOfRank(int rank) {
            return cluster == null ? null : cluster.workers().stream().filter(c -> c.ranks().contains(rank))
                    .map(c -> c.process().pid()).findFirst().orElse(null);
        }
    }

    /** What a command does once the server is up; returns its exit code. */
    @FunctionalInterface
    interface Body {
        int run(Where where);
    }

    private final CommandLine command;
    private final ClusterOptions target;
    private final Progress progress;
    private URI server;
    private AllsumCommand.LocalPlan plan;
    private Path logDir;
    /** What the run got to, seconds since the launcher started by phase, in order. */
    private final Map<String, Double> phases = new LinkedHashMap<>();
    private final Map<String, Object> notes = new LinkedHashMap<>();
    private GroupStatus group;
    private Job job;

    ClusterRun(CommandLine command, ClusterOptions target, Progress progress) {
        this.command = command;
        this.target = target;
        this.progress = progress;
        this.server = target.remote.server;
    }

    Progress progress() {
        return progress;
    }

    /**
     * Runs {@code command} (its checks, then {@link #run}) and tells how it ended; whatever broke is in the outcome,
     * for the command to report before it rethrows.
     */
    Outcome execute(IntSupplier command) {
        try {
            return outcome(command.getAsInt(), null, null);
        } catch (CommandLine.ParameterException e) {
            return outcome(ExitCodes.USAGE, AllsumCommand.oneLine(e.getMessage()), e);
        } catch (LauncherException e) {
            return outcome(e.exitCode(), AllsumCommand.oneLine(e.getMessage()), e);
        } catch (RuntimeException | Error e) {
            String message = e.getClass().getSimpleName() + ": " + AllsumCommand.oneLine(e.getMessage());
            return outcome(ExitCodes.FAILED, message, e);
        }
    }

    private Outcome outcome(int exitCode, String error, Throwable failure) {
        return new Outcome(exitCode, error, failure, target.remote.server != null ? "remote" : "local", server, plan,
                logDir, group, job, new LinkedHashMap<>(phases), new LinkedHashMap<>(notes));
    }

    /** Records that the run reached {@code name} now. */
    void phase(String name) {
        phases.put(name, Math.round(progress.elapsedSeconds() * 1000) / 1000.0);
    }

    /** When the run reached {@code name}, in seconds since the launcher started; null when it did not. */
    Double reached(String name) {
        return phases.get(name);
    }

    void saw(GroupStatus status) {
        group = status;
    }

    /** The command's job as last seen (a poll's answer), for the outcome. */
    void saw(Job seen) {
        job = seen;
    }

    /** The job last seen; null before one was submitted. */
    Job job() {
        return job;
    }

    /** A part of the command's own --json record (validate's exclusion), kept whatever the outcome. */
    void note(String key, Object value) {
        notes.put(key, value);
    }

    int run(Shape shape, Deadline deadline, Preflight preflight, Body body) {
        return target.remote.server != null ? remote(deadline, body) : local(shape, deadline, preflight, body);
    }

    private int local(Shape shape, Deadline deadline, Preflight preflight, Body body) {
        plan = AllsumCommand.LocalPlan.decide(target.backend, target.ranks, GpuProbe::listGpus);
        // Everything the server would refuse is refused here, before a single process starts.
        preflight.check(plan.ranks(), plan.backend());
        String sharing = AllsumCommand.coresWarning(command, plan, Runtime.getRuntime().availableProcessors());
        if (sharing != null) {
            progress.warn(sharing);
        }
        AllsumCommand.sizeWarnings(shape.job(), plan.ranks()).forEach(progress::warn);
        ProcessLayout layout = ProcessLayout.resolve(System.getenv("ALLSUM_HOME"), ProcessLayout.findRepoRoot(),
                ProcessLayout.currentJava());
        String groupName = target.group != null ? target.group : AllsumCommand.LOCAL_GROUP;
        progress.event("starting the server and " + plan.ranks() + " " + plan.backend() + " ranks ("
                + layout.description() + ")");
        // --keep leaves a cluster to talk to: its workers serve their HTTP ports.
        LocalCluster cluster = LocalCluster.start(layout, plan.backend(), plan.ranks(), plan.devices(), groupName,
                LocalCluster.Options.forCommand(deadline, progress::event).withWorkerHttp(shape.keep())
                        .withOneWorkerJvm(shape.shareJvm()));
        server = cluster.serverUri();
        logDir = cluster.logDir();
        Runnable whileWaiting = () -> {
            AllsumCommand.checkInterrupted();
            cluster.checkAlive();
        };
        if (cluster.recordsAotCaches()) {
            progress.event("first run after a build: the server and rank 0 record AOT caches for the next runs");
        }
        boolean succeeded = false;
        try {
            progress.event("logs in " + cluster.logDir() + " (kept only on failure or with --keep)");
            new ServerProbe(cluster.serverUri()).awaitHealthy(deadline, whileWaiting, progress);
            progress.event(String.format(Locale.ROOT, "server up in %.1f s at %s", progress.elapsedSeconds(),
                    cluster.serverUri()));
            int exit;
            phase("serverHealthy");
            try (AllsumClient client = Clients.connect(cluster.serverUri(), cluster.token())) {
                exit = body.run(new Where(new JobSession(client, groupName, whileWaiting, progress), true, cluster));
            }
            succeeded = true;
            if (shape.keep()) {
                keepUntilTheServerExits(cluster, groupName);
            }
            return exit;
        } finally {
            if (cluster.recordsAotCaches() && succeeded) {
                progress.event("stopping; the recording JVMs write their AOT caches (once per build)");
            }
            // A failed run stops its children within what is left of the deadline (at once when it passed).
            cluster.close(succeeded && !shape.keep() ? LocalCluster.Stop.quick().deletingLogs(true)
                    : LocalCluster.Stop.graceful(deadline.remainingAtMost(LocalCluster.STOP_GRACE)));
        }
    }

    /** --keep: the cluster stays until Ctrl-C (an interrupt) or until its server exits (a failure). */
    private void keepUntilTheServerExits(LocalCluster cluster, String groupName) {
        PrintWriter out = command.getOut();
        out.println("# keeping the cluster: server " + cluster.serverUri() + "  group " + groupName
                + "  token " + cluster.token() + "  (Ctrl-C stops it)");
        out.flush();
        try {
            cluster.awaitServerExit();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        AllsumCommand.checkInterrupted();
        throw new LauncherException("the kept server exited; logs in " + cluster.logDir());
    }

    private int remote(Deadline deadline, Body body) {
        String problem = new ServerProbe(server).problem(deadline.remainingAtMost(Duration.ofSeconds(5)));
        if (problem != null) {
            throw new LauncherException("cannot reach the allsum server at " + server + " (" + problem + ")");
        }
        phase("serverHealthy");
        try (AllsumClient client = Clients.connect(server, target.remote.token)) {
            return body.run(new Where(new JobSession(client, target.group, AllsumCommand::checkInterrupted, progress),
                    false, null));
        }
    }
}
