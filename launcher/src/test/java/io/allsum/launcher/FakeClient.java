package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
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
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** Scripted answers for the calls the launcher makes; every other call fails the test. */
class FakeClient implements AllsumClient {

    final Deque<Supplier<GroupStatus>> statuses = new ArrayDeque<>();
    final Deque<Job> jobAnswers = new ArrayDeque<>();
    final List<String> cancelled = new ArrayList<>();
    JobSpec submittedSpec;
    Job submitAnswer;

    static Job job(JobState state) {
        return new Job("j-1", "g", 1, 1L, JobSpec.allSum(8), state, null, null, null, null, List.of(), null, List.of());
    }

    @Override
    public GroupStatus status(String group) {
        Supplier<GroupStatus> next = statuses.size() > 1 ? statuses.poll() : statuses.peek();
        return next.get();
    }

    @Override
    public Job submitJob(String group, JobSpec spec) {
        submittedSpec = spec;
        return submitAnswer;
    }

    @Override
    public Job job(String group, String jobId) {
        return jobAnswers.size() > 1 ? jobAnswers.poll() : jobAnswers.peek();
    }

    @Override
    public Job awaitJob(String group, String jobId, JobState seenState, int seenRows, Duration wait) {
        return job(group, jobId);
    }

    @Override
    public Job cancelJob(String group, String jobId) {
        cancelled.add(jobId);
        return job(JobState.CANCELLED);
    }

    static AllsumClientException notFound() {
        return new AllsumClientException(404, "Not Found", "no group 'g'", false, null);
    }

    @Override
    public JoinAnswer joinOnce(JoinRequest request, Duration wait) {
        throw new UnsupportedOperationException();
    }

    @Override
    public GroupView join(JoinRequest request, Duration deadline) {
        throw new UnsupportedOperationException();
    }

    @Override
    public HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void reportFailure(String group, FailureReport report) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void leave(String group, LeaveRequest request) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void closeGroup(String group) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Job> jobs(String group) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq, Duration wait) {
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
