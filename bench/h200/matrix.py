# Submits every collective x dtype (x every reduction where the op reduces) to a standing allsum group over the
# REST API, waits for all of them, and prints one line per job: state, rows, wrong elements, reason.
# Usage: python3 matrix.py URL GROUP TOKEN [minBytes maxBytes stepFactor]   (exit 1 if any job did not succeed)
import os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rest import client  # noqa: E402

url, group, token = sys.argv[1], sys.argv[2], sys.argv[3]
lo, hi, step = (int(a) for a in (sys.argv[4:7] if len(sys.argv) > 6 else (0, 64 << 20, 4)))
call = client(url, token)

dtypes = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "bfloat16", "float32", "float64",
          "float8_e4m3", "float8_e5m2"]
cases = []
for op in ["all_reduce", "reduce_scatter", "reduce", "all_gather", "broadcast", "send_recv"]:
    for d in dtypes:
        for redop in (["sum", "prod", "max", "min", "avg"] if op in ("all_reduce", "reduce_scatter", "reduce") else ["sum"]):
            if redop == "avg" and d.startswith("float8"):
                print(f"{op:15} {d:12} {redop:5} skipped: NCCL has no avg for float8 (refused with a clear error)")
                continue
            cases.append((op, d, redop))
jobs = []
for op, d, redop in cases:
    job = call("POST", f"/rendezvous/{group}/jobs", {"op": op, "dtype": d, "redop": redop, "minBytes": lo,
                                                    "maxBytes": hi, "stepFactor": step, "iterations": 5,
                                                    "warmupIterations": 2, "verify": True, "timeoutSeconds": 120})
    jobs.append(((op, d, redop), job["jobId"]))
t0 = time.time()
bad = 0
for (op, d, redop), jid in jobs:
    while True:
        job = call("GET", f"/rendezvous/{group}/jobs/{jid}")
        if job["state"] in ("succeeded", "failed", "cancelled") or time.time() - t0 > 600:
            break
        time.sleep(0.2)
    rows = job.get("results") or []
    wrong = sum(max(r["wrongElements"], 0) for r in rows)
    ok = job["state"] == "succeeded" and wrong == 0
    bad += not ok
    print(f"{op:15} {d:12} {redop:5} {job['state']:10} sizes={len(rows):3} wrong={wrong}"
          + ("" if ok else f"  reason: {job.get('failureReason')}"))
print(f"# {len(jobs)} jobs, {len(jobs) - bad} succeeded with 0 wrong, {bad} not; {time.time() - t0:.1f} s")
sys.exit(1 if bad else 0)
