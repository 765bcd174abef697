package io.allsum.worker.jobs;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.validate.RankValidation.PairMeasurement;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.validate.RankValidation.Confirmation;
import io.allsum.model.validate.RankValidation.LinkTraffic;
import io.allsum.model.validate.LastArrivals;
import io.allsum.model.validate.PairFigures;
import io.allsum.model.validate.PairSchedule;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.RobustStats;
import io.allsum.model.validate.Stragglers;
import io.allsum.model.validate.Suspect;
import io.allsum.model.validate.SuspectFinder;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.TcpCounts;
import io.allsum.comm.host.HostReduction;

import java.lang.foreign.Arena;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.stream.IntStream;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a validation job on this rank, phase by phase, every rank in the same order: (1) alone, a figure that
 * involves no peer (the ring's host reduction, one thread; for NCCL an all-reduce on a one-rank communicator split
 * off the group), in lock-step steps whose barrier waits show who the others wait for; (2) every pair, as the rounds
 * of a {@link PairSchedule} with a timed barrier after each, then each outlier pair once more, the faster figure
 * counting; (3) the job's own all-reduce sweep; (4) every rank computes the same preliminary suspects from everyone's
 * figures and measures each once more with known-good partners, so that only what is slow again gets named. After
 * each phase (and pair round) the figures so far go to {@code progress}; the last round's wait for the retest.
 */
public final class ValidationRunner {

    /**
     * Lock-step steps alone: at least this many and for {@link #SOLO_NANOS}, then on until every rank's JIT compiler
     * has been quiet for {@link #JIT_QUIET_NANOS} (at most {@link #SOLO_MAX_NANOS} or {@link #MAX_STEPS}); the
     * fastest counts, so a moment without the core does not, while the barrier waits keep every stall.
     */
    static final int SOLO_REPEATS = 5;
    static final long SOLO_NANOS = 1_000_000_000;
    static final long JIT_QUIET_NANOS = 300_000_000;
    static final long SOLO_MAX_NANOS = 10_000_000_000L;
    static final int MAX_STEPS = 2000;
    /** Short untimed reductions first, so that the timed ones run compiled code on every rank alike. */
    private static final int WARMUP_CALLS = 200;
    private static final long WARMUP_ELEMENTS = 16 << 10;
    /** Exchanges of 8 bytes timed per pair for its latency. */
    static final int LATENCY_ITERATIONS = 20;
    private static final long LATENCY_BYTES = 8;
    /**
     * A confirmation exchanges for this long by the pair's lower rank's clock: several of a stall's periods (a 100 ms
     * CPU quota period, a 250 ms stop-and-go), so that a stalling rank stalls within it however fast the pair runs.
     */
    static final long CONFIRM_NANOS = 800_000_000;
    /** An exchange this many times the probe's median is a stall: all of its time beyond the median is lost. */
    static final double STALL_FACTOR = 3;
    /** The lower rank says whether to go on after each batch of about this long at the pair's usual rate. */
    private static final double CONFIRM_BATCH_SECONDS = 0.02;
    private static final int MAX_CONFIRM_ITERATIONS = 20_000;

    /** What this rank measured: the sweep's rows and its validation figures. */
    public record Outcome(List<RankSizeResult> results, RankValidation validation) {
    }

    private final JobRunner sweep;

    public ValidationRunner(JobRunner sweep) {
        this.sweep = Objects.requireNonNull(sweep, "sweep");
    }

    /** As {@link #run(Communicator, JobSpec, List, Consumer, BooleanSupplier)}, every rank placed on {@code host}. */
    public Outcome run(Communicator comm, JobSpec spec, String host, String device,
                       Consumer<RankValidation> progress, BooleanSupplier cancelled) {
        List<RankPlace> places = IntStream.range(0, comm.size())
                .mapToObj(r -> new RankPlace(r, host, device)).toList();
        return run(comm, spec, places, progress, cancelled);
    }

