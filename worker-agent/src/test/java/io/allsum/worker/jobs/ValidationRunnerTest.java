package io.allsum.worker.jobs;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.validate.PairFigures;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.Suspect;
import io.allsum.model.validate.SuspectFinder;
import io.allsum.model.validate.Thresholds;
import io.allsum.comm.Communicator;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ValidationRunnerTest {

    static JobSpec validation(long maxBytes) {
        return JobSpec.builder().sizes(1024L, maxBytes).stepFactor(4).iterations(2, 1).timeoutSeconds(60)
                .validation(new ValidationSpec(64L << 10, 16L << 10, 2, null, null, null)).build();
    }

    @Test
    void aProbeIsBadWhenItsRankStopsNotWhenACrowdedHostDelaysIt() {
        double stall = Thresholds.DEFAULT_MIN_STALL_SHARE;
        // healthy probes on the crowded 2-core machine lost 10 to 14%; a rank stopped 50 ms in every 250 ms 17 to 37%
        assertThat(new ValidationRunner.Probe(3.0, 0.14).bad(1.0, 0.25, stall, 0)).as("crowded, healthy").isFalse();
        assertThat(new ValidationRunner.Probe(2.8, 0.17).bad(1.0, 0.25, stall, 0)).as("stopping").isTrue();
        assertThat(new ValidationRunner.Probe(0.7, 0).bad(1.0, 0.25, stall, 0)).as("slow").isTrue();
        // a build loading the same 2 cores: every pair of the check lost about a quarter of its time
        assertThat(new ValidationRunner.Probe(3.0, 0.29).bad(1.0, 0.25, stall, 0.24)).as("loaded, healthy").isFalse();
        assertThat(new ValidationRunner.Probe(3.0, 0.23).bad(1.0, 0.25, stall, 0.10)).as("stopping, quiet")
                .isTrue();
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

    @Test
    void aPairSlowOnlyTheFirstTimeIsMeasuredAgainAndCountsAsHealthy() {
        Pair pair = Pair.of(1, 4);
        Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
        Map<Pair, Double> pairs = pairFigures(6, slowPair(pair, call -> call <= BULK_CALLS, calls), calls);
        // measured twice; the slow moment may also make one end a straggler, probed with the other end
        assertThat(calls.get(pair.low())).as("measured twice").hasValueGreaterThanOrEqualTo(2 * CALLS_PER_MEASUREMENT);
        assertThat(new SuspectFinder(validation(1024).validation().thresholds()).slowPairs(pairs)).doesNotContain(pair);
    }

    @Test
    void aPairSlowEveryTimeIsStillTheOutlierAfterItsRetest() {
        Pair pair = Pair.of(1, 4);
        Map<Integer, AtomicInteger> calls = new ConcurrentHashMap<>();
        Map<Pair, Double> pairs = pairFigures(6,
                slowPair(pair, call -> (call - 1) % CALLS_PER_MEASUREMENT < BULK_CALLS, calls), calls);
        // measured twice, then once more to confirm the link
        assertThat(calls.get(pair.low()).get()).as("measured again").isGreaterThan(2 * CALLS_PER_MEASUREMENT);
        SuspectFinder finder = new SuspectFinder(validation(1024).validation().thresholds());
        assertThat(finder.slowPairs(pairs)).contains(pair);
        List<RankPlace> places = IntStream.range(0, 6).mapToObj(r -> new RankPlace(r, "host" + r, "cpu")).toList();
        assertThat(finder.find(places, Map.of(), pairs, Map.of(), 0))
                .anySatisfy(s -> {
                    assertThat(s.kind()).isEqualTo(Suspect.Kind.LINK);
                    assertThat(Pair.of(s.rank(), s.peerRank())).isEqualTo(pair);
                });
    }

    @Test
    void theRetestTakesTheOutlierPairsOfBothSidesSlowestFirstAndNoneWhenMoreThanNAreOutliers() {
        SuspectFinder finder = new SuspectFinder(Thresholds.DEFAULTS);
        double[][] figures = new double[6][6];
        for (double[] row : figures) {
            java.util.Arrays.fill(row, 1.0);
        }
        for (int r = 0; r < 6; r++) {
            figures[r][r] = Double.NaN;
        }
        figures[4][1] = 0.1; // one side saw it slow: the pair's figure is the slower side
        figures[2][3] = 0.3;
        figures[0][5] = Double.NaN; // one side did not report: the other counts
        assertThat(ValidationRunner.retestSchedule(figures, finder).rounds())
                .containsExactly(List.of(Pair.of(1, 4), Pair.of(2, 3)));
        figures[0][5] = 1.0;
        figures[1][2] = 0.2;
        assertThat(ValidationRunner.retestSchedule(figures, finder).rounds())
                .containsExactly(List.of(Pair.of(1, 4), Pair.of(2, 3)), List.of(Pair.of(1, 2)));
        for (Pair more : List.of(Pair.of(0, 1), Pair.of(0, 2), Pair.of(0, 3), Pair.of(0, 4))) {
            figures[more.low()][more.high()] = 0.2;
        }
        assertThat(finder.slowPairs(pairsOf(figures))).hasSize(7);
        assertThat(ValidationRunner.retestSchedule(figures, finder).rounds()).isEmpty();
    }

    @Test
    void theRetestLeavesOutThePairsOfARankSlowWithMostOfItsPeers() {
        SuspectFinder finder = new SuspectFinder(Thresholds.DEFAULTS);
        double[][] figures = new double[6][6];
        for (int r = 0; r < 6; r++) {
            java.util.Arrays.fill(figures[r], 1.0);
            figures[r][r] = Double.NaN;
        }
        for (int peer : new int[]{0, 1, 3}) {
            figures[peer][5] = 0.1; // rank 5: slow with 3 of its 5 peers, a rank suspect, not a passing hiccup
        }
        figures[1][2] = 0.2;
        assertThat(finder.slowRanks(pairsOf(figures), finder.slowPairs(pairsOf(figures)))).containsExactly(5);
        assertThat(ValidationRunner.retestSchedule(figures, finder).rounds()).containsExactly(List.of(Pair.of(1, 2)));
    }

    @Test
    void everyRankHoldsEveryRanksPairFigures() {
        int n = 4;
        List<double[][]> shared = Ranks.onEveryRank(n, comm -> ValidationRunner.shareFigures(comm,
                IntStream.range(0, n).filter(p -> p != comm.rank() && p != 3 - comm.rank())
                        .mapToObj(p -> new RankValidation.PairMeasurement(p, 8, 10 * comm.rank() + p, 1.0)).toList()));
        for (double[][] figures : shared) {
            for (int r = 0; r < n; r++) {
                for (int c = 0; c < n; c++) {
                    if (r == c || c == 3 - r) {
                        assertThat(figures[r][c]).isNaN();
                    } else {
                        assertThat(figures[r][c]).isEqualTo(10 * r + c);
                    }
                }
            }
        }
    }

    /** sendRecv calls of one measurement of a pair: a warm-up, the timed bulk exchanges, the latency exchanges. */
    private static final int BULK_CALLS = 1 + 2;
    private static final int CALLS_PER_MEASUREMENT = BULK_CALLS + ValidationRunner.LATENCY_ITERATIONS;

    /** The server's pair figures (each pair's slower side) of a validation of {@code n} ranks through {@code wrap}. */
    private static Map<Pair, Double> pairFigures(int n, UnaryOperator<Communicator> wrap,
                                                 Map<Integer, AtomicInteger> calls) {
        InMemoryCommunicator.World world = new InMemoryCommunicator.World(n, false);
        List<ValidationRunner.Outcome> outcomes = Ranks.onEveryRank(world, wrap, comm -> {
            // the first run warms this JVM's code paths up; the counts start again for the second
            ValidationRunner runner = new ValidationRunner(new CollectiveJobRunner());
            runner.run(comm, validation(1024), "host" + comm.rank(), "cpu", v -> { }, () -> false);
            calls.computeIfAbsent(comm.rank(), r -> new AtomicInteger()).set(0);
            return runner.run(comm, validation(1024), "host" + comm.rank(), "cpu", v -> { }, () -> false);
        });
        Map<Integer, List<RankValidation.PairMeasurement>> byRank = new HashMap<>();
        for (int rank = 0; rank < n; rank++) {
            byRank.put(rank, outcomes.get(rank).validation().pairs());
        }
        return PairFigures.bandwidths(PairFigures.of(byRank));
    }

    private static Map<Pair, Double> pairsOf(double[][] figures) {
        return PairFigures.bandwidths(figures);
    }

    /**
     * Every bulk exchange takes 20 ms more, which drowns the in-memory exchanges' own spread on shared cores (a few
     * ms), and {@code pair}'s take 200 ms more when {@code slowCall} holds for their number (from 1, counted in
     * {@code calls} by its lower rank): a link that is slow, or a shared host that is slow for a moment.
     */
    static UnaryOperator<Communicator> slowPair(Pair pair, IntPredicate slowCall, Map<Integer, AtomicInteger> calls) {
        return comm -> (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[]{Communicator.class}, (proxy, method, args) -> {
                    if (method.getName().equals("sendRecv")) {
                        boolean bulk = (long) args[4] > 2;
                        boolean slow = comm.rank() == pair.low() && (int) args[1] == pair.high()
                                && slowCall.test(calls.computeIfAbsent(comm.rank(), r -> new AtomicInteger())
                                .incrementAndGet());
                        LockSupport.parkNanos((bulk ? 20_000_000 : 0) + (slow ? 200_000_000 : 0));
                    }
                    try {
                        return method.invoke(comm, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
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
