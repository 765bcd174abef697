#!/usr/bin/env bash
# Call 4 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 13: the job path's tables land in the host's slow state
# more often than native's. Is it what runs just before or next to a sweep? `run.sh burst1`: native sweeps after 5 s
# idle, right after a one-shot CPU job (JVM start-ups), and next to 12 busy loops, 12 repetitions, read with states.py.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
REPS=12 ITERS=500 WARMUP=50 timeout 540 bash bench/h200/run.sh burst1 > /dev/null 2>&1
{ python3 bench/h200/medians.py $OUT/burst1.txt; python3 bench/h200/states.py $OUT/burst1.txt; } > $OUT/burst1-summary.txt 2>&1
cat $OUT/burst1-summary.txt
