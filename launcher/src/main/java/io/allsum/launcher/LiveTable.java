package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;

import java.io.PrintWriter;
import java.util.List;

/**
 * Prints a job's table on stdout as its rows arrive from the server: the header with the first row, each row once
 * (under the chosen {@link TimeStatistic}), and the footer, over the rows measured, when the job has ended.
 */
final class LiveTable {

    private final PrintWriter out;
    private final Progress progress;
    private final String backend;
    private final int worldSize;
    private final List<ResultTable.RankLine> ranks;
    private final TimeStatistic statistic;
    private int printed;
    private boolean headerPrinted;

    LiveTable(PrintWriter out, Progress progress, String backend, int worldSize, List<ResultTable.RankLine> ranks,
              TimeStatistic statistic) {
        this.out = out;
        this.progress = progress;
        this.backend = backend;
        this.worldSize = worldSize;
        this.ranks = ranks;
        this.statistic = statistic;
    }

    /** Prints the rows of {@code job} not printed yet (a running job's rows are those every rank measured). */
    synchronized void show(Job job) {
        List<SizeResult> rows = job.results() == null ? List.of() : job.results();
        if (rows.size() <= printed) {
            return;
        }
        progress.done();
        header(job);
        CollectiveOp op = job.spec().withDefaults().op();
        for (SizeResult row : rows.subList(printed, rows.size())) {
            out.println(ResultTable.row(job.spec(), statistic.apply(row, op, worldSize)));
        }
        printed = rows.size();
        out.flush();
        progress.printed();
    }

    /** The ended job: its last rows, then the footer, unless it failed before any row (nothing to foot). */
    synchronized void finish(Job job) {
        show(job);
        if (!headerPrinted && job.state() != JobState.SUCCEEDED) {
            return;
        }
        header(job);
        out.print(ResultTable.footer(statistic.apply(job, worldSize)));
        out.flush();
    }

    private void header(Job job) {
        if (!headerPrinted) {
            out.print(ResultTable.header(job.spec(), backend, worldSize, ranks, statistic));
            headerPrinted = true;
        }
    }
}
