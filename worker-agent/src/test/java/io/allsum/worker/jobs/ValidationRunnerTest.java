package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankValidation;
import io.allsum.model.jobs.ValidationSpec;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.worker.comm.Communicator;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValidationRunnerTest {

    static JobSpec validation(long maxBytes) {
        return new JobSpec(CollectiveOp.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 1024L, maxBytes, 4, 2, 1,
                false, true, 60, new ValidationSpec(64L << 10, 16L << 10, 2, null, null, null));
    }

    @Test
    void everyRankMeasuresItselfAloneEveryPairOnceAndTheSweep() {
        int n = 4;
        List<List<RankValidation>> progress = new CopyOnWriteArrayList<>();
        List<ValidationRunner.Outcome> outcomes = Ranks.onEveryRank(n, comm -> {
            List<RankValidation> seen = new CopyOnWriteArrayList<>();
            progress.add(seen);
            return new ValidationRunner(new CollectiveJobRunner()).run(comm, validation(16L << 10), "host" + comm.rank(),
                    "cpu", seen::add, () -> false);
        });
        for (int rank = 0; rank < n; rank++) {
            ValidationRunner.Outcome o = outcomes.get(rank);
            assertThat(o.validation().host()).isEqualTo("host" + rank);
            assertThat(o.validation().soloGBps()).isPositive();
            // every other rank once, each figure positive
            int self = rank;
            assertThat(o.validation().pairs()).extracting(RankValidation.PairMeasurement::peer)
                    .containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, n).filter(p -> p != self)
                            .boxed().toList());
            assertThat(o.validation().pairs()).allSatisfy(p -> {
                assertThat(p.bytes()).isEqualTo(16L << 10);
                assertThat(p.gbps()).isPositive();
                assertThat(p.latencyMicros()).isPositive();
            });
            // the sweep 1 KiB, 4 KiB, 16 KiB, verified
            assertThat(o.results()).extracting(r -> r.bytes()).containsExactly(1024L, 4096L, 16384L);
            assertThat(o.results()).allSatisfy(r -> assertThat(r.wrongElements()).isZero());
        }
        // progress: once alone, then once per round (n - 1), growing
        assertThat(progress).allSatisfy(seen -> {
            assertThat(seen).hasSize(n);
            assertThat(seen.getFirst().pairs()).isEmpty();
            assertThat(seen.getLast().pairs()).hasSize(n - 1);
            assertThat(seen.getLast().pairsSeconds()).as("the last round carries the pair phase's time").isPositive();
        });
    }

    @Test
    void anOddWorldLeavesOneRankOutOfEachRoundAndStillMeasuresEveryPair() {
        List<ValidationRunner.Outcome> outcomes = Ranks.onEveryRank(5, comm ->
                new ValidationRunner(new CollectiveJobRunner()).run(comm, validation(1024), "h", "cpu", v -> { },
                        () -> false));
        assertThat(outcomes).allSatisfy(o -> assertThat(o.validation().pairs()).hasSize(4));
    }

    @Test
    void aRankSlowWithEveryPeerShowsInEachOfItsPairs() {
        int n = 6;
        int slow = 4;
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(n, false);
        List<ValidationRunner.Outcome> outcomes = Ranks.onEveryRank(world, slowExchanges(slow),
                comm -> {
                    // the first run warms this JVM's code paths up, which six ranks on shared cores would feel
                    ValidationRunner runner = new ValidationRunner(new CollectiveJobRunner());
                    runner.run(comm, validation(1024), "host" + comm.rank(), "cpu", v -> { }, () -> false);
                    return runner.run(comm, validation(1024), "host" + comm.rank(), "cpu", v -> { }, () -> false);
                });
        Map<Pair, Double> pairs = new HashMap<>();
        for (int rank = 0; rank < n; rank++) {
            for (RankValidation.PairMeasurement p : outcomes.get(rank).validation().pairs()) {
                pairs.merge(Pair.of(rank, p.peer()), p.gbps(), Math::min);
            }
        }
        // the slow rank's pairs are the slowest by far; naming it from such figures is SuspectFinderTest's part
        Map<Integer, Double> medians = new HashMap<>();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            medians.put(rank, io.allsum.model.validate.RobustStats.of(pairs.entrySet().stream()
                    .filter(e -> e.getKey().has(r)).map(Map.Entry::getValue).toList()).median());
        }
        double others = io.allsum.model.validate.RobustStats.of(medians.entrySet().stream()
                .filter(e -> e.getKey() != slow).map(Map.Entry::getValue).toList()).median();
        assertThat(medians.get(slow)).isLessThan(others / 5);
        assertThat(pairs.entrySet().stream().filter(e -> e.getKey().has(slow)).map(Map.Entry::getValue))
                .allSatisfy(gbps -> assertThat(gbps).isLessThan(others / 5));
    }

    @Test
    void aWorldOfOneIsRefusedNamingTheReason() {
        assertThatThrownBy(() -> Ranks.onEveryRank(1, comm ->
                new ValidationRunner(new CollectiveJobRunner()).run(comm, validation(1024), "h", "cpu", v -> { },
                        () -> false)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 2 ranks");
    }

    @Test
    void aCancelledValidationStopsBeforeItsNextPhase() {
        assertThatThrownBy(() -> Ranks.onEveryRank(2, comm ->
                new ValidationRunner(new CollectiveJobRunner()).run(comm, validation(1024), "h", "cpu", v -> { },
                        () -> true)))
                .isInstanceOf(CancellationException.class)
                .hasMessageContaining("before phase alone");
    }

    /** Each exchange that involves {@code slow} takes 20 ms more, as through a throttled link. */
    static UnaryOperator<Communicator> slowExchanges(int slow) {
        return comm -> (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[]{Communicator.class}, (proxy, method, args) -> {
                    if (method.getName().equals("sendRecv") && (comm.rank() == slow || (int) args[1] == slow)) {
                        LockSupport.parkNanos(20_000_000);
                    }
                    try {
                        return method.invoke(comm, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
