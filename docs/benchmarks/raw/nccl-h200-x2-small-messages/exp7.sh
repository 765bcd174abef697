#!/usr/bin/env bash
# Call 7: issue 13 with enough processes per series that each one meets the host's fast state: every
# process lands in a fast (about 6 us per small 2-GPU all-sum, 4 us on 1 GPU) or a slow state (8.5-10 us, 5.5-6 us)
# for its life, native C pinned to one vCPU included (call 6). 16 interleaved repetitions of small2 (native, the
# backend alone, the job path) and of small1, 500 all-sums per size; per-size medians and fastest tables.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
MAXB=1M REPS=16 ITERS=500 WARMUP=50 timeout 250 bash bench/h200/run.sh small2 > /dev/null 2>&1
CUDA_VISIBLE_DEVICES=0 MAXB=64K REPS=16 ITERS=500 WARMUP=50 timeout 130 bash bench/h200/run.sh small1 > /dev/null 2>&1
{ for f in small2 small1; do echo "#### $f, medians"; python3 bench/h200/medians.py $OUT/$f.txt
  echo "#### $f, fastest table per size"; python3 bench/h200/medians.py $OUT/$f.txt --stat min; done; } > $OUT/summary.txt 2>&1
cat $OUT/summary.txt
