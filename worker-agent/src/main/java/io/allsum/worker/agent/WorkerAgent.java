package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.client.RetryPolicy;
import io.allsum.model.Backend;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.rendezvous.Endpoint;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.rendezvous.RankView;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory;
import io.allsum.comm.join.GroupJoin;
import io.allsum.worker.jobs.JobCursor;
import io.allsum.worker.jobs.JobRunner;
import io.allsum.worker.jobs.PartialReports;
import io.allsum.worker.jobs.ValidationRunner;
import io.allsum.worker.jobs.ReportDelivery;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The worker's life, on one agent thread: JOINING (rendezvous with retries, then the communicator) -> READY (jobs
 * long-polled and run in the group's order, heartbeats on a scheduler) -> RECOVERING when the generation breaks
 * (the server says so, a collective fails, or the communicator sees a peer die while idle) -> JOINING the next
 * generation. Restarts are bounded ({@link RestartBudget}): past {@code maxRestarts} failures within the restart
 * window the agent logs why and ends the process non-zero. Stopping the application leaves the group and closes the
 * communicator.
 */
public class WorkerAgent implements SmartLifecycle {

    static final int EXIT_REJECTED = 2;
    static final int EXIT_RESTARTS_EXHAUSTED = 3;
    static final int EXIT_UNEXPECTED = 4;

    private static final Logger log = LoggerFactory.getLogger(WorkerAgent.class);
    private static final Set<ProblemCode> PERMANENT_REJECTIONS = GroupJoin.PERMANENT_REJECTIONS;
    private static final Set<ProblemCode> GENERATION_GONE = GroupJoin.GENERATION_GONE;
    private static final Duration STALE_HOLDER_RETRY = Duration.ofMillis(500);
    static final Duration DEFAULT_RESTART_WINDOW = Duration.ofMinutes(10);
    /** Pause before re-joining after the n-th restart: 200 ms doubling up to 5 s, at least half of that. */
    private static final RetryPolicy RESTART_BACKOFF =
            new RetryPolicy(Duration.ofMillis(100), 2.0, Duration.ofSeconds(5), Duration.ZERO);
    private static final Duration LEAVE_DEADLINE = Duration.ofSeconds(3);

    private final WorkerProperties props;
    private final AllsumClient client;
    private final CommunicatorFactory factory;
    private final JobRunner runner;
    private final AgentExit exit;
    private final String instanceId;
    private final String hostName;
    /** The join steps, heartbeat verdicts and failure reports the library's Allsum.init() shares. */
    private final GroupJoin join;

    private final Object lifecycleLock = new Object();
    private volatile boolean running;
    private volatile boolean stopping;
    private volatile ActiveGeneration current;
    private volatile AgentStatus status;
    private Thread agentThread;
    private ScheduledExecutorService heartbeats;

    private final ReportDelivery reports;
    /** Touched only by the agent thread. */
    private final JobCursor cursor = new JobCursor();
    /** The generation this worker last joined (0: none yet); reported in joins so a restarted server goes above. */
    private long lastGeneration;
    /** The server incarnation of the last join answer; null before the first or from a server without epochs. */
    private String serverEpoch;
    private final RestartBudget restartBudget;
    /** Failures within the restart window, as last counted (for the status). */
    private volatile int restarts;
    /** When a join first found this rank held by another (dead) instance; null otherwise. */
    private Instant staleHolderSince;

    public WorkerAgent(WorkerProperties props, AllsumClient client, CommunicatorFactory factory, JobRunner runner,
                       AgentExit exit, String instanceId, String hostName) {
        this(props, client, factory, runner, exit, instanceId, hostName, DEFAULT_RESTART_WINDOW);
    }

    public WorkerAgent(WorkerProperties props, AllsumClient client, CommunicatorFactory factory, JobRunner runner,
                       AgentExit exit, String instanceId, String hostName, Duration restartWindow) {
        this.restartBudget = new RestartBudget(props.maxRestarts(), restartWindow);
        this.props = props;
        this.client = client;
        this.factory = factory;
        this.runner = runner;
        this.exit = exit;
        this.instanceId = instanceId;
        this.hostName = hostName;
        this.join = new GroupJoin(client, factory, props.group(), props.rank(), props.worldSize(), instanceId,
                hostName, props.device());
        this.reports = new ReportDelivery(client, ReportDelivery.Settings.DEFAULT);
        this.status = new AgentStatus(AgentState.STARTING, props.group(), 0, props.rank(), props.worldSize(),
                factory.backend(), 0, null);
    }

