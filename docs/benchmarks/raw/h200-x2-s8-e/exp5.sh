#!/usr/bin/env bash
# Call 5 (session 8): issue 13 in one lease: small2 (the job path as a one-shot local run: launcher, server and
# workers start with the job) and small2s (the job path through a standing cluster, started once and warm), each
# with native and the backend alone interleaved, 5 repetitions, 8 B .. 1 MiB; then 1 GPU (small1), 5 repetitions.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 150 bash bench/h200/run.sh small2 > /dev/null 2>&1
MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 150 bash bench/h200/run.sh small2s > /dev/null 2>&1
CUDA_VISIBLE_DEVICES=0 MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 120 bash bench/h200/run.sh small1 > /dev/null 2>&1
{ for f in small2 small2s small1; do echo "#### $f, medians"; python3 bench/h200/medians.py $OUT/$f.txt
  echo "#### $f, fastest table per size"; python3 bench/h200/medians.py $OUT/$f.txt --stat min; done; } > $OUT/summary.txt 2>&1
cat $OUT/summary.txt
