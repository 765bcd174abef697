#!/usr/bin/env python3
"""Reads call c's probe lines (rdvfresh.txt): per round, when each fresh client process's thread read the status line
of its answer ("arrived") and when its join returned ("received"), against the last rank's t0 (System.nanoTime, one
host). Usage: python3 probe.py rdvfresh.txt"""
import sys

rounds, cur = [], []
for line in open(sys.argv[1]):
    if line.startswith('PROBE rank'):
        _, _, rank, arrived, received = line.split()
        cur.append((int(rank), int(arrived), int(received)))
    elif line.startswith('PROBE t0'):
        p = line.split()
        rounds.append((int(p[2]), int(p[4]), cur))
        cur = []
for t0, own, c in rounds:
    arr = sorted((a - t0) / 1e6 for _, a, _ in c)
    proc = sorted((r - a) / 1e6 for _, a, r in c)
    rec = sorted((r - t0) / 1e6 for _, _, r in c)
    q = lambda xs, f: xs[min(len(xs) - 1, int(f * len(xs)))]
    print("n=%d own %.2f | arrived ms min %.2f p50 %.2f p90 %.2f max %.2f | arrived->received p50 %.2f p90 %.2f "
          "max %.2f | last received %.2f" % (len(c), (own - t0) / 1e6, arr[0], q(arr, .5), q(arr, .9), arr[-1],
                                              q(proc, .5), q(proc, .9), proc[-1], rec[-1]))