    public AgentStatus status() {
        return status;
    }

    public String instanceId() {
        return instanceId;
    }

    // ---- lifecycle ----

    @Override
    public void start() {
        synchronized (lifecycleLock) {
            if (running) {
                return;
            }
            running = true;
            stopping = false;
            log.info("allsum worker rank {} of {} in group '{}' (backend {}, instance {}) joining {}",
                    props.rank(), props.worldSize(), props.group(), factory.backend(), instanceId, props.server());
            heartbeats = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                    .name("allsum-heartbeat-r" + props.rank()).factory());
            long every = props.heartbeatInterval().toMillis();
            heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
            // Daemon: a stuck client call must never keep the JVM alive after the context closed.
            agentThread = Thread.ofPlatform().daemon().name("allsum-agent-r" + props.rank()).start(this::runAgent);
        }
    }

    @Override
    public void stop() {
        Thread thread;
        synchronized (lifecycleLock) {
            if (!running) {
                return;
            }
            running = false;
            stopping = true;
            thread = agentThread;
        }
        ActiveGeneration generation = current;
        if (generation != null) {
            generation.markBroken("worker rank " + props.rank() + " is shutting down");
        }
        heartbeats.shutdownNow();
        if (thread != Thread.currentThread()) {
            thread.interrupt();
            joinQuietly(thread, props.heartbeatInterval().plus(Duration.ofSeconds(5)));
        }
        reports.close();
        leaveGroup();
        if (generation != null) {
            generation.close();
        }
        if (status.state() != AgentState.FAILED) {
            setStatus(AgentState.STOPPED, generation, null);
        }
    }

    /** Tells the server this rank is gone, so that the others learn it at once; never holds shutdown up long. */
    private void leaveGroup() {
        Thread leaving = Thread.ofVirtual().name("allsum-leave").start(() -> {
            try {
                join.leave();
                log.info("Rank {} left group '{}'", props.rank(), props.group());
            } catch (RuntimeException e) {
                log.warn("Rank {} could not leave group '{}': {}", props.rank(), props.group(), e.getMessage());
            }
        });
        // An unreachable server would otherwise keep the client retrying for its whole deadline.
        joinQuietly(leaving, LEAVE_DEADLINE);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    // ---- the agent thread ----

    private void runAgent() {
        try {
            while (!stopping) {
                ActiveGeneration generation = formGeneration();
                if (generation == null) {
                    return;
                }
                current = generation;
                setStatus(AgentState.READY, generation, null);
                log.info("Rank {} READY in generation {} of group '{}' ({} ranks, {})", props.rank(),
                        generation.number(), props.group(), props.worldSize(), factory.backend());
                serveJobs(generation);
                current = null;
                generation.markBroken("worker rank " + props.rank() + " left generation " + generation.number());
                generation.close();
                if (stopping) {
                    return;
                }
                recover("generation " + generation.number() + " broke: " + generation.brokenReason());
            }
        } catch (FatalAgentException e) {
            giveUp(e.exitCode(), e.getMessage());
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                log.error("Worker agent rank {} failed unexpectedly", props.rank(), e);
                giveUp(EXIT_UNEXPECTED, "worker agent rank " + props.rank() + " failed unexpectedly: " + e);
            }
        }
    }

    /** Joins until a generation completes and its communicator is built; null when stopping. */
    private ActiveGeneration formGeneration() {
        while (!stopping) {
            setStatus(AgentState.JOINING, null, status.lastFailure());
            RankView answer;
            try {
                answer = join.join(lastGeneration, props.joinDeadline());
            } catch (AllsumClientException e) {
                if (stopping) {
                    return null;
                }
                if (isAny(e, PERMANENT_REJECTIONS)) {
                    throw new FatalAgentException(EXIT_REJECTED, "rendezvous server " + props.server()
                            + " rejected the join of rank " + props.rank() + ": " + e.getMessage(), e);
                }
                if (awaitStaleHolder(e)) {
                    continue;
                }
                // Unreachable: the client's message already reads "cannot reach the rendezvous server at URL (why)".
                recover(e.status() == 0 && !e.timedOut()
                        ? e.getMessage()
                        : "join of rank " + props.rank() + " at " + props.server() + " failed: " + e.getMessage());
                continue;
            } catch (CommException e) {
                recover("preparing the join of rank " + props.rank() + " failed: " + e.getMessage());
                continue;
            }
            GroupView view;
            try {
                view = join.fullView(answer);
            } catch (AllsumClientException e) {
                if (stopping) {
                    return null;
                }
                recover("fetching the members of generation " + answer.generation() + " failed: " + e.getMessage());
                continue;
            }
            adoptServer(view);
            log.info("Rank {} joined generation {} of group '{}'; building the {} communicator", props.rank(),
                    view.generation(), props.group(), factory.backend());
            try {
                Communicator communicator = join.build(view, props.collectiveDeadline());
                ActiveGeneration generation = new ActiveGeneration(view, communicator);
                watchForFailures(generation);
                return generation;
            } catch (CommException e) {
                if (stopping) {
                    return null;
                }
                reportGenerationFailure(view.generation(), e);
                recover("communicator set-up for generation " + view.generation() + " failed: " + e.getMessage());
            }
        }
        return null;
    }

    /**
     * Remembers the generation joined, and when the answer comes from another server incarnation than the last
     * one, drops what this worker held from the old server: its job cursor (the new server numbers jobs from 1).
     */
    private void adoptServer(GroupView view) {
        if (view.epoch() != null && serverEpoch != null && !view.epoch().equals(serverEpoch)) {
            log.warn("Rank {}: the rendezvous server restarted (epoch {} -> {}); job cursor {} reset to 0, "
                    + "generation {} continues above {}", props.rank(), serverEpoch, view.epoch(), cursor.after(),
                    view.generation(), lastGeneration);
            cursor.reset();
        }
        if (view.epoch() != null) {
            serverEpoch = view.epoch();
        }
        lastGeneration = Math.max(lastGeneration, view.generation());
    }

    /** Whether an answer came from another server incarnation than {@code generation}'s (the server restarted). */
    private static boolean otherIncarnation(ActiveGeneration generation, String epoch) {
        return epoch != null && generation.view().epoch() != null && !epoch.equals(generation.view().epoch());
    }

    /** Long-polls jobs and runs them, in the group's order, until the generation breaks or the agent stops. */
    private void serveJobs(ActiveGeneration generation) {
        while (!stopping && !generation.isBroken()) {
            Optional<JobAssignment> next;
            try {
                next = client.nextJob(props.group(), props.rank(), instanceId, cursor.after(), props.jobPollWait());
            } catch (RuntimeException e) {
                if (stopping) {
                    return;
                }
                if (restarted(generation)) {
                    return;
                }
                if (e instanceof AllsumClientException problem && isAny(problem, GENERATION_GONE)) {
                    generation.markBroken("job poll answered " + problem.getMessage());
                    return;
                }
                // Heartbeats decide whether the generation still stands; just do not spin.
                log.warn("Rank {}: polling for jobs failed: {}", props.rank(), e.getMessage());
                sleep(props.heartbeatInterval());
                continue;
            }
            if (restarted(generation)) {
                return; // a job of the new server must not be taken with the old server's cursor
            }
            if (next.isEmpty()) {
                continue;
            }
            JobAssignment job = next.get();
            cursor.received(job.seq());
            if (job.generation() < generation.number()) {
                log.info("Rank {} skips job {} (seq {}) of an earlier generation {}", props.rank(), job.jobId(),
                        job.seq(), job.generation());
                continue;
            }
            if (job.generation() > generation.number()) {
                generation.markBroken("job " + job.jobId() + " belongs to generation " + job.generation()
                        + ", a newer one than " + generation.number());
                return;
            }
            runJob(generation, job);
        }
    }

    /** The job path saw another server incarnation: the generation is gone with the old server. */
    private boolean restarted(ActiveGeneration generation) {
        String epoch = client.serverEpoch().orElse(null);
        if (!otherIncarnation(generation, epoch)) {
            return false;
        }
        generation.markBroken("the rendezvous server restarted (epoch " + generation.view().epoch() + " -> " + epoch
                + ")");
        return true;
    }

    private void runJob(ActiveGeneration generation, JobAssignment job) {
        log.info("Rank {} runs job {} (seq {}): {} {} {}..{} B", props.rank(), job.jobId(), job.seq(),
                job.spec().op(), job.spec().dtype(), job.spec().minBytes(), job.spec().maxBytes());
        PartialReports progress = new PartialReports(client, props.group(), job.jobId(), props.rank(), instanceId,
                generation.number());
        try {
            if (job.spec().validates()) {
                runValidation(generation, job);
                return;
            }
            List<RankSizeResult> results = runner.run(generation.communicator(), job.spec(), progress,
                    () -> stopping || generation.isBroken());
            progress.close();
            report(job, new RankReport(props.rank(), instanceId, generation.number(), true, null, results));
        } catch (CommException e) {
            progress.close();
            boolean brokeHere = generation.markBroken(e.getMessage());
            String reason = brokeHere ? e.getMessage() : generation.brokenReason() + " (" + e.getMessage() + ")";
            log.warn("Rank {}: job {} failed: {}", props.rank(), job.jobId(), reason);
            report(job, failed(generation, "rank " + props.rank() + ": " + reason, progress));
            if (brokeHere) {
                reportGenerationFailure(generation.number(), e);
            }
        } catch (RuntimeException e) {
            progress.close();
            if (generation.isBroken()) {
                report(job, failed(generation, "rank " + props.rank() + ": " + generation.brokenReason(), progress));
                return;
            }
            // The spec cannot run here (an unsupported op/dtype, say): every rank refuses it alike, the
            // communicator is untouched and the generation goes on.
            log.warn("Rank {}: job {} failed: {}", props.rank(), job.jobId(), e.toString());
            report(job, failed(generation, "rank " + props.rank() + ": " + e.getMessage(), progress));
        } finally {
            progress.close();
        }
    }

    /** A validation: progress reports after each phase, then the final one with the sweep and the figures. */
    private void runValidation(ActiveGeneration generation, JobAssignment job) {
        int worldSize = generation.communicator().size();
        Map<Integer, Member> members = new HashMap<>();
        if (generation.view().members() != null) {
            generation.view().members().forEach(m -> members.put(m.rank(), m));
        }
        List<RankPlace> places = IntStream.range(0, worldSize).mapToObj(rank -> place(rank, members.get(rank)))
                .toList();
        ValidationRunner.Outcome outcome = new ValidationRunner(runner).run(generation.communicator(), job.spec(),
                places, soFar -> report(job, new RankReport(props.rank(), instanceId, generation.number(), true,
                        null, List.of(), true, soFar)), () -> stopping || generation.isBroken());
        report(job, new RankReport(props.rank(), instanceId, generation.number(), true, null, outcome.results(),
                null, outcome.validation()));
    }

    /**
     * Where {@code rank} runs, as validation names it: the ring endpoint's host (the address peers dial, which tells
     * hosts apart even where names do not), else the member's host name; its device, else cpu or gpu.
     */
    private RankPlace place(int rank, Member member) {
        boolean self = rank == props.rank();
        String host = Endpoint.tryParse(member != null ? member.endpoint() : null).map(Endpoint::host)
                .orElse(member != null && member.host() != null ? member.host() : self ? hostName : "rank-" + rank);
        String device = member != null && member.device() != null ? member.device()
                : self && props.device() != null ? props.device() : factory.backend() == Backend.RING ? "cpu" : "gpu";
        return new RankPlace(rank, host, device);
    }

    /** A failed rank's report, with the sizes it measured before failing (the job's rows keep them). */
    private RankReport failed(ActiveGeneration generation, String error, PartialReports progress) {
        return new RankReport(props.rank(), instanceId, generation.number(), false, error, progress.measured());
    }

    private void report(JobAssignment job, RankReport report) {
        reports.deliver(props.group(), job.jobId(), report);
    }

    /** Tells the server the generation failed, naming the peer when the communicator knows it. */
    private void reportGenerationFailure(long generation, CommException e) {
        try {
            join.reportFailure(generation, e);
        } catch (RuntimeException reportError) {
            log.warn("Rank {} could not report the failure of generation {}: {}", props.rank(), generation,
                    reportError.getMessage());
        }
    }

    /**
     * A restarted worker finds its rank still held by its dead predecessor until the server drops that holder
     * (one heartbeat timeout). That is expected, not a failure: wait for it, within the join deadline, without
     * spending restarts. True when the caller should simply join again.
     */
    private boolean awaitStaleHolder(AllsumClientException e) {
        if (!e.is(ProblemCode.RANK_HELD)) {
            staleHolderSince = null;
            return false;
        }
        Instant now = Instant.now();
        if (staleHolderSince == null) {
            staleHolderSince = now;
            log.info("Rank {}: {}; waiting for the server to drop the old holder", props.rank(), e.detail());
        }
        if (Duration.between(staleHolderSince, now).compareTo(props.joinDeadline()) > 0) {
            staleHolderSince = null;
            return false;
        }
        sleep(STALE_HOLDER_RETRY);
        return true;
    }

    /**
     * A failure the communicator finds on its own (a peer's connection closed while idle) ends the generation at
     * once and is reported to the server, which then fails the generation for every member.
     */
    private void watchForFailures(ActiveGeneration generation) {
        generation.communicator().onFailure(e -> {
            if (generation.markBroken(e.getMessage())) {
                log.warn("Rank {}: generation {} is over: {}", props.rank(), generation.number(), e.getMessage());
                Thread.ofVirtual().name("allsum-failure-report")
                        .start(() -> reportGenerationFailure(generation.number(), e));
            }
        });
    }

    /** Counts one failure, gives up past the budget, else backs off before the next join. */
    private void recover(String reason) {
        boolean withinBudget = restartBudget.recordFailure();
        restarts = restartBudget.failuresInWindow();
        if (!withinBudget) {
            throw new FatalAgentException(EXIT_RESTARTS_EXHAUSTED, "worker rank " + props.rank() + " of group '"
                    + props.group() + "' gives up after " + props.maxRestarts() + " restarts within "
                    + restartBudget.window() + " (" + restarts + " failures); last failure: " + reason, null);
        }
        setStatus(AgentState.RECOVERING, null, reason);
        log.warn("Rank {}: {}; re-joining (failure {} of {} allowed within {})", props.rank(), reason, restarts,
                props.maxRestarts(), restartBudget.window());
        sleep(RESTART_BACKOFF.pauseAtLeastHalf(restarts));
    }

    private void giveUp(int exitCode, String message) {
        setStatus(AgentState.FAILED, null, message);
        log.error("{} (exit code {})", message, exitCode);
        exit.exit(exitCode);
    }

    // ---- heartbeats ----

    private void heartbeat() {
        ActiveGeneration generation = current;
        if (generation == null || generation.isBroken() || stopping) {
            return;
        }
        try {
            join.heartbeat(generation.view()).ifPresent(why -> {
                if (generation.markBroken(why)) {
                    log.warn("Rank {}: generation {} is over: {}", props.rank(), generation.number(), why);
                }
            });
        } catch (AllsumClientException e) {
            log.warn("Rank {}: heartbeat failed: {}", props.rank(), e.getMessage());
        } catch (RuntimeException e) {
            log.warn("Rank {}: heartbeat failed: {}", props.rank(), e.toString());
        }
    }

    // ---- helpers ----

    private void setStatus(AgentState state, ActiveGeneration generation, String lastFailure) {
        long number = generation != null ? generation.number() : status.generation();
        status = new AgentStatus(state, props.group(), number, props.rank(), props.worldSize(), factory.backend(),
                restarts, lastFailure);
    }

    /** Whether the server answered a problem with one of these codes (never when it could not be reached). */
    private static boolean isAny(AllsumClientException e, Set<ProblemCode> codes) {
        return GroupJoin.isAny(e, codes);
    }

    private void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (!stopping) {
                throw new IllegalStateException("agent thread interrupted", e);
            }
        }
    }

    private static void joinQuietly(Thread thread, Duration timeout) {
        try {
            if (!thread.join(timeout)) {
                log.warn("Thread {} still busy after {}; shutting down anyway", thread.getName(), timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
