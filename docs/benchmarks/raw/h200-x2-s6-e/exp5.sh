#!/usr/bin/env bash
# Call 5 (session 6): (1) who answers the first chunk of a completed generation: a spawned virtual thread (main) or
# the completing thread itself (-Dallsum.exp.inlineFirstChunk=true, an experiment switch), alternating in one lease;
# (2) issue 13 again: small2 and small1, 500 iterations per size, 5 interleaved repetitions, medians and ratios.
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
for v in spawn inline spawn inline; do
  opts="-Xmx384m"; [ $v = inline ] && opts="$opts -Dallsum.exp.inlineFirstChunk=true"
  echo "== $v" | tee -a $OUT/rdv-ab.log
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 100 bash bench/h200/run.sh rdv > /tmp/rdv-$v.log 2>&1
  cat /tmp/rdv-$v.log >> $OUT/rdv-ab.log
  grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-$v.log | tail -3
done
MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 240 bash bench/h200/run.sh small2 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small2.txt > $OUT/small2-medians.txt 2>&1; cat $OUT/small2-medians.txt
CUDA_VISIBLE_DEVICES=0 MAXB=1M REPS=5 ITERS=500 WARMUP=50 timeout 200 bash bench/h200/run.sh small1 > /dev/null 2>&1
python3 bench/h200/medians.py $OUT/small1.txt > $OUT/small1-medians.txt 2>&1; cat $OUT/small1-medians.txt
rm -f $OUT/env.txt $OUT/rdv.txt
