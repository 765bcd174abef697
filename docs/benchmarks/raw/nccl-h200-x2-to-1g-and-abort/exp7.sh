#!/usr/bin/env bash
# Call 7: issue 13's whole measurement in one call: native blocking and non-blocking, the backend alone
# and the job path, 2 GPUs, 8 B .. 1 GiB (3 interleaved repetitions, 500 all-sums per size), then the abort test
# (a peer SIGKILLed or SIGSTOPped mid-collective).
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
MAXB=1G REPS=3 ITERS=500 WARMUP=50 timeout 360 bash bench/h200/run.sh small2 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small2.txt > $OUT/small2-medians.txt 2>&1; cat $OUT/small2-medians.txt
timeout 90 bash bench/h200/run.sh abort2 > /dev/null 2>&1; cat $OUT/abort2.txt 2>/dev/null | grep -v "^\s*at " | tail -30
rm -f $OUT/env.txt
