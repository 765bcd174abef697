#!/usr/bin/env python3
"""One all-sum sweep as a job on a standing allsum group, over the REST API only (no launcher JVM): submits it, polls
once a second until it ends, and prints the result as a table in nccl-tests' layout with rank 0's time per size
(what native programs and NcclSelfCheck print), so that bench/h200/medians.py and states.py read it.
Usage: python3 rest_sweep.py URL GROUP TOKEN MIN_BYTES MAX_BYTES ITERS WARMUP   (exit 1 unless the job succeeded)"""
import os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rest import client  # noqa: E402


def main():
    if len(sys.argv) != 8:
        print(__doc__, file=sys.stderr); return 2
    url, group, token = sys.argv[1:4]
    lo, hi, iters, warmup = (int(a) for a in sys.argv[4:8])
    call = client(url, token)

    job = call("POST", f"/rendezvous/{group}/jobs", {"op": "all_reduce", "dtype": "float32", "redop": "sum",
                                                    "minBytes": lo, "maxBytes": hi, "stepFactor": 2,
                                                    "iterations": iters, "warmupIterations": warmup, "verify": True,
                                                    "timeoutSeconds": 600})
    deadline = time.time() + 660
    while True:
        time.sleep(1)  # a quiet poll: the point is to measure without a client busy next to the ranks
        job = call("GET", f"/rendezvous/{group}/jobs/{job['jobId']}")
        if job["state"] in ("succeeded", "failed", "cancelled", "interrupted") or time.time() > deadline:
            break
    print("# allsum job %s over the REST API: %s" % (job["jobId"], job["state"]))
    print("#       size         count      type   redop    root     time   algbw   busbw  #wrong  (rank 0's time, us)")
    for r in job.get("results") or []:
        ranks = r.get("rankTimesMicros") or [r["timeMicros"]]
        t = ranks[0]
        alg = r["bytes"] / t / 1e3 if t > 0 else 0.0
        bus = alg * 2 * (len(ranks) - 1) / len(ranks)  # all-reduce's bus factor, as nccl-tests
        print("%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f  %6d" % (r["bytes"], r["count"], t, alg, bus,
                                                                                 max(r["wrongElements"], 0)))
    return 0 if job["state"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
