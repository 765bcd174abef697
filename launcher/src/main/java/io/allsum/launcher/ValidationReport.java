package io.allsum.launcher;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.ValidationResult.PairRetransmits;
import io.allsum.model.validate.ValidationResult.SoloFigure;
import io.allsum.model.validate.HostPairs;
import io.allsum.model.validate.PairMatrix;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.Suspect;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Prints a validation job phase by phase, in nccl-tests' style ('#' comments, aligned columns), each phase once:
 * as soon as the job's view holds all of it, or at the end whatever was measured. The last line names the suspects
 * or says {@code healthy}.
 */
final class ValidationReport {

    private final String backend;
    private final int worldSize;
    private final PrintWriter out;
    private boolean soloShown;
    private boolean pairsShown;
    private boolean sweepShown;
    private boolean verdictShown;

    ValidationReport(String backend, int worldSize, PrintWriter out) {
        this.backend = backend;
        this.worldSize = worldSize;
        this.out = out;
    }

    /** Prints what {@code job} holds that was not printed yet. */
    void show(Job job) {
        ValidationResult v = job.validation();
        if (v == null) {
            return;
        }
        boolean ended = job.state().isFinal();
        if (!soloShown && (v.solo().size() == worldSize || ended && !v.solo().isEmpty())) {
            solo(v);
            soloShown = true;
        }
        if (!pairsShown && (v.pairs().size() == worldSize * (worldSize - 1) / 2 || ended && !v.pairs().isEmpty())) {
            pairs(v);
            pairsShown = true;
        }
        if (!sweepShown && ended && job.results() != null && !job.results().isEmpty()) {
            sweep(job, v);
            sweepShown = true;
        }
        if (!verdictShown && v.verdict() != null) {
            verdict(v);
            verdictShown = true;
        }
        out.flush();
    }

    private void solo(ValidationResult v) {
        out.printf(Locale.ROOT, "# phase 1: each rank alone (%s), GB/s%n", backend.equalsIgnoreCase("nccl")
                ? "all-reduce on a one-rank communicator: a device copy" : "host reduction of float32, one thread");
        out.printf(Locale.ROOT, "# %5s  %-20s %-8s %10s%n", "rank", "host", "device", "GB/s");
        Map<Integer, RankPlace> places = places(v);
        for (SoloFigure s : v.solo()) {
            RankPlace p = places.get(s.rank());
            out.printf(Locale.ROOT, "  %5d  %-20s %-8s %10.3f%n", s.rank(), p == null ? "-" : p.host(),
                    p == null ? "-" : p.device(), s.gbps());
        }
    }

    private void pairs(ValidationResult v) {
        out.printf(Locale.ROOT, "# phase 2: every pair, both ways at once (%d rounds of disjoint pairs)%n",
                worldSize % 2 == 0 ? worldSize - 1 : worldSize);
        out.printf(Locale.ROOT, "# %5s %5s %10s %12s%n", "rank", "peer", "GB/s", "latency(us)");
        for (PairFigure p : v.pairs()) {
            out.printf(Locale.ROOT, "  %5d %5d %10.3f %12.1f%n", p.low(), p.high(), p.gbps(), p.latencyMicros());
        }
        out.print(PairMatrix.render(worldSize, v.pairs()));
        List<HostPairs.HostPair> hosts = HostPairs.of(v.ranks(), v.pairs());
        if (!hosts.isEmpty()) {
            out.println("# host pairs: their rank pairs' median and lowest GB/s");
            out.printf(Locale.ROOT, "# %-20s %-20s %5s %10s %10s%n", "host", "peer host", "pairs", "median", "lowest");
            for (HostPairs.HostPair h : hosts) {
                out.printf(Locale.ROOT, "  %-20s %-20s %5d %10.3f %10.3f%n", h.host(), h.peerHost(), h.pairs(),
                        h.medianGBps(), h.lowestGBps());
            }
        }
        if (v.pairsSeconds() != null) {
            out.printf(Locale.ROOT, "# pair phase: %.2f s (the slowest rank's clock)%n", v.pairsSeconds());
        }
    }

    private void sweep(Job job, ValidationResult v) {
        out.println("# phase 3: all together, the all-reduce sweep (time: the slowest rank)");
        List<ResultTable.RankLine> lines = v.ranks().stream()
                .map(p -> new ResultTable.RankLine(p.rank(), null, p.host(), p.device(), null)).toList();
        out.print(ResultTable.header(job.spec(), backend, worldSize, lines));
        for (SizeResult row : job.results()) {
            out.println(ResultTable.row(job.spec(), row));
        }
        out.print(ResultTable.footer(job));
        StringBuilder arrivals = new StringBuilder("# waited for (smallest own time, well below the median) at ")
                .append(job.results().size()).append(" sizes:");
        boolean any = false;
        for (int rank = 0; rank < v.lastArrivals().size(); rank++) {
            if (v.lastArrivals().get(rank) > 0) {
                arrivals.append(" rank ").append(rank).append(' ').append(v.lastArrivals().get(rank)).append('x');
                any = true;
            }
        }
        out.println(any ? arrivals : arrivals.append(" none"));
        if (v.waits() != null && !v.waits().isEmpty() && v.lockstepSeconds() != null) {
            out.printf(Locale.ROOT, "# lock-step barriers (%d over %.2f s): seconds the others waited for each rank:",
                    v.waits().getFirst().barriers(), v.lockstepSeconds());
            v.waits().forEach(w -> out.printf(Locale.ROOT, " %d:%.3f", w.rank(), w.causedSeconds()));
            out.println();
        }
        SizeResult largest = job.results().getLast();
        if (largest.rankTimesMicros() != null) {
            out.println("# own times at " + largest.bytes() + " B (us): " + largest.rankTimesMicros().stream()
                    .map(t -> String.format(Locale.ROOT, "%.1f", t)).collect(Collectors.joining(" ")));
        }
        retransmits(v);
    }

