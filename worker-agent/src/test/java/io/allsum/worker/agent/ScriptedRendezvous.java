package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.Member;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory stand-in for the rendezvous server, scripted by each test: joins complete into the server's current
 * generation unless a scripted error comes first, heartbeats answer the server's generation and state, jobs come
 * from a queue. Everything the agent sends is recorded.
 */
final class ScriptedRendezvous implements AllsumClient {

    volatile long generation = 1;
    volatile GenerationState state = GenerationState.COMPLETE;
    /** The scripted server's incarnation; a new value is a restarted server. */
    volatile String epoch = "epoch-1";
    final Deque<AllsumClientException> joinErrors = new ArrayDeque<>();
    final Deque<RuntimeException> pollErrors = new ArrayDeque<>();
    final BlockingQueue<JobAssignment> jobs = new LinkedBlockingQueue<>();
    final List<JoinRequest> joins = new CopyOnWriteArrayList<>();
    private volatile GroupView lastView;
    final List<Long> polledAfter = new CopyOnWriteArrayList<>();
    final List<RankReport> reports = new CopyOnWriteArrayList<>();
    final List<FailureReport> failures = new CopyOnWriteArrayList<>();
    final List<LeaveRequest> leaves = new CopyOnWriteArrayList<>();

    static AllsumClientException unreachable() {
        return new AllsumClientException(0, "Unreachable", "connection refused: localhost:1", false, null);
    }

    static AllsumClientException problem(int status, String title, String detail) {
        return new AllsumClientException(status, title, detail, false, null);
    }

    /** A problem answer with its machine-readable code, as the real server sends it. */
    static AllsumClientException problem(io.allsum.model.problem.ProblemCode code, String title, String detail) {
        return new AllsumClientException(code.status(), title, detail, code.wireCode(), List.of());
    }

    @Override
    public JoinAnswer joinOnce(JoinRequest request, Duration wait) {
        return new JoinAnswer(join(request, wait), null);
    }

    @Override
    public GroupView join(JoinRequest request, Duration deadline) {
        joins.add(request);
        synchronized (joinErrors) {
            if (!joinErrors.isEmpty()) {
                throw joinErrors.removeFirst();
            }
        }
        state = GenerationState.COMPLETE;
        GroupView view = new GroupView(request.group(), generation, request.worldSize(), Backend.RING, null,
                List.of(new Member(request.rank(), request.instanceId(), request.endpoint(), request.host(), null)),
                epoch);
        lastView = view;
        return view;
    }

    /** The members of the last completed join (the agent's ring fetches them after a compact join). */
    @Override
    public GroupView view(String group, long generation) {
        GroupView view = lastView;
        if (view == null || view.generation() != generation) {
            throw problem(io.allsum.model.problem.ProblemCode.CONFLICT, "Conflict", "generation " + generation
                    + " is not complete");
        }
        return view;
    }

    @Override
    public HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
        return new HeartbeatResponse(group, generation, state, state == GenerationState.FAILED ? "rank 1 died" : null,
                epoch);
    }

    @Override
    public Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq, Duration wait) {
        polledAfter.add(afterSeq);
        synchronized (pollErrors) {
            if (!pollErrors.isEmpty()) {
                throw pollErrors.removeFirst();
            }
        }
        try {
            // A short server-side wait keeps the agent's loop responsive in tests.
            return Optional.ofNullable(jobs.poll(20, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public void report(String group, String jobId, RankReport report) {
        reports.add(report);
    }

    @Override
    public void reportFailure(String group, FailureReport report) {
        failures.add(report);
        // The real server fails the generation and opens the next one.
        state = GenerationState.FAILED;
        generation++;
    }

    @Override
    public void leave(String group, LeaveRequest request) {
        leaves.add(request);
    }

    @Override
    public GroupStatus status(String group) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public void closeGroup(String group) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public Job submitJob(String group, JobSpec spec) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public Job job(String group, String jobId) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public Job awaitJob(String group, String jobId, JobState seenState, int seenRows, Duration wait) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public List<Job> jobs(String group) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public Job cancelJob(String group, String jobId) {
        throw new UnsupportedOperationException("not used by the agent");
    }

    @Override
    public Optional<String> serverEpoch() {
        return Optional.ofNullable(epoch);
    }

    @Override
    public void close() {
    }
}
