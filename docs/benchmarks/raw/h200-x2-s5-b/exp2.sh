#!/usr/bin/env bash
# Experiment 2 (session 5): per-generation delivery trace, virtual vs platform writers; memory flags at 16384.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
s0=$(date +%s)
el() { echo "# elapsed $(( $(date +%s) - s0 )) s"; }
for w in virtual platform; do
  echo "===== writers=$w"
  RDV_RANKS=1024,64,256,1024,64,256 RDV_ROUNDS=10 RDV_TCPSTORE=0 RDV_SETTLE=1 RDV_SERVER_OPTS="-Xmx256m -Dallsum.exp.writers=$w" \
    bash bench/h200/run.sh rdv > $OUT/rdv-$w.txt 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ " $OUT/rdv-$w.txt; grep "GEN" /tmp/rdv-server.log | sed 's/.*GEN/GEN/' > $OUT/gen-$w.txt
  for n in 64 256 1024; do echo "-- n=$n"; grep "GEN n=$n " $OUT/gen-$w.txt | tail -4; done; el
done
echo "===== TCPStore"
timeout 100 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 10 2>&1 | tail -6 | tee $OUT/tcpstore.txt; el
i=0
for cfg in "-Xms16m -Xmx256m -XX:ParallelGCThreads=4 -XX:ConcGCThreads=1" "-Xms16m -Xmx256m"; do
  i=$((i+1)); echo "===== memory $i: MALLOC_ARENA_MAX=2 $cfg"
  [ $(( $(date +%s) - s0 )) -gt 380 ] && { echo "skip: time"; break; }
  MALLOC_ARENA_MAX=2 RDV_RANKS=1024,16384 RDV_ROUNDS=2 RDV_TCPSTORE=0 RDV_SETTLE=40 RDV_SERVER_OPTS="$cfg -Xlog:gc:file=/tmp/gc-$i.log" timeout 190 bash bench/h200/run.sh rdv > $OUT/mem-$i.txt 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS" $OUT/mem-$i.txt; cp /tmp/gc-$i.log $OUT/; tail -5 /tmp/gc-$i.log; grep -vi "GEN" /tmp/rdv-server.log | tail -20 > $OUT/mem-server-$i.log; el
done
