package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Typed client of protocol v1 (docs/protocol.md) for workers and any Java program. Every call has a deadline;
 * connection errors and 503 are retried with exponential backoff and jitter until that deadline. An HTTP error
 * answer becomes an {@link AllsumClientException} carrying the server's ProblemDetail.
 */
public interface AllsumClient extends AutoCloseable {

    /** One join request: the completed group (200) or where it stands (202), waiting at most {@code wait} server-side. */
    JoinAnswer joinOnce(JoinRequest request, Duration wait);

    /**
     * Joins and re-posts after each 202 until the generation completes or {@code deadline} passes.
     *
     * @throws AllsumClientException ({@link AllsumClientException#timedOut()} true) naming the missing ranks when
     *                               the deadline passes first
     */
    GroupView join(JoinRequest request, Duration deadline);

    /**
     * Like {@link #join}, but asks for the compact answer ({@code view=rank}): the id, the generation, the world
     * size, this rank and, for the ring, its two neighbours; a constant size whatever the world size. This default
     * derives it from the full view, for clients (test doubles) that only implement {@link #join}.
     */
    default RankView joinRank(JoinRequest request, Duration deadline) {
        GroupView view = join(request, deadline);
        int rank = request.rank();
        List<Member> members = view.members();
        int n = members == null ? 0 : members.size();
        boolean ring = view.backend() == Backend.RING && n > 0;
        return new RankView(view.group(), view.generation(), view.worldSize(), view.backend(), view.uniqueId(), rank,
                ring ? members.get((rank - 1 + n) % n) : null, ring ? members.get((rank + 1) % n) : null, null,
                view.epoch());
    }

    /**
     * The complete generation's full member list ({@code GET /rendezvous/{group}/view}); never carries the unique
     * id. Implementations may answer from a cache validated by ETag.
     *
     * @param generation the generation wanted; the server answers 409 (an {@link AllsumClientException}) when
     *                   that is not the complete one
     */
    default GroupView view(String group, long generation) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not fetch views");
    }

    GroupStatus status(String group);

    HeartbeatResponse heartbeat(String group, HeartbeatRequest request);

    void reportFailure(String group, FailureReport report);

    void leave(String group, LeaveRequest request);

    /** Closes the group on the server: every generation ends, waiting joins are answered 410. */
    void closeGroup(String group);

    Job submitJob(String group, JobSpec spec);

    Job job(String group, String jobId);

    /**
     * Long-polls the job: answers once its state differs from {@code seenState} or it has more than {@code seenRows}
     * rows of results, or as it stands once {@code wait} ran out.
     */
    Job awaitJob(String group, String jobId, JobState seenState, int seenRows, Duration wait);

    List<Job> jobs(String group);

    Job cancelJob(String group, String jobId);

    /** Long-polls for the job after sequence number {@code afterSeq}; empty when {@code wait} ran out. */
    Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq, Duration wait);

    void report(String group, String jobId, RankReport report);

    /**
     * The server incarnation ({@code Allsum-Server-Epoch}) of the latest answer this client received; empty before
     * the first answer or from a server that sends none. A value that changes means the server restarted: it holds
     * none of the old groups, generations or job sequence numbers, so a job cursor ({@code afterSeq}) must restart
     * at 0.
     */
    default Optional<String> serverEpoch() {
        return Optional.empty();
    }

    @Override
    void close();

    /** The answer to one join: exactly one of {@code complete} and {@code pending} is set. */
    record JoinAnswer(GroupView complete, JoinPending pending) {
        public boolean isComplete() {
            return complete != null;
        }
    }
}
