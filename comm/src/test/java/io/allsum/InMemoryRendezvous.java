package io.allsum;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One group's rendezvous in memory, for the library's tests: a generation completes once every rank joined, a
 * failure report or a leave fails it (heartbeats then say so). One instance is shared by the ranks' clients.
 */
final class InMemoryRendezvous {

    private final int worldSize;
    private final List<JoinRequest> joins = new ArrayList<>();
    private GroupView complete;
    private String failure;
    private long generation = 1;
    final List<String> events = new CopyOnWriteArrayList<>();

    InMemoryRendezvous(int worldSize) {
        this.worldSize = worldSize;
    }

    AllsumClient client() {
        return new Client();
    }

    private synchronized GroupView join(JoinRequest request, Duration deadline) {
        if (complete != null && failure != null) {
            generation++;
            complete = null;
            failure = null;
            joins.clear();
        }
        joins.removeIf(j -> j.rank().equals(request.rank()));
        joins.add(request);
        if (joins.size() == worldSize) {
            List<Member> members = joins.stream().sorted(Comparator.comparing(JoinRequest::rank))
                    .map(j -> new Member(j.rank(), j.instanceId(), j.endpoint(), j.host(), j.device())).toList();
            String id = joins.stream().filter(j -> j.rank() == 0).findFirst().orElseThrow().uniqueId();
            complete = new GroupView(request.group(), generation, worldSize, request.backend(), id, members);
            notifyAll();
        }
        long end = System.nanoTime() + deadline.toNanos();
        long mine = generation;
        while (complete == null || complete.generation() != mine) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AllsumClientException(408, "Request Timeout", "missing ranks", true, null);
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AllsumClientException(0, "interrupted", "interrupted", false, e);
            }
        }
        return complete;
    }

    private synchronized HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
        GenerationState state = failure != null ? GenerationState.FAILED : GenerationState.COMPLETE;
        return new HeartbeatResponse(group, generation, state, failure);
    }

    private synchronized void fail(String why) {
        events.add(why);
        if (failure == null) {
            failure = why;
        }
    }

    private final class Client implements AllsumClient {
        @Override
        public JoinAnswer joinOnce(JoinRequest request, Duration wait) {
            return new JoinAnswer(join(request, wait), null);
        }

        @Override
        public GroupView join(JoinRequest request, Duration deadline) {
            return InMemoryRendezvous.this.join(request, deadline);
        }

        @Override
        public GroupView view(String group, long gen) {
            synchronized (InMemoryRendezvous.this) {
                return complete;
            }
        }

        @Override
        public HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
            return InMemoryRendezvous.this.heartbeat(group, request);
        }

        @Override
        public void reportFailure(String group, FailureReport report) {
            fail("failure reported by rank " + report.reporterRank() + ": " + report.reason());
        }

        @Override
        public void leave(String group, LeaveRequest request) {
            fail("rank " + request.rank() + " left");
        }

        @Override
        public GroupStatus status(String group) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void closeGroup(String group) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Job submitJob(String group, JobSpec spec) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Job job(String group, String jobId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Job awaitJob(String group, String jobId, JobState seenState, int seenRows, Duration wait) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<Job> jobs(String group) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Job cancelJob(String group, String jobId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq,
                                               Duration wait) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void report(String group, String jobId, RankReport report) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
