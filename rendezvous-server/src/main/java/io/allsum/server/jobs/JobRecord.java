package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.jobs.SizeResult;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/** The server's mutable record of one job; guarded by its {@link GroupJobs}' lock. */
final class JobRecord {

    final String jobId;
    final String group;
    final long seq;
    final JobSpec spec;
    final Instant submittedAt;
    final long submittedNanos;

    JobState state = JobState.QUEUED;
    /**
     * Set when the first rank receives the job: the generation and world size it runs in, the ranks that run its
     * sweep (all but {@code excludeRanks}) and the sweep's sizes for that many.
     */
    Long generation;
    int worldSize;
    List<Integer> keptRanks = List.of();
    List<Long> sizes = List.of();
    Instant dispatchedAt;
    long deadlineNanos;
    final SortedSet<Integer> receivedRanks = new TreeSet<>();
    Double dispatchLatencyMicros;
    final SortedMap<Integer, RankReport> reports = new TreeMap<>();
    /** A validation job's newest figures per rank, from partial and final reports. */
    final SortedMap<Integer, RankValidation> validations = new TreeMap<>();
    String failureReason;
    /** The ranks whose silence past the heartbeat timeout failed the job's generation. */
    List<Integer> unresponsiveRanks = List.of();
    /** While running: the rows every rank has measured (a prefix of the sweep); once ended, the final rows. */
    List<SizeResult> results = List.of();
    Instant finishedAt;
    /** Each rank's latest measured prefix (from its partial reports, then its final one), while the job runs. */
    private final Map<Integer, List<RankSizeResult>> measured = new HashMap<>();
    /** ranksWith[k]: how many ranks have measured at least k + 1 sizes. */
    private int[] ranksWith = new int[0];

    JobRecord(String jobId, String group, long seq, JobSpec spec, Instant submittedAt, long submittedNanos) {
        this.jobId = jobId;
        this.group = group;
        this.seq = seq;
        this.spec = spec;
        this.submittedAt = submittedAt;
        this.submittedNanos = submittedNanos;
    }

    /** Rows of the job's view so far: {@link #results}'s size. */
    int rows() {
        return results.size();
    }

    /**
     * Takes {@code prefix} as what {@code rank} has measured so far (a checked prefix of the sweep; a shorter one than
     * already known changes nothing) and appends the rows that every rank has now measured. Returns whether rows
     * were added. Costs O(new sizes) plus O(world size) per added row.
     */
    boolean measured(int rank, List<RankSizeResult> prefix) {
        if (ranksWith.length != sizes.size()) {
            ranksWith = new int[sizes.size()];
        }
        List<RankSizeResult> known = measured.getOrDefault(rank, List.of());
        if (prefix.size() <= known.size()) {
            return false;
        }
        measured.put(rank, List.copyOf(prefix));
        for (int k = known.size(); k < prefix.size(); k++) {
            ranksWith[k]++;
        }
        int common = results.size();
        int kept = keptRanks.size();
        if (common >= sizes.size() || ranksWith[common] < kept) {
            return false;
        }
        List<SizeResult> grown = new ArrayList<>(results);
        List<List<RankSizeResult>> byRank = new ArrayList<>(kept);
        for (int r : keptRanks) {
            byRank.add(measured.get(r));
        }
        while (common < sizes.size() && ranksWith[common] == kept) {
            grown.add(ResultAggregator.row(spec.op(), kept, common, sizes.get(common), byRank));
            common++;
        }
        results = List.copyOf(grown);
        return true;
    }

    /** The sizes {@code rank} measures: the sweep, or none for a rank the job leaves out. */
    List<Long> sizesOf(int rank) {
        return spec.excluded().contains(rank) ? List.of() : sizes;
    }

    /** The final reports of the ranks that ran the sweep, lowest rank first. */
    List<RankReport> keptReports() {
        return reports.values().stream().filter(r -> !spec.excluded().contains(r.rank())).toList();
    }

    /** The ranks' measurements are no longer needed: the job ended with its final rows. */
    void forgetMeasured() {
        measured.clear();
        ranksWith = new int[0];
    }

    /** Ranks of the job's world that have not reported yet. */
    List<Integer> missingReports() {
        return IntStream.range(0, worldSize).filter(r -> !reports.containsKey(r)).boxed().toList();
    }

    /** Ranks of the job's world that never received it. */
    List<Integer> neverReceived() {
        return IntStream.range(0, worldSize).filter(r -> !receivedRanks.contains(r)).boxed().toList();
    }

    Job view() {
        return new Job(jobId, group, seq, generation, spec, state, submittedAt, dispatchedAt, finishedAt,
                dispatchLatencyMicros, List.copyOf(reports.keySet()), failureReason, results,
                ValidationAggregator.view(this));
    }
}
