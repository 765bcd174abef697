#!/usr/bin/env bash
# Call 3 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15: the bench's ranks on the JDK HTTP client (one per client
# process, as committed) against an experiment client, `--clients blocking`: each rank writes its join and reads its
# answer on its own platform thread and blocking socket, as TCPStore's clients do (BlockingJoin, committed with
# this call's results); alternating twice, 1024/64/256/1024 ranks, 15 rounds; TCPStore in the same lease.
# Issue 13: how often each series lands in the host's slow state, with more tables: small2s (native, the backend
# alone, `allsum --server` and REST sweeps on a standing worker) with 20 repetitions and small1 (one-shot job path)
# with 10, 8 B .. 4 KiB (the launch-bound sizes), read with states.py.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs"
for pass in 1 2; do
  for c in shared blocking; do
    echo "== clients $c pass $pass" >> $OUT/rdv-ab.log
    RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low" RDV_BENCH_OPTS="--clients $c" timeout 120 bash bench/h200/run.sh rdv >> $OUT/rdv-ab.log 2>&1
  done
done
grep -h -E "^== clients|^ +[0-9]+ +[0-9]+ " $OUT/rdv-ab.log
echo "== TCPStore"; timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -6 $OUT/tcpstore.log
REST=1 MAXB=4K REPS=20 ITERS=500 WARMUP=50 timeout 220 bash bench/h200/run.sh small2s > /dev/null 2>&1
MAXB=4K REPS=10 ITERS=500 WARMUP=50 timeout 150 bash bench/h200/run.sh small1 > /dev/null 2>&1
for f in small2s small1; do echo "### $f"; python3 bench/h200/medians.py $OUT/$f.txt; python3 bench/h200/states.py $OUT/$f.txt; done > $OUT/states-summary.txt 2>&1
grep -E '^###|^# s[0-9]|fast state|slow state|^#.*launch-bound' $OUT/states-summary.txt
rm -f $OUT/rdv.txt
