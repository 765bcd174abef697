#!/usr/bin/env bash
# Call 6 (session 7): issue 13's small messages again, no change to the NCCL path since session 5: the same command
# as session 6's call 5 (500 all-sums per size, 5 interleaved repetitions, per-size medians), 2 GPUs then 1 GPU.
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 300 bash bench/h200/run.sh small2 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small2.txt > $OUT/small2-medians.txt 2>&1; cat $OUT/small2-medians.txt
CUDA_VISIBLE_DEVICES=0 MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 200 bash bench/h200/run.sh small1 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small1.txt > $OUT/small1-medians.txt 2>&1; cat $OUT/small1-medians.txt
rm -f $OUT/env.txt $OUT/rdv.txt