    /**
     * @param places   every rank's host (the address its peers reach it at) and device, by rank
     * @param progress hears the figures measured so far, after each phase and pair round
     * @throws CancellationException between steps when {@code cancelled} says so
     */
    public Outcome run(Communicator comm, JobSpec spec, List<RankPlace> places,
                       Consumer<RankValidation> progress, BooleanSupplier cancelled) {
        JobSpec job = Objects.requireNonNull(spec, "spec").withDefaults();
        if (!job.validates()) {
            throw new IllegalArgumentException("validation: the job is a plain sweep, not a validation");
        }
        if (comm.size() < 2) {
            throw new IllegalArgumentException("validation: needs at least 2 ranks (every pair is measured), the "
                    + "group has " + comm.size());
        }
        if (places.size() != comm.size()) {
            throw new IllegalArgumentException("validation: " + places.size() + " places for " + comm.size()
                    + " ranks");
        }
        String host = places.get(comm.rank()).host();
        String device = places.get(comm.rank()).device();
        ValidationSpec v = job.validation();
        SuspectFinder finder = new SuspectFinder(v.thresholds());
        checkCancelled(comm, cancelled, "alone");
        Map<Integer, TcpCounts> countersAtStart = comm.tcpCounters();
        CgroupThrottling cgroups = CgroupThrottling.ofThisProcess();
        CgroupThrottling.Reading cpuAtStart = cgroups.read();
        List<PairMeasurement> pairs = new ArrayList<>();
        double solo;
        double pairsSeconds;
        List<Double> waits;
        double lockstepSeconds;
        long count = Math.max(1, v.pairBytes() / DataType.FLOAT32.bytes());
        try (Lockstep lock = new Lockstep(comm)) {
            solo = comm.backend() == Backend.NCCL ? soloOnDevice(comm, v.soloBytes(), lock)
                    : soloOnHost(v.soloBytes(), lock);
            progress.accept(new RankValidation(host, device, solo, List.of(), null));
            PairSchedule schedule = PairSchedule.roundRobin(comm.size());
            try (CommBuffer send = comm.allocate(count * DataType.FLOAT32.bytes());
                 CommBuffer recv = comm.allocate(count * DataType.FLOAT32.bytes())) {
                lock.barrier(); // a rank slower alone must not stretch its first pair
                long pairsStarted = System.nanoTime();
                for (int round = 0; round < schedule.rounds().size(); round++) {
                    checkCancelled(comm, cancelled, "pairs");
                    int peer = schedule.peerOf(comm.rank(), round);
                    if (peer >= 0) {
                        pairs.add(exchange(comm, send, recv, count, peer, v.pairIterations()));
                    }
                    lock.barrier();
                    if (round < schedule.rounds().size() - 1) {
                        // the last round's report waits for the retest, which may replace figures
                        progress.accept(new RankValidation(host, device, solo, pairs, null));
                    }
                }
                PairSchedule retest = retestSchedule(shareFigures(comm, pairs), finder);
                for (int round = 0; round < retest.rounds().size(); round++) {
                    checkCancelled(comm, cancelled, "pairs");
                    int peer = retest.peerOf(comm.rank(), round);
                    if (peer >= 0) {
                        keepFaster(pairs, exchange(comm, send, recv, count, peer, v.pairIterations()));
                    }
                    lock.barrier();
                }
                pairsSeconds = (System.nanoTime() - pairsStarted) / 1e9;
            }
            waits = lock.waitsMicros();
            lockstepSeconds = lock.seconds();
        }
        progress.accept(new RankValidation(host, device, solo, pairs, pairsSeconds, waits, lockstepSeconds,
                List.of()));
        checkCancelled(comm, cancelled, "together");
        List<RankSizeResult> results = sweep.run(comm, job, cancelled);
        checkCancelled(comm, cancelled, "confirm");
        Evidence all = shareEvidence(comm, solo, pairs, results, waits, lockstepSeconds);
        List<Suspect> preliminary = finder.find(places, all.solo(), all.pairs(),
                all.lastArrivals(v.minShortfall()), results.size(), Stragglers.of(all.waits()),
                all.lockstepSeconds());
        List<Confirmation> confirmations = confirm(comm, preliminary, places.stream().map(RankPlace::host).toList(), all,
                v, count);
        return new Outcome(results, new RankValidation(host, device, solo, pairs, pairsSeconds, waits,
                lockstepSeconds, confirmations, linkTraffic(countersAtStart, comm.tcpCounters()),
                CgroupThrottling.between(cpuAtStart, cgroups.read())));
    }

