#!/usr/bin/env bash
# Call 1 (session 9, nvidia-h200: 1 GPU, 16 cores; x2 not lent). Issue 15 at 64/256/1024 ranks: where the 64-rank time goes (each round's stderr line shows the
# last rank's own answer next to the server's delivery), main against two experiment variants, alternating twice:
#   A main; B the completing thread answers up to 64 waiters itself (-Dallsum.experiment.inline-answers=64);
#   D Jetty on platform threads (-Dspring.threads.virtual.enabled=false: QueuedThreadPool instead of VirtualThreadPool);
# then TCPStore in the same lease. Issue 13: small2s with REST=1 (one-shot `allsum --server` against sweeps over the
# REST API with no launcher JVM) on the one GPU, read with states.py.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
low="@$conf/server-lowmem.jvmargs"
for pass in 1 2; do
  for v in A B D; do
    case $v in A) opts="$low";; B) opts="$low -Dallsum.experiment.inline-answers=64";; D) opts="$low -Dspring.threads.virtual.enabled=false";; esac
    echo "== variant $v pass $pass: $opts" >> $OUT/rdv-ab.log
    RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 120 bash bench/h200/run.sh rdv >> $OUT/rdv-ab.log 2>&1
  done
done
grep -h -E "^== variant|^ +[0-9]+ +[0-9]+ " $OUT/rdv-ab.log
echo "== TCPStore"; timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -6 $OUT/tcpstore.log
REST=1 MAXB=64K REPS=7 ITERS=500 WARMUP=50 timeout 300 bash bench/h200/run.sh small2s > /dev/null 2>&1
{ python3 bench/h200/medians.py $OUT/small2s.txt; python3 bench/h200/states.py $OUT/small2s.txt; } > $OUT/small2s-summary.txt 2>&1
tail -60 $OUT/small2s-summary.txt
rm -f $OUT/rdv.txt
