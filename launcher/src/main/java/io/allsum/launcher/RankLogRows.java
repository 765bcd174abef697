package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.SizeResult;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rows of a running job as the local ranks log them, one line per rank and size ("Job J size i/n: B B, C elements,
 * T us, W wrong", logged by the worker's RunnerJobExecutor): a row is complete once every rank logged it, and is then
 * folded like the server folds the final reports (per-rank times, wrong elements summed, busbw from the op's
 * factor). The server reports a job's rows only when every rank finished, so this is how a local run prints each
 * row as soon as it is measured; the server's final rows stay authoritative for the table's footer and the JSON.
 */
public final class RankLogRows {

    private static final Pattern LINE = Pattern.compile(
            "Job (\\S+) size (\\d+)/(\\d+): (\\d+) B, (\\d+) elements, ([0-9.Ee+-]+|NaN|Infinity) us, (-?\\d+) wrong");

    private final List<Path> logs;
    private final long[] offsets;
    private final StringBuilder[] partial;
    private final Map<Integer, double[]> times = new HashMap<>();
    private final Map<Integer, long[]> wrong = new HashMap<>();
    private final Map<Integer, long[]> bytes = new HashMap<>();
    private final Map<Integer, Integer> seen = new HashMap<>();
    private final Map<Integer, Long> counts = new HashMap<>();

    /** {@code logs} in rank order. */
    public RankLogRows(List<Path> logs) {
        this.logs = List.copyOf(logs);
        this.offsets = new long[logs.size()];
        this.partial = new StringBuilder[logs.size()];
        for (int i = 0; i < partial.length; i++) {
            partial[i] = new StringBuilder();
        }
    }

    /**
     * Reads what the ranks logged since the last call and returns the rows of {@code jobId} that became complete,
     * in size order, starting at row {@code from} (rows before it were returned already).
     */
    public List<SizeResult> poll(String jobId, CollectiveOp op, int from) {
        int n = logs.size();
        for (int rank = 0; rank < n; rank++) {
            for (String line : newLines(rank)) {
                Matcher m = LINE.matcher(line);
                if (!m.find() || !m.group(1).equals(jobId)) {
                    continue;
                }
                int index = Integer.parseInt(m.group(2)) - 1;
                double[] t = times.computeIfAbsent(index, k -> new double[n]);
                long[] w = wrong.computeIfAbsent(index, k -> new long[n]);
                long[] b = bytes.computeIfAbsent(index, k -> new long[n]);
                t[rank] = Double.parseDouble(m.group(6));
                w[rank] = Long.parseLong(m.group(7));
                b[rank] = Long.parseLong(m.group(4));
                counts.putIfAbsent(index, Long.parseLong(m.group(5)));
                seen.merge(index, 1, Integer::sum);
            }
        }
        List<SizeResult> rows = new ArrayList<>();
        for (int i = from; seen.getOrDefault(i, 0) >= n; i++) {
            rows.add(row(i, op, n));
        }
        return rows;
    }

    private SizeResult row(int index, CollectiveOp op, int n) {
        double slowest = 0;
        long wrongSum = 0;
        boolean verified = true;
        List<Double> rankTimes = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            slowest = Math.max(slowest, times.get(index)[r]);
            rankTimes.add(times.get(index)[r]);
            long w = wrong.get(index)[r];
            if (w < 0) {
                verified = false;
            } else {
                wrongSum += w;
            }
        }
        long size = bytes.get(index)[0];
        double algbw = slowest > 0 ? size / slowest / 1e3 : 0;
        return new SizeResult(size, counts.get(index), slowest, algbw, algbw * op.busBandwidthFactor(n), verified ? wrongSum : -1,
                rankTimes);
    }

    private List<String> newLines(int rank) {
        List<String> lines = new ArrayList<>();
        try (RandomAccessFile f = new RandomAccessFile(logs.get(rank).toFile(), "r")) {
            long length = f.length();
            if (length <= offsets[rank]) {
                return lines;
            }
            f.seek(offsets[rank]);
            byte[] chunk = new byte[(int) Math.min(length - offsets[rank], 1 << 20)];
            f.readFully(chunk);
            offsets[rank] += chunk.length;
            partial[rank].append(new String(chunk, StandardCharsets.UTF_8));
            int nl;
            while ((nl = partial[rank].indexOf("\n")) >= 0) {
                lines.add(partial[rank].substring(0, nl));
                partial[rank].delete(0, nl + 1);
            }
        } catch (IOException e) {
            // A log not there yet (or gone) has nothing new.
        }
        return lines;
    }
}
