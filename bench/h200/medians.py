#!/usr/bin/env python3
"""Per-size medians of the out-of-place time column over every table in a run.sh part file, grouped by series.
A series is the '## ...' heading above a table with any 'rep N' / 'rep N,' removed, e.g.
  python3 bench/h200/medians.py docs/benchmarks/raw/X/small2.txt [--ref SERIES] [--stat median|min]
prints one column per series (us), then each series / the reference series (default: the first one).
--stat min takes each series' fastest table per size instead (the host's fast state, where it flips between two)."""
import re, sys, statistics, collections

def parse(path):
    series = collections.OrderedDict(); head = None; gpus = ''
    for line in open(path, errors='replace'):
        if line.startswith('## '):
            h = line[3:].strip()
            m = re.match(r'(\d) GPU\(s\), rep \d+, (.*)', h)
            if m:  # part flags: "N GPU(s), rep R, worker flags X: ..." then "## backend alone" / "## job path"
                gpus = m.group(1) + ' GPU ' + m.group(2).split(':')[0]; continue
            head = re.sub(r'\brep \d+:?\s*', '', h)
            if gpus and head in ('backend alone', 'job path'):
                head = gpus + ', ' + head
            continue
        m = re.match(r'^\s+(\d+)\s+\d+\s+\w+\s+sum\s+-?\d+\s+([\d.]+)', line)
        if m and head:
            series.setdefault(head, collections.defaultdict(list))[int(m.group(1))].append(float(m.group(2)))
    return series

def main():
    args = sys.argv[1:]; ref = None; stat = statistics.median
    if '--ref' in args:
        i = args.index('--ref'); ref = args[i + 1]; del args[i:i + 2]
    if '--stat' in args:
        i = args.index('--stat'); stat = {'median': statistics.median, 'min': min}[args[i + 1]]; del args[i:i + 2]
    series = parse(args[0])
    names = list(series)
    for i, n in enumerate(names):
        print(f'# s{i}: {n} ({max(len(v) for v in series[n].values())} tables)')
    r = names.index(next(n for n in names if ref and ref in n)) if ref else 0
    sizes = sorted(set().union(*[set(series[n]) for n in names]))
    print('size ' + ' '.join(f's{i:<7}' for i in range(len(names))) + ' ' + ' '.join(f's{i}/s{r}' for i in range(len(names)) if i != r))
    for s in sizes:
        med = [stat(series[n][s]) if s in series[n] else float('nan') for n in names]
        print(f'{s} ' + ' '.join(f'{m:7.2f}' for m in med) + ' ' + ' '.join(f'{med[i] / med[r]:.3f}' for i in range(len(names)) if i != r))

if __name__ == '__main__':
    main()
