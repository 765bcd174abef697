package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CollectiveJobRunnerTest {

    /** 1, 3, 9, 27, 81 bytes requested: after rounding, empty sizes and counts not divisible by the world size. */
    /** {@code root} applies to rooted ops only: the others take the default, as the server's rules require. */
    private static JobSpec sweep(CollectiveOp op, DataType type, ReduceOp redop, int root, boolean inPlace) {
        return JobSpec.builder().collective(op, type, redop).root(op.rooted() ? root : 0).sizes(1L, 200L).stepFactor(3)
                .iterations(2, 1).inPlace(inPlace).build();
    }

    private static List<ReduceOp> redopsOf(CollectiveOp op) {
        return op.reduces() ? List.of(ReduceOp.values()) : List.of(ReduceOp.SUM);
    }

    static Stream<Arguments> opsAndTypes() {
        return Arrays.stream(CollectiveOp.values())
                .flatMap(op -> Arrays.stream(DataType.values()).map(type -> Arguments.of(op, type)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("opsAndTypes")
    void everyRankReportsZeroWrongForEveryReductionWorldSizeAndPlacement(CollectiveOp op, DataType type) {
        List<String> failures = new ArrayList<>();
        for (int n = 1; n <= 4; n++) {
            for (boolean inPlace : new boolean[]{false, true}) {
                for (ReduceOp redop : redopsOf(op)) {
                    JobSpec spec = sweep(op, type, redop, n - 1, inPlace);
                    List<List<RankSizeResult>> perRank = Ranks.onEveryRank(n,
                            comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));
                    for (int rank = 0; rank < n; rank++) {
                        List<RankSizeResult> results = perRank.get(rank);
                        if (results.size() != spec.sizes(n).size()
                                || results.stream().anyMatch(r -> r.wrongElements() != 0)) {
                            failures.add("n=" + n + " inPlace=" + inPlace + " " + redop + " rank " + rank + ": "
                                    + results);
                        }
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void sweepSkipsSizesBelowOneShareAndHandlesCountsNotDivisibleByTheWorldSize() {
        JobSpec spec = sweep(CollectiveOp.ALL_GATHER, DataType.FLOAT32, ReduceOp.SUM, 0, false);

        List<RankSizeResult> results = Ranks.onEveryRank(3,
                comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE)).getFirst();

        // 1, 3, 9 bytes hold no whole share of 3 floats (skipped); 27 rounds to 24 B (2 floats each); 81 to 72 B.
        assertThat(results).extracting(RankSizeResult::bytes).containsExactly(24L, 72L);
        assertThat(results).extracting(RankSizeResult::count).containsExactly(2L, 6L);
        assertThat(results).extracting(RankSizeResult::wrongElements).containsOnly(0L);
        assertThat(results).allSatisfy(r -> assertThat(r.timeMicros()).isNotNegative());
    }

    @Test
    void sizesBeyondOnePatternPeriodAndOneStagingChunkVerify() {
        long bytes = (5L << 20) + 12;
        JobSpec spec = JobSpec.builder().collective(CollectiveOp.REDUCE_SCATTER, DataType.FLOAT32, ReduceOp.SUM)
                .size(bytes).iterations(1, 0).inPlace(true).build();

        List<List<RankSizeResult>> perRank = Ranks.onEveryRank(3,
                comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));

        assertThat(perRank).allSatisfy(results -> assertThat(results).singleElement().satisfies(r -> {
            assertThat(r.count()).isEqualTo(bytes / 4 / 3);
            assertThat(r.wrongElements()).isZero();
        }));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("opsAndTypes")
    void faultyRankReportsExactlyTheElementsItCorrupted(CollectiveOp op, DataType type) {
        int worldSize = 3;
        int faultyRank = 1;
        int corrupted = 3;
        List<ReduceOp> redops = type.isFloatingPoint() && op.reduces() ? List.of(ReduceOp.SUM, ReduceOp.AVG)
                : List.of(ReduceOp.SUM);
        for (ReduceOp redop : redops) {
            for (boolean inPlace : new boolean[]{false, true}) {
                JobSpec spec = sweep(op, type, redop, faultyRank, inPlace);
                List<List<RankSizeResult>> perRank = Ranks.onEveryRank(
                        new InMemoryCommunicator.World(worldSize, false),
                        comm -> comm.rank() == faultyRank ? new FaultyCommunicator(comm, corrupted) : comm,
                        comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));

                for (int rank = 0; rank < worldSize; rank++) {
                    for (RankSizeResult r : perRank.get(rank)) {
                        long outputElements = op == CollectiveOp.ALL_GATHER ? r.count() * worldSize : r.count();
                        long expected = rank == faultyRank ? Math.min(corrupted, outputElements) : 0;
                        assertThat(r.wrongElements())
                                .as("%s inPlace=%s rank %d size %d", redop, inPlace, rank, r.bytes())
                                .isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void averageOfFloatsPassesWhenTheBackendPremultipliesByOneOverNLikeNccl() {
        List<String> failures = new ArrayList<>();
        for (DataType type : DataType.values()) {
            if (!type.isFloatingPoint()) {
                continue;
            }
            for (int n : new int[]{2, 3, 4, 5, 6, 7, 8}) {
                JobSpec spec = JobSpec.builder().collective(CollectiveOp.ALL_REDUCE, type, ReduceOp.AVG)
                        .sizes(64L, 4096L).stepFactor(4).iterations(1, 0).build();
                List<List<RankSizeResult>> perRank = Ranks.onEveryRank(new InMemoryCommunicator.World(n, true),
                        UnaryOperator.identity(),
                        comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));
                perRank.stream().flatMap(List::stream).filter(r -> r.wrongElements() != 0)
                        .forEach(r -> failures.add(type + " n=" + n + ": " + r));
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void worldSizesUpToEightVerifyEveryReductionOfFloat8() {
        List<String> failures = new ArrayList<>();
        for (DataType type : List.of(DataType.FLOAT8_E4M3, DataType.FLOAT8_E5M2, DataType.BFLOAT16, DataType.INT8)) {
            for (ReduceOp redop : ReduceOp.values()) {
                for (int n : new int[]{5, 8, 9, 12}) {
                    JobSpec spec = JobSpec.builder().collective(CollectiveOp.ALL_REDUCE, type, redop).size(512L)
                            .iterations(1, 0).build();
                    Ranks.onEveryRank(n, comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE))
                            .stream().flatMap(List::stream).filter(r -> r.wrongElements() != 0)
                            .forEach(r -> failures.add(type + " " + redop + " n=" + n + ": " + r));
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void resultsLeftByTheTimedCallsDoNotPassForAVerificationCallThatWritesNothing() {
        JobSpec spec = JobSpec.builder().collective(CollectiveOp.ALL_REDUCE, DataType.INT32, ReduceOp.SUM).size(64L)
                .iterations(2, 1).build();
        AtomicInteger calls = new AtomicInteger();
        Communicator lazy = new FaultyCommunicator(new InMemoryCommunicator.World(1, false).communicator(0), 0) {
            @Override
            public void allReduce(io.allsum.comm.CommBuffer send, io.allsum.comm.CommBuffer recv,
                                  long count, DataType type, ReduceOp op) {
                // 1 warm-up + 2 timed calls work; the verification call does nothing.
                if (calls.incrementAndGet() <= 3) {
                    super.allReduce(send, recv, count, type, op);
                }
            }
        };

        List<RankSizeResult> results = new CollectiveJobRunner().run(lazy, spec, ProgressListener.NONE);

        assertThat(results).singleElement().extracting(RankSizeResult::wrongElements).isEqualTo(16L);
    }

    @Test
    void unverifiedSizesReportMinusOneWrongElements() {
        JobSpec spec = JobSpec.builder().sizes(8L, 64L).iterations(2, 1).verify(false).build();

        List<RankSizeResult> results = Ranks.onEveryRank(2,
                comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE)).getFirst();

        assertThat(results).hasSize(4).extracting(RankSizeResult::wrongElements).containsOnly(-1L);
    }

    @Test
    void allocatesOnceAtTheLargestSizeAndFreesEveryBuffer() {
        InMemoryCommunicator.World outOfPlace = new InMemoryCommunicator.World(2, false);
        JobSpec spec = JobSpec.builder().collective(CollectiveOp.ALL_GATHER, DataType.INT32, ReduceOp.SUM)
                .sizes(8L, 1024L).iterations(1, 0).build();
        Ranks.onEveryRank(outOfPlace, UnaryOperator.identity(),
                comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));

        // Per rank: the flag the ranks agree on whether the job fits (4 B), then the send share (512 B) and the
        // gathered output (1024 B), once for the whole sweep.
        assertThat(outOfPlace.allocations).containsExactlyInAnyOrder(4L, 512L, 1024L, 4L, 512L, 1024L);
        assertThat(outOfPlace.openBuffers).hasValue(0);

        InMemoryCommunicator.World inPlace = new InMemoryCommunicator.World(2, false);
        JobSpec inPlaceSpec = JobSpec.builder().collective(CollectiveOp.ALL_GATHER, DataType.INT32, ReduceOp.SUM)
                .sizes(8L, 1024L).iterations(1, 0).inPlace(true).build();
        Ranks.onEveryRank(inPlace, UnaryOperator.identity(),
                comm -> new CollectiveJobRunner().run(comm, inPlaceSpec, ProgressListener.NONE));

        assertThat(inPlace.allocations).containsExactlyInAnyOrder(4L, 1024L, 4L, 1024L);
        assertThat(inPlace.openBuffers).hasValue(0);
    }

    @Test
    void commExceptionPropagatesUnchangedAndBuffersAreFreed() {
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(1, false);
        CommException failure = new CommException("all_reduce", 0, "peer rank 1 closed its connection");
        Communicator failing = new FaultyCommunicator(world.communicator(0), 0) {
            @Override
            public void allReduce(io.allsum.comm.CommBuffer send, io.allsum.comm.CommBuffer recv,
                                  long count, DataType type, ReduceOp op) {
                throw failure;
            }
        };

        assertThatThrownBy(() -> new CollectiveJobRunner().run(failing, JobSpec.allSum(64), ProgressListener.NONE))
                .isSameAs(failure);
        assertThat(world.openBuffers).hasValue(0);
    }

    @Test
    void cancellationStopsBetweenSizes() {
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);
        JobSpec spec = JobSpec.builder().sizes(8L, 1024L).iterations(1, 0).build();
        AtomicInteger completed = new AtomicInteger();
        ProgressListener counting = new ProgressListener() {
            @Override
            public void sizeCompleted(int index, int total, RankSizeResult result) {
                completed.incrementAndGet();
            }
        };

        assertThatThrownBy(() -> new CollectiveJobRunner().run(comm, spec, counting, () -> completed.get() >= 2))
                .isInstanceOf(CancellationException.class)
                .hasMessageContaining("after 2 of 8 sizes");
        assertThat(completed).hasValue(2);
    }

    @Test
    void anInterruptedThreadStopsBeforeTheNextSize() {
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> new CollectiveJobRunner().run(comm, JobSpec.allSum(64), ProgressListener.NONE))
                    .isInstanceOf(CancellationException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void progressListenerHearsEverySizeInOrder() {
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);
        JobSpec spec = JobSpec.builder().collective(CollectiveOp.BROADCAST, DataType.UINT8, ReduceOp.SUM).sizes(1L, 16L)
                .stepFactor(4).iterations(1, 0).build();
        List<String> events = new ArrayList<>();
        ProgressListener recording = new ProgressListener() {
            @Override
            public void sizeStarted(int index, int total, long bytes) {
                events.add("start " + index + "/" + total + " " + bytes);
            }

            @Override
            public void sizeCompleted(int index, int total, RankSizeResult result) {
                events.add("done " + index + "/" + total + " " + result.bytes() + " wrong " + result.wrongElements());
            }
        };

        new CollectiveJobRunner().run(comm, spec, recording);

        assertThat(events).containsExactly("start 0/3 1", "done 0/3 1 wrong 0", "start 1/3 4", "done 1/3 4 wrong 0",
                "start 2/3 16", "done 2/3 16 wrong 0");
    }

    @Test
    void rootOutsideTheWorldIsRejectedBeforeAnyCollective() {
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(1, false);
        JobSpec spec = sweep(CollectiveOp.BROADCAST, DataType.FLOAT32, ReduceOp.SUM, 1, false);

        assertThatThrownBy(() -> new CollectiveJobRunner().run(world.communicator(0), spec, ProgressListener.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("root: 1 is not a rank");
        assertThat(world.allocations).isEmpty();
    }

    @Test
    void aJobOneRankCannotHoldFailsOnEveryRankBeforeItsBuffersAreAllocated() {
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(2, false);
        world.allocatable.put(1, 1000L);
        JobSpec spec = JobSpec.allSum(4096);

        List<Throwable> failures = Ranks.onEveryRank(world, UnaryOperator.identity(), comm -> {
            try {
                new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE);
                return null;
            } catch (JobDoesNotFitException e) {
                return e;
            }
        });

        assertThat(failures.get(1)).hasMessageContaining("needs").hasMessageContaining("on rank 1")
                .hasMessageContaining("free ring memory");
        assertThat(failures.get(0)).hasMessageContaining("rank 1 cannot hold");
        assertThat(world.allocations).containsOnly(4L);
        assertThat(world.openBuffers).hasValue(0);
    }

    @Test
    void theConfiguredLimitIsNamedWhenItIsWhatTheJobExceeds() {
        Communicator comm = new InMemoryCommunicator.World(1, false).communicator(0);

        assertThatThrownBy(() -> new CollectiveJobRunner(null, 1024).run(comm, JobSpec.allSum(4096), () -> false))
                .isInstanceOf(JobDoesNotFitException.class)
                .hasMessageContaining("allsum.worker.job-memory-limit");
    }

    @Test
    void withAnExcludedRankTheOthersRunTheSweepAmongThemselvesAndItMeasuresNothing() {
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(4, false);
        // 12 B of int32: one element each for 3 kept ranks, none for all 4; the root, rank 3, is the third kept rank
        List<JobSpec> specs = List.of(
                JobSpec.builder().collective(CollectiveOp.ALL_GATHER, DataType.INT32, ReduceOp.SUM).size(12L)
                        .iterations(1, 0).excludeRanks(List.of(1)).build(),
                JobSpec.builder().collective(CollectiveOp.BROADCAST, DataType.INT32, ReduceOp.SUM).root(3).size(12L)
                        .iterations(1, 0).excludeRanks(List.of(1)).build(),
                JobSpec.builder().collective(CollectiveOp.SEND_RECV, DataType.FLOAT32, ReduceOp.SUM).sizes(8L, 64L)
                        .iterations(1, 0).excludeRanks(List.of(1)).build());
        for (JobSpec spec : specs) {
            List<List<RankSizeResult>> perRank = Ranks.onEveryRank(world, UnaryOperator.identity(),
                    comm -> new CollectiveJobRunner().run(comm, spec, ProgressListener.NONE));

            assertThat(perRank.get(1)).as("%s: the excluded rank", spec.op()).isEmpty();
            for (int rank : List.of(0, 2, 3)) {
                assertThat(perRank.get(rank)).as("%s rank %d", spec.op(), rank)
                        .hasSize(spec.sizes(3).size())
                        .extracting(RankSizeResult::wrongElements).containsOnly(0L);
            }
        }
        assertThat(perRankCount(world)).as("one 3-rank group split off per job").containsOnly(3);
        assertThat(world.closedSplits).as("every kept rank closes its communicator").hasValue(3 * specs.size());
        assertThat(world.openBuffers).hasValue(0);
    }

    private static List<Integer> perRankCount(InMemoryCommunicator.World world) {
        return world.splits.values().stream().map(w -> w.size).toList();
    }
}