    /** What each connection sent between the two readings; peers missing from either reading are left out. */
    static List<LinkTraffic> linkTraffic(Map<Integer, TcpCounts> start, Map<Integer, TcpCounts> end) {
        List<LinkTraffic> out = new ArrayList<>();
        new java.util.TreeMap<>(end).forEach((peer, counts) -> {
            TcpCounts before = start.get(peer);
            if (before != null) {
                TcpCounts sent = counts.since(before);
                out.add(new LinkTraffic(peer, sent.segmentsOut(), sent.retransmits(), sent.spuriousRetransmits()));
            }
        });
        return out;
    }

    /** Every rank's figures, the same on every rank: what the server will judge, for choosing what to confirm. */
    record Evidence(int n, Map<Integer, Double> solo, Map<Pair, Double> pairs, List<List<Double>> sizeTimes,
                    List<List<Double>> waits, double lockstepSeconds) {

        Map<Integer, Integer> lastArrivals(double minShortfall) {
            List<Integer> counts = LastArrivals.count(sizeTimes, n, minShortfall);
            Map<Integer, Integer> out = new java.util.HashMap<>();
            for (int r = 0; r < n; r++) {
                out.put(r, counts.get(r));
            }
            return out;
        }

        /** Rank's pairs' median, for picking the best known-good partners. */
        double pairMedian(int rank) {
            List<Double> own = pairs.entrySet().stream().filter(e -> e.getKey().has(rank))
                    .map(Map.Entry::getValue).toList();
            return own.isEmpty() ? 0 : RobustStats.of(own).median();
        }
    }

