package io.allsum.launcher;

import io.allsum.model.format.NcclTestsTable;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.SizeResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Formats a job the way nccl-tests prints a run: '#' header lines (sweep parameters, one line per rank), one row
 * per size ({@code size count type redop root  time algbw busbw #wrong}), then the out-of-bounds and average
 * bus bandwidth footer ({@link LiveTable} prints them as rows arrive). Columns, rows and footer are shared-model's
 * {@link NcclTestsTable}.
 */
public final class ResultTable {

    /** One rank as the "#  Rank" header lines show it. */
    public record RankLine(int rank, Long pid, String host, String device, String endpoint) {
    }

    private ResultTable() {
    }

    public static String header(JobSpec spec, String backend, int worldSize, List<RankLine> ranks) {
        return header(spec, backend, worldSize, ranks, TimeStatistic.MAX);
    }

    public static String header(JobSpec spec, String backend, int worldSize, List<RankLine> ranks,
                                TimeStatistic statistic) {
        JobSpec s = spec.withDefaults();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "# allsum %s  backend: %s  ranks: %d  minBytes %d maxBytes %d step: %s warmup iters: %d"
                        + " iters: %d validation: %d in-place: %d%n",
                s.op(), backend, worldSize, s.minBytes(), s.maxBytes(),
                s.stepsLinearly() ? s.stepBytes() + "(bytes)" : s.stepFactor() + "(factor)", s.warmupIterations(),
                s.iterations(), s.verify() ? 1 : 0, s.inPlace() ? 1 : 0));
        out.append(String.format(Locale.ROOT, "# time: %s per iteration (-a %d)%n", statistic.description(),
                statistic.ordinal()));
        out.append("#\n");
        out.append("# Using devices\n");
        for (RankLine r : ranks) {
            out.append(String.format(Locale.ROOT, "#  Rank %2d Group  0 Pid %6s on %10s device %s%s%n",
                    r.rank(), r.pid() == null ? "-" : r.pid(), orDash(r.host()),
                    r.device() == null || r.device().isBlank() ? "cpu" : r.device(),
                    r.endpoint() == null ? "" : " [" + r.endpoint() + "]"));
        }
        out.append("#\n");
        out.append(NcclTestsTable.columnHeader(s.inPlace() ? "in-place" : "out-of-place"));
        return out.toString();
    }

    public static String row(JobSpec spec, SizeResult r) {
        JobSpec s = spec.withDefaults();
        String redop = s.op().reduces() ? s.redop().toString() : "none";
        int root = s.op().rooted() ? s.root() : -1;
        return NcclTestsTable.row(new NcclTestsTable.Row(r.bytes(), r.count(), s.dtype(), redop, root,
                r.timeMicros(), r.algBandwidthGBps(), r.busBandwidthGBps(), r.wrongElements()));
    }

    public static String footer(Job job) {
        List<SizeResult> results = job.results() == null ? List.of() : job.results();
        long wrong = totalWrongElements(job);
        boolean verified = results.stream().allMatch(r -> r.wrongElements() >= 0);
        double avgBusBw = results.stream().mapToDouble(SizeResult::busBandwidthGBps).average().orElse(0);
        return NcclTestsTable.footer(wrong, verified, results.size(), avgBusBw);
    }

    /** Wrong elements summed over sizes; unverified sizes (-1) count as zero. */
    public static long totalWrongElements(Job job) {
        List<SizeResult> results = job.results() == null ? new ArrayList<>() : job.results();
        return results.stream().mapToLong(SizeResult::wrongElements).filter(w -> w > 0).sum();
    }

    private static String orDash(String s) {
        return s == null || s.isBlank() ? "-" : s;
    }
}
