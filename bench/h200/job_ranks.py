#!/usr/bin/env python3
"""Per-size times of the job path from its --json files (one per repetition), by rank: the median over the files of
rank 0's time (what native nccl-tests-style programs and NcclSelfCheck print), of every other rank's, and of the
average over ranks (what `allsum` prints by default, -a 1), in us, e.g.
  python3 bench/h200/job_ranks.py /tmp/small2-job-*.json"""
import json, statistics, sys, collections

def main():
    files = sys.argv[1:]
    if not files:
        print(__doc__, file=sys.stderr); return 2
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    ranks = 0
    for path in files:
        for size in json.load(open(path))['sizes']:
            times = size['rankTimesMicros']; ranks = max(ranks, len(times))
            for r, t in enumerate(times):
                per[size['bytes']][r].append(t)
            per[size['bytes']]['avg'].append(sum(times) / len(times))
    print('# job path, %d files: median over the files of each rank\'s time and of the average over ranks (us)' % len(files))
    print('size ' + ' '.join('rank%-4d' % r for r in range(ranks)) + ' avg')
    for b in sorted(per):
        cols = [statistics.median(per[b][r]) for r in range(ranks)] + [statistics.median(per[b]['avg'])]
        print('%d ' % b + ' '.join('%7.2f' % c for c in cols))
    return 0

if __name__ == '__main__':
    sys.exit(main())