    /**
     * One all-gather of each rank's row: its solo figure, lock-step time, GB/s to each peer (NaN where none), own
     * time per sweep size, and its barrier waits; every rank holds the same rows after it.
     */
    static Evidence shareEvidence(Communicator comm, double solo, List<PairMeasurement> pairs,
                                  List<RankSizeResult> results, List<Double> waits, double lockstepSeconds) {
        int n = comm.size();
        int sizes = results.size();
        int width = 2 + n + sizes + waits.size();
        double[] row = new double[width];
        Arrays.fill(row, Double.NaN);
        row[0] = solo;
        row[1] = lockstepSeconds;
        pairs.forEach(p -> row[2 + p.peer()] = p.gbps());
        for (int i = 0; i < sizes; i++) {
            row[2 + n + i] = results.get(i).timeMicros();
        }
        for (int i = 0; i < waits.size(); i++) {
            row[2 + n + sizes + i] = waits.get(i);
        }
        double[][] rows = allGather(comm, row);
        Map<Integer, Double> soloByRank = new java.util.HashMap<>();
        double[][] figures = new double[n][n];
        List<List<Double>> sizeTimes = new ArrayList<>();
        List<List<Double>> waitRows = new ArrayList<>();
        List<Double> lockstep = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            soloByRank.put(r, rows[r][0]);
            lockstep.add(rows[r][1]);
            figures[r] = Arrays.copyOfRange(rows[r], 2, 2 + n);
            figures[r][r] = Double.NaN;
            List<Double> w = new ArrayList<>();
            for (int i = 0; i < waits.size(); i++) {
                w.add(rows[r][2 + n + sizes + i]);
            }
            waitRows.add(w);
        }
        for (int i = 0; i < sizes; i++) {
            List<Double> times = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                times.add(rows[r][2 + n + i]);
            }
            sizeTimes.add(times);
        }
        return new Evidence(n, soloByRank, PairFigures.bandwidths(figures), sizeTimes, waitRows,
                RobustStats.of(lockstep).median());
    }

    /**
     * Each preliminary rank, straggler or link suspect measured again, in rounds of disjoint pairs, with the two
     * known-good ranks (no suspicion on them) whose pairs were fastest, and those two with each other; judged by
     * {@link PartnerCheck}. Every rank shares its side of each exchange, so that all hold the same decisions.
     */
    List<Confirmation> confirm(Communicator comm, List<Suspect> preliminary, List<String> hosts, Evidence all,
                               ValidationSpec v, long count) {
        List<Suspect> checked = preliminary.stream().filter(s -> s.kind() == Suspect.Kind.RANK
                || s.kind() == Suspect.Kind.STRAGGLER || s.kind() == Suspect.Kind.LINK).toList();
        if (checked.isEmpty()) {
            return List.of();
        }
        Set<Integer> suspected = new LinkedHashSet<>();
        preliminary.forEach(s -> {
            if (s.rank() >= 0) {
                suspected.add(s.rank());
            }
            if (s.peerRank() >= 0) {
                suspected.add(s.peerRank());
            }
        });
        List<Integer> byMedian = IntStream.range(0, all.n()).boxed()
                .sorted(Comparator.comparingDouble((Integer r) -> -all.pairMedian(r)).thenComparing(r -> r)).toList();
        List<Integer> good = byMedian.stream().filter(r -> !suspected.contains(r)).toList();
        PartnerCheck.Plan plan = PartnerCheck.plan(checked, good);
        double median = all.pairs().isEmpty() ? 0 : RobustStats.of(all.pairs().values()).median();
        if (plan == null) {
            return confirmWithoutKnownGood(comm, checked, byMedian, all, median, v, count,
                    measured -> judged(measured, median, v, 0));
        }
        Map<Pair, Probe> measured = measure(comm, plan.pairs(), all, median, v, count);
        // the check's least stalled pair shows what the host's jitter costs any pair now (a stopping rank is in 2 of
        // the 3 pairs of its own check at most): a suspect's stalls must exceed it
        double jitter = measured.values().stream().mapToDouble(Probe::stallShare).min().orElse(0);
        Function<Map<Pair, Probe>, Map<Pair, Boolean>> bad = probes -> judged(probes, median, v, jitter);
        PartnerCheck.Verdict verdict = PartnerCheck.judge(plan, hosts, bad.apply(measured),
                p -> describe(p, measured.get(p)), String.format(Locale.ROOT, "the pair median %.3g GB/s and stalls of "
                        + "%.0f%%", median, 100 * Probe.stallBar(v.thresholds().minStallShare(), jitter)));
        if (verdict.rechecks().isEmpty()) {
            return verdict.confirmations();
        }
        Map<PartnerCheck.Recheck, List<Pair>> again = PartnerCheck.recheckPlan(verdict.rechecks(), byMedian,
                verdict.cleared(), hosts);
        List<Pair> pairs = again.values().stream().flatMap(List::stream).distinct().toList();
        Map<Pair, Probe> remeasured = pairs.isEmpty() ? Map.of() : measure(comm, pairs, all, median, v, count);
        Map<Pair, Boolean> badAgain = bad.apply(remeasured);
        List<Confirmation> out = new ArrayList<>(verdict.confirmations());
        verdict.rechecks().forEach(r -> out.add(PartnerCheck.recheck(r, again.get(r), badAgain,
                p -> describe(p, remeasured.get(p)))));
        return out;
    }

    /** Each probe judged bad or not, its stalls against the bar and {@code jitter}. */
    private static Map<Pair, Boolean> judged(Map<Pair, Probe> probes, double median, ValidationSpec v, double jitter) {
        var t = v.thresholds();
        Map<Pair, Boolean> out = new java.util.HashMap<>();
        probes.forEach((p, probe) -> out.put(p, probe.bad(median, t.minShortfall(), t.minStallShare(), jitter)));
        return out;
    }

    /**
     * Too few ranks without suspicion for {@link PartnerCheck} (a group of 2 or 3): a straggler or a link is probed
     * with the fastest rank it can pair with, so that a crowded host's one slow phase names nobody; a rank suspect
     * (its solo figure) stands as found.
     */
    private static List<Confirmation> confirmWithoutKnownGood(Communicator comm, List<Suspect> checked,
                                                              List<Integer> byMedian, Evidence all, double median,
                                                              ValidationSpec v, long count,
                                                              Function<Map<Pair, Probe>, Map<Pair, Boolean>> bad) {
        Map<Suspect, Pair> probed = new java.util.LinkedHashMap<>();
        for (Suspect s : checked) {
            if (s.kind() == Suspect.Kind.LINK && s.peerRank() >= 0) {
                probed.put(s, Pair.of(s.rank(), s.peerRank()));
            } else if (s.kind() == Suspect.Kind.STRAGGLER) {
                byMedian.stream().filter(r -> r != s.rank()).findFirst()
                        .ifPresent(partner -> probed.put(s, Pair.of(s.rank(), partner)));
            }
        }
        List<Pair> pairs = probed.values().stream().distinct().toList();
        Map<Pair, Probe> measured = pairs.isEmpty() ? Map.of() : measure(comm, pairs, all, median, v, count);
        Map<Pair, Boolean> isBad = bad.apply(measured);
        return checked.stream().map(s -> {
            Pair p = probed.get(s);
            if (p == null) {
                return new Confirmation(s.key(), true, "not re-measured: fewer than 2 ranks without suspicion");
            }
            boolean confirmed = isBad.get(p);
            return new Confirmation(s.key(), confirmed, (confirmed ? "confirmed" : "not confirmed")
                    + " with its only partners (fewer than 2 ranks without suspicion): " + describe(p, measured.get(p)));
        }).toList();
    }

    /**
     * Probes every pair of {@code pairsToMeasure} in rounds of disjoint pairs; every rank holds every probe after
     * it (each pair's slower side).
     */
    private static Map<Pair, Probe> measure(Communicator comm, List<Pair> pairsToMeasure, Evidence all, double median,
                                            ValidationSpec v, long count) {
        double bytes = (double) count * DataType.FLOAT32.bytes();
        // the same batch on both sides of a pair: about CONFIRM_BATCH_SECONDS at the slower end's usual rate
        int[] batches = pairsToMeasure.stream().mapToInt(p -> (int) Math.max(1, Math.min(MAX_CONFIRM_ITERATIONS,
                Math.ceil(CONFIRM_BATCH_SECONDS * 1e9 / bytes * Math.min(median,
                        Math.min(all.pairMedian(p.low()), all.pairMedian(p.high()))))))).toArray();
        PairSchedule schedule = PairSchedule.of(all.n(), pairsToMeasure);
        double[] mine = new double[2 * pairsToMeasure.size()];
        Arrays.fill(mine, Double.NaN);
        try (CommBuffer send = comm.allocate(count * DataType.FLOAT32.bytes());
             CommBuffer recv = comm.allocate(count * DataType.FLOAT32.bytes());
             CommBuffer goOnSend = comm.allocate(Integer.BYTES);
             CommBuffer goOnRecv = comm.allocate(Integer.BYTES)) {
            for (int round = 0; round < schedule.rounds().size(); round++) {
                int peer = schedule.peerOf(comm.rank(), round);
                if (peer >= 0) {
                    int index = pairsToMeasure.indexOf(Pair.of(comm.rank(), peer));
                    Probe probe = probe(comm, new ProbeBuffers(send, recv, goOnSend, goOnRecv), count, peer,
                            v.pairIterations(), batches[index]);
                    mine[2 * index] = probe.gbps();
                    mine[2 * index + 1] = probe.stallShare();
                }
                comm.barrier();
            }
        }
        double[][] rows = allGather(comm, mine);
        Map<Pair, Probe> measured = new java.util.HashMap<>();
        for (int i = 0; i < pairsToMeasure.size(); i++) {
            Pair p = pairsToMeasure.get(i);
            // the pair's slower side: the lower rate, the larger stall
            measured.put(p, new Probe(Math.min(rows[p.low()][2 * i], rows[p.high()][2 * i]),
                    Math.max(rows[p.low()][2 * i + 1], rows[p.high()][2 * i + 1])));
        }
        return measured;
    }

    /**
     * A confirmation exchange's figures: GB/s over its whole wall time, and the share of that time lost to stalls
     * (exchanges of {@link #STALL_FACTOR} medians and more), which a crowded host's jitter does not reach. The bar is
     * three times {@code minStallShare}: a probe sees all of a rank's stops, the lock-step waits about half, and a
     * crowded 2-core machine's healthy probes lose up to 14% (a rank stopped 50 ms in every 250 ms: 17 to 37%).
     */
    record Probe(double gbps, double stallShare) {
        /**
         * Slow, or stalled past three times {@code minStallShare} and past {@code jitter} (what a healthy pair of the
         * same check lost) by 1.5 times it: a stopping rank's stops add to the jitter that every pair of its host has.
         */
        boolean bad(double median, double minShortfall, double minStallShare, double jitter) {
            return gbps < median * (1 - minShortfall) || stallShare >= stallBar(minStallShare, jitter);
        }

        static double stallBar(double minStallShare, double jitter) {
            return Math.max(3 * minStallShare, jitter + 1.5 * minStallShare);
        }
    }

    private static String describe(Pair p, Probe probe) {
        return String.format(Locale.ROOT, "%d-%d %.3g GB/s, stalled %.0f%%", p.low(), p.high(), probe.gbps(),
                100 * probe.stallShare());
    }

    private record ProbeBuffers(CommBuffer send, CommBuffer recv, CommBuffer goOnSend, CommBuffer goOnRecv) {
    }

    /**
     * Exchanges of {@code count} floats with {@code peer}, in batches of {@code batch}, until the pair's lower rank
     * has spent {@link #CONFIRM_NANOS} (and at least {@code minIterations}): the rate over the wall time, and the
     * share of that time the stalled exchanges took beyond a median one. After each batch the lower rank sends
     * whether to go on, so that both sides stop together.
     */
    private static Probe probe(Communicator comm, ProbeBuffers b, long count, int peer, int minIterations,
                               int batch) {
        comm.sendRecv(b.send(), peer, b.recv(), peer, count, DataType.FLOAT32);
        boolean leads = comm.rank() < peer;
        ByteBuffer goOn = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        long[] nanos = new long[MAX_CONFIRM_ITERATIONS];
        int iterations = 0;
        long start = System.nanoTime();
        while (true) {
            for (int i = 0; i < batch && iterations < nanos.length; i++) {
                nanos[iterations++] = comm.timeNanos(() -> comm.sendRecv(b.send(), peer, b.recv(), peer, count,
                        DataType.FLOAT32));
            }
            boolean more = iterations < nanos.length
                    && (iterations < minIterations || System.nanoTime() - start < CONFIRM_NANOS);
            goOn.putInt(0, more ? 1 : 0);
            b.goOnSend().copyFromHost(goOn, 0);
            comm.sendRecv(b.goOnSend(), peer, b.goOnRecv(), peer, 1, DataType.INT32);
            if (!leads) {
                b.goOnRecv().copyToHost(goOn, 0);
            }
            if (goOn.getInt(0) == 0) {
                break;
            }
        }
        long wall = Math.max(1, System.nanoTime() - start);
        long[] sorted = Arrays.copyOf(nanos, iterations);
        Arrays.sort(sorted);
        long median = sorted[iterations / 2];
        double lost = 0;
        for (int i = iterations - 1; i >= 0 && sorted[i] >= STALL_FACTOR * median; i--) {
            lost += sorted[i] - median;
        }
        return new Probe(gbps(count * DataType.FLOAT32.bytes() * iterations, wall), Math.min(1, lost / wall));
    }

    /** Each rank's {@code row} (the same length on every rank) through one all-gather: row r is rank r's. */
    static double[][] allGather(Communicator comm, double[] row) {
        int n = comm.size();
        int width = Math.max(1, row.length);
        ByteBuffer mine = ByteBuffer.allocateDirect(width * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < row.length; i++) {
            mine.putDouble(i * Double.BYTES, row[i]);
        }
        ByteBuffer all = ByteBuffer.allocateDirect(n * width * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        try (CommBuffer send = comm.allocate((long) width * Double.BYTES);
             CommBuffer recv = comm.allocate((long) n * width * Double.BYTES)) {
            send.copyFromHost(mine, 0);
            comm.allGather(send, recv, width, DataType.FLOAT64);
            recv.copyToHost(all, 0);
        }
        double[][] rows = new double[n][row.length];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < row.length; c++) {
                rows[r][c] = all.getDouble((r * width + c) * Double.BYTES);
            }
        }
        return rows;
    }

    /**
     * Every rank's pair figures through the communicator, the same matrix on every rank: row r is rank r's GB/s to
     * each peer, NaN for itself and for a peer it did not measure.
     */
    static double[][] shareFigures(Communicator comm, List<PairMeasurement> pairs) {
        double[] row = new double[comm.size()];
        Arrays.fill(row, Double.NaN);
        pairs.forEach(p -> row[p.peer()] = p.gbps());
        return allGather(comm, row);
    }

    /**
     * The pairs to measure again: the outliers of {@code figures} (each pair's slower side by {@link PairFigures},
     * as the server judges it), the slowest first, in rounds of disjoint pairs, but for the pairs of a rank slow with
     * most of its peers; none when more than N pairs are outliers, a fault too widespread to be a passing one.
     */
    static PairSchedule retestSchedule(double[][] figures, SuspectFinder finder) {
        int n = figures.length;
        Map<Pair, Double> pairs = PairFigures.bandwidths(figures);
        List<Pair> slow = finder.slowPairs(pairs);
        if (slow.size() > n) {
            return PairSchedule.of(n, List.of());
        }
        // A rank slow with most of its peers is no hiccup of one pair: its pairs are not measured again.
        Set<Integer> slowRanks = finder.slowRanks(pairs, slow);
        return PairSchedule.of(n, slow.stream().filter(p -> !slowRanks.contains(p.low()) && !slowRanks.contains(p.high()))
                .toList());
    }

    /** The faster of a pair's two measurements counts: a slow link is slow both times, a hiccup only once. */
    private static void keepFaster(List<PairMeasurement> pairs, PairMeasurement again) {
        for (int i = 0; i < pairs.size(); i++) {
            if (pairs.get(i).peer() == again.peer()) {
                if (again.gbps() > pairs.get(i).gbps()) {
                    pairs.set(i, again);
                }
                return;
            }
        }
        pairs.add(again);
    }

    /**
     * GB/s of {@code bytes} of float32 summed into a second buffer by one thread, the ring's reduction step: one
     * reduction per lock-step step, until every rank has enough (see {@link #SOLO_REPEATS}); the fastest counts.
     */
    static double soloOnHost(long bytes, Lockstep lock) {
        long count = Math.max(1, bytes / DataType.FLOAT32.bytes());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(count * DataType.FLOAT32.bytes(), 64);
            MemorySegment b = arena.allocate(count * DataType.FLOAT32.bytes(), 64);
            a.fill((byte) 1);
            b.fill((byte) 2);
            for (int i = 0; i < WARMUP_CALLS; i++) {
                HostReduction.combine(a, b, a, Math.min(count, WARMUP_ELEMENTS), DataType.FLOAT32, ReduceOp.SUM);
            }
            return gbps(count * DataType.FLOAT32.bytes(), Math.max(1, steps(lock,
                    () -> {
                        long start = System.nanoTime();
                        HostReduction.combine(a, b, a, count, DataType.FLOAT32, ReduceOp.SUM);
                        return System.nanoTime() - start;
                    })));
        }
    }

    /** GB/s of an all-reduce on a one-rank communicator: NCCL copies the buffer on the device, no peer involved. */
    static double soloOnDevice(Communicator comm, long bytes, Lockstep lock) {
        long count = Math.max(1, bytes / DataType.FLOAT32.bytes());
        try (Communicator alone = comm.split(comm.rank(), 0);
             CommBuffer send = alone.allocate(count * DataType.FLOAT32.bytes());
             CommBuffer recv = alone.allocate(count * DataType.FLOAT32.bytes())) {
            alone.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM);
            return gbps(count * DataType.FLOAT32.bytes(), Math.max(1, steps(lock, () -> alone.timeNanos(
                    () -> alone.allReduce(send, recv, count, DataType.FLOAT32, ReduceOp.SUM)))));
        }
    }

    /**
     * Runs {@code step} (which returns its own time) once per lock-step barrier until no rank needs more: at least
     * {@link #SOLO_REPEATS} and {@link #SOLO_NANOS}, and this JVM's compiler quiet for {@link #JIT_QUIET_NANOS};
     * every rank stops at the same step. Returns the fastest step.
     */
    private static long steps(Lockstep lock, java.util.function.LongSupplier step) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long best = Long.MAX_VALUE;
        long started = System.nanoTime();
        long compiledMillis = jitTimed ? jit.getTotalCompilationTime() : 0;
        long jitChanged = started;
        for (int i = 0; ; i++) {
            best = Math.min(best, step.getAsLong());
            long now = System.nanoTime();
            if (jitTimed && jit.getTotalCompilationTime() != compiledMillis) {
                compiledMillis = jit.getTotalCompilationTime();
                jitChanged = now;
            }
            boolean enough = i + 1 >= SOLO_REPEATS && now - started >= SOLO_NANOS
                    && now - jitChanged >= JIT_QUIET_NANOS;
            boolean more = !enough && now - started < SOLO_MAX_NANOS;
            if (lock.agree(more ? 1 : 0) == 0 || i + 1 >= MAX_STEPS) {
                return best;
            }
        }
    }

    /**
     * Both directions at once with {@code peer}: {@code iterations} exchanges of {@code count} floats each way, the
     * figure their bytes over their wall time (a stall within them counts), beside the median and the worst
     * exchange; then the 8-byte latency, from the median exchange.
     */
    private static PairMeasurement exchange(Communicator comm, CommBuffer send, CommBuffer recv, long count, int peer,
                                            int iterations) {
        comm.sendRecv(send, peer, recv, peer, count, DataType.FLOAT32); // warm-up: connections, buffers
        long[] nanos = new long[iterations];
        long start = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            nanos[i] = comm.timeNanos(() -> comm.sendRecv(send, peer, recv, peer, count, DataType.FLOAT32));
        }
        long wall = Math.max(1, System.nanoTime() - start);
        Arrays.sort(nanos);
        long small = LATENCY_BYTES / DataType.FLOAT32.bytes();
        long latency = medianNanos(comm, LATENCY_ITERATIONS,
                () -> comm.sendRecv(send, peer, recv, peer, small, DataType.FLOAT32));
        long bytes = count * DataType.FLOAT32.bytes();
        return new PairMeasurement(peer, bytes, gbps(bytes * iterations, wall), latency / 1000.0,
                gbps(bytes, Math.max(1, nanos[iterations / 2])), gbps(bytes, Math.max(1, nanos[iterations - 1])));
    }

    private static long medianNanos(Communicator comm, int times, Runnable exchange) {
        long[] nanos = new long[times];
        for (int i = 0; i < times; i++) {
            nanos[i] = comm.timeNanos(exchange);
        }
        java.util.Arrays.sort(nanos);
        return nanos[times / 2];
    }

    private static double gbps(long bytes, long nanos) {
        return (double) bytes / nanos;
    }

    private static void checkCancelled(Communicator comm, BooleanSupplier cancelled, String phase) {
        if (Thread.currentThread().isInterrupted() || cancelled.getAsBoolean()) {
            throw new CancellationException("validation cancelled on rank " + comm.rank() + " before phase " + phase);
        }
    }
}
