#!/usr/bin/env python3
"""Each run's lock-step evidence from a fault-matrix folder: per rank, the share of the lock-step time the others
waited for it and at how many barriers it was late; then its suspects (named or not) and how each was confirmed.

  python3 bench/validate/waits.py /tmp/fm
"""
import glob
import json
import sys


def order(path):
    name = path.rsplit("/", 1)[-1][:-5]
    row, run = name.rsplit("-", 1)
    return row, int(run)


def main(folder):
    for f in sorted(glob.glob(folder + "/*-*.json"), key=order):
        d = json.load(open(f))
        name = f.rsplit("/", 1)[-1][:-5]
        if not d.get("waits"):
            print(f"{name:22s} no waits: {d.get('error')}")
            continue
        ls = d["lockstepSeconds"]
        w = d["waits"]
        cells = " ".join(f"{x['rank']}:{100 * x['causedSeconds'] / ls:4.1f}%/{x['lateBarriers']:3d}" for x in w)
        print(f"{name:22s} ls {ls:5.2f}s b {w[0]['barriers']:3d} | {cells}")
        for label, key in (("SUSPECT", "suspects"), ("uncnf  ", "unconfirmed")):
            for s in d.get(key) or []:
                print(f"      {label} {s['kind']} {s['rank']}: {s['reason'][:90]} || {(s.get('confirmation') or '')[:200]}")


if __name__ == "__main__":
    main(sys.argv[1])