    /** The kernel's lost segments per pair, the most losing first (at most 8); nothing where none were read. */
    private void retransmits(ValidationResult v) {
        if (v.retransmits().isEmpty()) {
            return;
        }
        long segments = v.retransmits().stream().mapToLong(PairRetransmits::segmentsOut).sum();
        long resent = v.retransmits().stream().mapToLong(PairRetransmits::retransmits).sum();
        long lost = v.retransmits().stream().mapToLong(PairRetransmits::lost).sum();
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                "# TCP segments lost (the kernel's counters, whole validation): %d of %d over %d pairs (%d resent, "
                        + "%d of them spuriously: the peer had them)", lost, segments, v.retransmits().size(), resent,
                resent - lost));
        v.retransmits().stream().filter(p -> p.lost() > 0)
                .sorted(java.util.Comparator.comparingDouble(PairRetransmits::percent).reversed()).limit(8)
                .forEach(p -> line.append(String.format(Locale.ROOT, "; %d-%d %.2f%%", p.low(), p.high(),
                        p.percent())));
        out.println(line);
    }

    /** The sweep without {@code left} (a job with those {@code excludeRanks}): its table, the kept ranks' lines. */
    void excluded(Job sweep, List<Integer> left, ValidationResult v) {
        out.println("# without ranks " + left + ": the all-reduce sweep on the other " + (worldSize - left.size())
                + " ranks (time: the slowest rank)");
        List<ResultTable.RankLine> lines = v.ranks().stream().filter(p -> !left.contains(p.rank()))
                .map(p -> new ResultTable.RankLine(p.rank(), null, p.host(), p.device(), null)).toList();
        out.print(ResultTable.header(sweep.spec(), backend, worldSize - left.size(), lines));
        for (SizeResult row : sweep.results()) {
            out.println(ResultTable.row(sweep.spec(), row));
        }
        out.print(ResultTable.footer(sweep));
        out.flush();
    }

    private void verdict(ValidationResult v) {
        out.println("# phase 4: verdict: " + v.verdict());
        if (v.suspects() != null && !v.suspects().isEmpty()) {
            out.printf(Locale.ROOT, "# %-5s %5s  %-20s %-8s %s%n", "kind", "rank", "host", "device", "reason");
            for (Suspect s : v.suspects()) {
                out.printf(Locale.ROOT, "  %-5s %5s  %-20s %-8s %s%n", s.kind(), s.rank() < 0 ? "-" : s.rank()
                        + (s.peerRank() >= 0 ? "-" + s.peerRank() : ""), s.host() == null ? "-" : s.host(),
                        s.device() == null ? "-" : s.device(), s.reason());
                if (s.confirmation() != null) {
                    out.printf(Locale.ROOT, "  %-5s %5s  %s%n", "", "", s.confirmation());
                }
            }
        }
        if (v.unconfirmed() != null && !v.unconfirmed().isEmpty()) {
            out.println("# found, then fine when measured again (not named):");
            for (Suspect s : v.unconfirmed()) {
                out.printf(Locale.ROOT, "  %-5s %5s  %s; %s%n", s.kind(), s.rank(), s.reason(), s.confirmation());
            }
        }
        out.println(summary(v));
    }

    /** The one line naming the suspects, or saying healthy. */
    static String summary(ValidationResult v) {
        if (v.suspects() == null || v.suspects().isEmpty()) {
            return "validate: " + v.verdict() + " (" + v.ranks().size() + " ranks, " + v.pairs().size()
                    + (v.pairs().size() == 1 ? " pair)" : " pairs)");
        }
        return "validate: " + v.suspects().size() + " suspect" + (v.suspects().size() == 1 ? "" : "s") + ": "
                + v.suspects().stream().map(ValidationReport::name).collect(Collectors.joining(", "));
    }

    private static String name(Suspect s) {
        return switch (s.kind()) {
            case HOST -> "host " + s.host();
            case LINK -> "link " + s.rank() + "-" + s.peerRank() + " (" + s.host() + ")";
            case RANK -> "rank " + s.rank() + " (" + s.host() + ", device " + s.device() + ")";
            case STRAGGLER -> "straggler rank " + s.rank() + " (" + s.host() + ", device " + s.device() + ")";
            case UNRESPONSIVE -> "unresponsive rank " + s.rank() + " (" + s.host() + ")";
            case GROUP -> "the group (" + s.reason() + ")";
        };
    }

    private static Map<Integer, RankPlace> places(ValidationResult v) {
        Map<Integer, RankPlace> places = new LinkedHashMap<>();
        v.ranks().forEach(p -> places.put(p.rank(), p));
        return places;
    }
}
