#!/usr/bin/env bash
# Call 2 (session 8): issue 13 with the job path's compiler warm-up (5,000 untimed calls of a launch-bound first size),
# 7 interleaved repetitions (the host flips between a fast and a slow state within a run; 3 repetitions left the
# median of some cells to one draw), 500 all-sums per size, 8 B .. 1 MiB, 2 GPUs then 1 GPU.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
MAXB=1M REPS=7 ITERS=500 WARMUP=50 timeout 250 bash bench/h200/run.sh small2 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small2.txt > $OUT/small2-medians.txt 2>&1; cat $OUT/small2-medians.txt
python3 bench/h200/medians.py $OUT/small2.txt --stat min > $OUT/small2-min.txt 2>&1; cat $OUT/small2-min.txt
CUDA_VISIBLE_DEVICES=0 MAXB=1M REPS=7 ITERS=500 WARMUP=50 timeout 200 bash bench/h200/run.sh small1 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small1.txt > $OUT/small1-medians.txt 2>&1; cat $OUT/small1-medians.txt
python3 bench/h200/medians.py $OUT/small1.txt --stat min > $OUT/small1-min.txt 2>&1; cat $OUT/small1-min.txt
