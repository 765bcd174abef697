package io.allsum.worker.agent;

import io.allsum.client.AllsumClientException;
import io.allsum.model.Backend;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.comm.Communicator;
import io.allsum.comm.PeerFailedException;
import io.allsum.worker.jobs.JobRunner;
import io.allsum.worker.jobs.ProgressListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WorkerAgentTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final ScriptedRendezvous server = new ScriptedRendezvous();
    private final StubCommunicatorFactory factory = new StubCommunicatorFactory(Backend.RING, true);
    private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
    private WorkerAgent agent;

    @AfterEach
    void stopAgent() {
        if (agent != null) {
            agent.stop();
        }
    }

    private WorkerAgent start(int maxRestarts, JobRunner runner) {
        WorkerProperties props = new WorkerProperties(URI.create("http://localhost:1"), "g1", 1, 3,
                BackendChoice.RING, null, null, Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofSeconds(5),
                Duration.ofSeconds(1), maxRestarts, "127.0.0.1", null, true);
        agent = new WorkerAgent(props, server, factory, runner, exitCode::complete, "r1-test", "host-a");
        agent.start();
        return agent;
    }

    private static JobAssignment job(String id, long seq, long generation) {
        return new JobAssignment(id, seq, generation, JobSpec.allSum(64));
    }

    private static final List<RankSizeResult> ONE_ROW = List.of(new RankSizeResult(64, 16, 12.5, 0));

    @Test
    void joinsWithRetriesWhileTheServerIsUnreachableThenBecomesReady() {
        server.joinErrors.add(ScriptedRendezvous.unreachable());
        server.joinErrors.add(ScriptedRendezvous.unreachable());
        start(5, (c, j, stop) -> ONE_ROW);

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY);

        assertThat(server.joins).hasSize(3);
        assertThat(server.joins.getFirst()).satisfies(j -> {
            assertThat(j.group()).isEqualTo("g1");
            assertThat(j.rank()).isEqualTo(1);
            assertThat(j.worldSize()).isEqualTo(3);
            assertThat(j.backend()).isEqualTo(Backend.RING);
            assertThat(j.endpoint()).isEqualTo("127.0.0.1:40001");
            assertThat(j.instanceId()).isEqualTo("r1-test");
        });
        assertThat(factory.generations).containsExactly(1L);
        assertThat(exitCode).isNotDone();
    }

    @Test
    void aRankHeldByItsDeadPredecessorIsWaitedForByCodeWithoutSpendingRestarts() {
        for (int i = 0; i < 3; i++) {
            // The title is for humans and may change; the code is the contract.
            server.joinErrors.add(ScriptedRendezvous.problem(io.allsum.model.problem.ProblemCode.RANK_HELD,
                    "Any wording", "rank 1 is held by live instance r1-old"));
        }
        start(0, (c, j, stop) -> ONE_ROW);

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY);

        assertThat(server.joins).hasSize(4);
        assertThat(agent.status().restarts()).isZero();
        assertThat(exitCode).isNotDone();
    }

    @Test
    void aRestartedServerIsRecognisedByItsEpochAndTheWorkerRejoinsAboveItsGenerationWithAFreshJobCursor() {
        server.generation = 15;
        start(5, (c, j, stop) -> ONE_ROW);
        server.jobs.add(job("job-7", 7, 15));
        await().atMost(WAIT).until(() -> server.polledAfter.contains(7L));
        assertThat(server.joins.getFirst().lastGeneration()).isNull();

        // The new incarnation: no groups, jobs numbered from 1; it forms the group above what members report.
        server.generation = 16;
        server.state = GenerationState.JOINING;
        server.epoch = "epoch-2";

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY
                && agent.status().generation() == 16);
        assertThat(server.joins).hasSize(2);
        assertThat(server.joins.get(1).lastGeneration()).isEqualTo(15L);
        int rejoinedAt = server.polledAfter.size();
        await().atMost(WAIT).until(() -> server.polledAfter.size() > rejoinedAt);
        List<Long> polled = List.copyOf(server.polledAfter); // a subList view of the live list breaks on its next poll
        assertThat(polled.subList(rejoinedAt, polled.size())).allMatch(after -> after == 0);
        assertThat(factory.created.getFirst().aborts).hasPositiveValue();
    }

    @Test
    void heartbeatSeeingANewerGenerationAbortsTheCommunicatorAndRejoins() {
        start(5, (c, j, stop) -> ONE_ROW);
        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY);

        server.state = GenerationState.JOINING;
        server.generation = 2;

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY
                && agent.status().generation() == 2);
        assertThat(factory.created.getFirst().aborts).hasPositiveValue();
        assertThat(factory.created.getFirst().closes).hasValue(1);
        assertThat(factory.generations).containsExactly(1L, 2L);
        assertThat(server.joins).hasSize(2);
    }

    @Test
    void heartbeatSeeingItsGenerationFailedRejoins() {
        start(5, (c, j, stop) -> ONE_ROW);
        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY);

        server.state = GenerationState.FAILED;

        await().atMost(WAIT).until(() -> server.joins.size() == 2);
        assertThat(factory.created.getFirst().aborts).hasPositiveValue();
    }

    @Test
    void peerFailureSeenByTheIdleCommunicatorIsReportedAtOnceAndTheAgentRejoins() {
        start(5, (c, j, stop) -> ONE_ROW);
        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY
                && factory.created.getFirst().failureListener != null);

        factory.created.getFirst().failureListener.accept(new PeerFailedException("idle", 1, 2,
                "at 127.0.0.1:40002 closed its connection while the group was idle", null));

        await().atMost(WAIT).until(() -> !server.failures.isEmpty());
        assertThat(server.failures.getFirst()).satisfies(f -> {
            assertThat(f.failedRank()).isEqualTo(2);
            assertThat(f.generation()).isEqualTo(1L);
        });
        assertThat(factory.created.getFirst().aborts).hasPositiveValue();
        await().atMost(WAIT).until(() -> server.joins.size() == 2);
    }

    @Test
    void successfulJobIsReportedAndTheNextPollStartsAfterItsSeq() {
        start(5, (c, j, stop) -> ONE_ROW);
        server.jobs.add(job("job-7", 7, 1));

        await().atMost(WAIT).until(() -> !server.reports.isEmpty() && server.polledAfter.contains(7L));

        assertThat(server.reports.getFirst()).satisfies(r -> {
            assertThat(r.succeeded()).isTrue();
            assertThat(r.rank()).isEqualTo(1);
            assertThat(r.generation()).isEqualTo(1L);
            assertThat(r.instanceId()).isEqualTo("r1-test");
            assertThat(r.results()).isEqualTo(ONE_ROW);
        });
        assertThat(server.failures).isEmpty();
    }

    /** Measures the first of two sizes, then waits until the server holds its partial report before the second. */
    private JobRunner sweepOfTwoThatWaitsForItsPartialReport(boolean failSecond) {
        return new JobRunner() {
            @Override
            public List<RankSizeResult> run(Communicator comm, JobSpec spec, BooleanSupplier cancelled) {
                throw new AssertionError("the agent passes its progress listener");
            }

            @Override
            public List<RankSizeResult> run(Communicator comm, JobSpec spec, ProgressListener progress,
                                            BooleanSupplier cancelled) {
                progress.sizeCompleted(0, 2, TWO_ROWS.getFirst());
                await().atMost(WAIT).until(() -> !server.reports.isEmpty());
                if (failSecond) {
                    throw new PeerFailedException("all_reduce", 1, 2, "closed its connection", null);
                }
                progress.sizeCompleted(1, 2, TWO_ROWS.get(1));
                return TWO_ROWS;
            }
        };
    }

    private static final List<RankSizeResult> TWO_ROWS = List.of(new RankSizeResult(64, 16, 12.5, 0),
            new RankSizeResult(128, 32, 20, 0));

    @Test
    void eachSizeButTheLastIsReportedAsProgressWhileTheJobRunsThenTheFinalReport() {
        start(5, sweepOfTwoThatWaitsForItsPartialReport(false));
        server.jobs.add(job("job-7", 7, 1));

        await().atMost(WAIT).until(() -> server.reports.size() == 2);

        assertThat(server.reports.getFirst()).satisfies(r -> {
            assertThat(r.isPartial()).isTrue();
            assertThat(r.succeeded()).isTrue();
            assertThat(r.instanceId()).isEqualTo("r1-test");
            assertThat(r.results()).isEqualTo(TWO_ROWS.subList(0, 1));
        });
        assertThat(server.reports.get(1)).satisfies(r -> {
            assertThat(r.isPartial()).isFalse();
            assertThat(r.results()).isEqualTo(TWO_ROWS);
        });
    }

    @Test
    void failedRanksReportCarriesTheSizesItMeasured() {
        start(5, sweepOfTwoThatWaitsForItsPartialReport(true));
        server.jobs.add(job("job-7", 7, 1));

        await().atMost(WAIT).until(() -> server.reports.size() == 2);

        assertThat(server.reports.get(1)).satisfies(r -> {
            assertThat(r.isPartial()).isFalse();
            assertThat(r.succeeded()).isFalse();
            assertThat(r.results()).isEqualTo(TWO_ROWS.subList(0, 1));
        });
    }

    @Test
    void jobFailingWithAPeerFailureReportsTheJobAndTheGenerationNamingThePeerThenRejoins() {
        start(5, (c, j, stop) -> {
            throw new PeerFailedException("all_reduce", 1, 2, "closed its connection", null);
        });
        server.jobs.add(job("job-1", 1, 1));

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY
                && agent.status().generation() == 2);

        assertThat(server.reports).singleElement().satisfies(r -> {
            assertThat(r.succeeded()).isFalse();
            assertThat(r.error()).contains("peer rank 2").contains("all_reduce");
        });
        assertThat(server.failures).singleElement().satisfies(f -> {
            assertThat(f.failedRank()).isEqualTo(2);
            assertThat(f.generation()).isEqualTo(1L);
            assertThat(f.reporterRank()).isEqualTo(1);
        });
        assertThat(factory.created.getFirst().aborts).hasPositiveValue();
    }

    @Test
    void jobThatCannotRunHereIsReportedFailedButTheGenerationGoesOn() {
        start(5, (c, j, stop) -> {
            throw new UnsupportedOperationException("float8 is not supported by the ring backend");
        });
        server.jobs.add(job("job-1", 1, 1));
        server.jobs.add(job("job-2", 2, 1));

        await().atMost(WAIT).until(() -> server.reports.size() == 2);

        assertThat(server.reports).allSatisfy(r -> assertThat(r.error()).contains("float8"));
        assertThat(server.failures).isEmpty();
        assertThat(agent.status().generation()).isEqualTo(1);
        assertThat(factory.created.getFirst().aborts).hasValue(0);
    }

    @Test
    void failedJobPollsArePausedAndRetriedWithoutLeavingTheGeneration() {
        server.pollErrors.add(ScriptedRendezvous.unreachable());
        server.pollErrors.add(new IllegalStateException("unexpected answer"));
        start(5, (c, j, stop) -> ONE_ROW);
        server.jobs.add(job("job-1", 1, 1));

        await().atMost(WAIT).until(() -> server.reports.size() == 1);
        assertThat(server.reports.getFirst().succeeded()).isTrue();
        assertThat(server.joins).hasSize(1);
        assertThat(exitCode).isNotDone();
    }

    @Test
    void jobOfAnEarlierGenerationIsSkipped() {
        server.generation = 3;
        start(5, (c, j, stop) -> ONE_ROW);
        server.jobs.add(job("old", 4, 2));
        server.jobs.add(job("current", 5, 3));

        await().atMost(WAIT).until(() -> server.reports.size() == 1 && server.polledAfter.contains(5L));
        assertThat(server.reports.getFirst().generation()).isEqualTo(3L);
    }

    /** Every join fails with a fresh {@code failure}; with 2 restarts allowed, the agent's exit code. */
    private int exitCodeWhenEveryJoinFails(Supplier<AllsumClientException> failure) throws Exception {
        for (int i = 0; i < 10; i++) {
            server.joinErrors.add(failure.get());
        }
        start(2, (c, j, stop) -> ONE_ROW);
        return exitCode.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void anUnreachableServerIsReportedInTheClientsOneLineWords() throws Exception {
        assertThat(exitCodeWhenEveryJoinFails(() -> new AllsumClientException(0, "Unreachable",
                "cannot reach the rendezvous server at http://127.0.0.1:9 (connection refused)", false, null)))
                .isEqualTo(WorkerAgent.EXIT_RESTARTS_EXHAUSTED);
        assertThat(agent.status().lastFailure())
                .endsWith("last failure: cannot reach the rendezvous server at http://127.0.0.1:9 (connection refused)");
    }

    @Test
    void givesUpWithANonZeroExitAfterMaxRestarts() throws Exception {
        assertThat(exitCodeWhenEveryJoinFails(() -> new AllsumClientException(0, "Join deadline passed",
                "missing ranks [2]", true, null))).isEqualTo(WorkerAgent.EXIT_RESTARTS_EXHAUSTED);
        assertThat(agent.status().state()).isEqualTo(AgentState.FAILED);
        assertThat(agent.status().lastFailure()).contains("gives up after 2 restarts").contains("missing ranks [2]");
        assertThat(server.joins).hasSize(3);
    }

    @Test
    void aRejectedJoinExitsAtOnce() throws Exception {
        server.joinErrors.add(ScriptedRendezvous.problem(401, "Unauthorized", "missing or wrong bearer token"));
        start(5, (c, j, stop) -> ONE_ROW);

        assertThat(exitCode.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(WorkerAgent.EXIT_REJECTED);
        assertThat(agent.status().lastFailure()).contains("401").contains("bearer token");
        assertThat(server.joins).hasSize(1);
    }

    @Test
    void stopAbortsTheJobInFlightLeavesTheGroupAndClosesTheCommunicator() throws Exception {
        CountDownLatch jobStarted = new CountDownLatch(1);
        start(5, (c, j, stop) -> {
            jobStarted.countDown();
            StubCommunicator stub = (StubCommunicator) c;
            // Like a real collective: runs until the communicator is aborted.
            await().atMost(WAIT).until(() -> stub.aborts.get() > 0);
            throw new io.allsum.comm.CommException("all_reduce", 1, "communicator aborted");
        });
        server.jobs.add(job("long", 1, 1));
        assertThat(jobStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        agent.stop();

        assertThat(agent.status().state()).isEqualTo(AgentState.STOPPED);
        assertThat(server.leaves).singleElement().satisfies(l -> {
            assertThat(l.rank()).isEqualTo(1);
            assertThat(l.instanceId()).isEqualTo("r1-test");
        });
        assertThat(factory.created.getFirst().closes).hasValue(1);
        assertThat(exitCode).isNotDone();
    }

    @Test
    void healthIsUpOnlyWhileReadyWithTheGenerationInItsDetails() {
        server.joinErrors.add(ScriptedRendezvous.unreachable());
        CommunicatorHealthIndicator health = new CommunicatorHealthIndicator(start(5, (c, j, stop) -> ONE_ROW));
        assertThat(health.health().getStatus()).isIn(Status.OUT_OF_SERVICE, Status.UP);

        await().atMost(WAIT).until(() -> agent.status().state() == AgentState.READY);
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails()).containsEntry("group", "g1").containsEntry("generation", 1L)
                .containsEntry("rank", 1).containsEntry("backend", Backend.RING);

        agent.stop();
        assertThat(health.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(health.health().getDetails()).containsEntry("state", AgentState.STOPPED);
    }
}
