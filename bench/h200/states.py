#!/usr/bin/env python3
"""Per-size medians of a run.sh part file (small2, small2s, small1) within each of the host's two states.

On the GPU host every process, native C included, runs in a fast or a slow state (docs/benchmarks/multi-gpu.md), so
a series' median over a few tables depends on how many of its processes were fast. This classifies each table by
its launch-bound time (the median of its sizes up to 4 KiB) into the fast or slow group (the split of all tables'
launch-bound times with the least spread within the two groups), then prints, per state, each series' per-size
median over its tables in that state and the ratios to the reference series (the first), e.g.
  python3 bench/h200/states.py docs/benchmarks/raw/nccl-h200-x2-small-messages/small2.txt [--ref SERIES]
A table that switched state part-way counts as the state of most of its launch-bound sizes."""
import os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from medians import parse  # noqa: E402

LAUNCH_BOUND = 4096


def tables(series):
    """Per series, its tables as {size: time}, in the order they were run (every table has every size)."""
    out = {}
    for name, by_size in series.items():
        n = max(len(v) for v in by_size.values())
        out[name] = [{size: times[i] for size, times in by_size.items() if i < len(times)} for i in range(n)]
    return out


def split(scores):
    """The threshold between the two groups of scores with the least spread within them (1-D two-means)."""
    xs = sorted(scores)
    best = None
    for i in range(1, len(xs)):
        a, b = xs[:i], xs[i:]
        cost = sum((x - statistics.mean(a)) ** 2 for x in a) + sum((x - statistics.mean(b)) ** 2 for x in b)
        if best is None or cost < best[0]:
            best = (cost, (xs[i - 1] + xs[i]) / 2)
    return best[1]


def main():
    args = sys.argv[1:]; ref = None
    if '--ref' in args:
        i = args.index('--ref'); ref = args[i + 1]; del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr); return 2
    all_tables = tables(parse(args[0]))
    # One-table series (the non-blocking native reference) are left out: one process is one draw.
    names = [n for n, t in all_tables.items() if len(t) > 1]
    r = names.index(next(n for n in names if ref in n)) if ref else 0
    score = {}
    for n in names:
        for i, t in enumerate(all_tables[n]):
            small = [v for s, v in t.items() if s <= LAUNCH_BOUND]
            score[(n, i)] = statistics.median(small)
    cut = split(list(score.values()))
    print('# launch-bound time (median of sizes <= %d B) of each table; fast below %.2f us, slow above' % (LAUNCH_BOUND, cut))
    for i, n in enumerate(names):
        marks = ' '.join('%s%.2f' % ('F' if score[(n, k)] < cut else 'S', score[(n, k)]) for k in range(len(all_tables[n])))
        print('# s%d: %s: %s' % (i, n, marks))
    sizes = sorted(set().union(*[set(t) for n in names for t in all_tables[n]]))
    for state, keep in (('fast', lambda x: x < cut), ('slow', lambda x: x >= cut)):
        counts = ['%d' % sum(1 for k in range(len(all_tables[n])) if keep(score[(n, k)])) for n in names]
        print('## %s state (tables per series: %s)' % (state, ', '.join('s%d %s' % (i, c) for i, c in enumerate(counts))))
        print('size ' + ' '.join('s%-7d' % i for i in range(len(names))) + ' ' +
              ' '.join('s%d/s%d' % (i, r) for i in range(len(names)) if i != r) + ' ' +
              ' '.join('s%d-s%d' % (i, r) for i in range(len(names)) if i != r))
        for s in sizes:
            med = []
            for n in names:
                vals = [t[s] for k, t in enumerate(all_tables[n]) if keep(score[(n, k)]) and s in t]
                med.append(statistics.median(vals) if vals else float('nan'))
            print('%d ' % s + ' '.join('%7.2f' % m for m in med) + ' ' +
                  ' '.join('%.3f' % (med[i] / med[r]) for i in range(len(names)) if i != r) + ' ' +
                  ' '.join('%+.2f' % (med[i] - med[r]) for i in range(len(names)) if i != r))
    return 0


if __name__ == '__main__':
    sys.exit(main())
