package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.model.Backend;
import io.allsum.model.jobs.JobSpec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Where a command's jobs run, the same for {@code allsum} and {@code allsum validate}: a local cluster that this
 * process starts (a server and the ranks, with AOT caches) and stops afterwards, or the group of a running server
 * (--server). A command gives only what differs (its rules for a planned group, its job for the size warnings,
 * whether local ranks share a JVM, --keep) and the body that runs its jobs; what the run got to stays readable for
 * the command's --json whatever the outcome.
 */
final class ClusterRun {

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

    ClusterRun(CommandLine command, ClusterOptions target, Progress progress) {
        this.command = command;
        this.target = target;
        this.progress = progress;
        this.server = target.remote.server;
    }

    /** "remote" with --server, else "local". */
    String mode() {
        return target.remote.server != null ? "remote" : "local";
    }

    /** The server the run talks to: --server's, or the local one's once started (null before). */
    URI server() {
        return server;
    }

    /** The local plan (backend, ranks, GPUs); null with --server or before it was decided. */
    AllsumCommand.LocalPlan plan() {
        return plan;
    }

    /** The local cluster's log folder; null with --server or before it started. */
    Path logDir() {
        return logDir;
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
        try (AllsumClient client = Clients.connect(server, target.remote.token)) {
            return body.run(new Where(new JobSession(client, target.group, AllsumCommand::checkInterrupted, progress),
                    false, null));
        }
    }
}
