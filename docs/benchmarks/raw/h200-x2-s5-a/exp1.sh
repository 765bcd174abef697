#!/usr/bin/env bash
# Experiment 1 (session 5): answer-writer variants at 64/256/1024 ranks, TCPStore reference, memory flags at 16384.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
s0=$(date +%s)
el() { echo "# elapsed $(( $(date +%s) - s0 )) s"; }
nproc; date -u
for w in virtual platform inline virtual; do
  echo "===== writers=$w"
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=10 RDV_TCPSTORE=0 RDV_SETTLE=1 RDV_SERVER_OPTS="-Xmx256m -Dallsum.exp.writers=$w" \
    bash bench/h200/run.sh rdv > $OUT/rdv-$w.txt 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ " $OUT/rdv-$w.txt; grep TRACE /tmp/rdv-server.log | tail -6 > $OUT/trace-$w.txt; cat $OUT/trace-$w.txt | cut -c100-; el
done
echo "===== TCPStore 64,256,1024"
timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 10 2>&1 | tail -8 | tee $OUT/tcpstore.txt; el
for f in base lean; do
  echo "===== memory $f"
  opts="-Xmx256m"; envs=""
  [ $f = lean ] && opts="-Xmx256m -XX:CICompilerCount=2 -XX:ParallelGCThreads=2 -XX:ConcGCThreads=1" && export MALLOC_ARENA_MAX=2
  [ $(( $(date +%s) - s0 )) -gt 420 ] && { echo "skip: time"; break; }
  RDV_RANKS=1024,16384 RDV_ROUNDS=2 RDV_TCPSTORE=0 RDV_SETTLE=20 RDV_SERVER_OPTS="$opts" timeout 170 bash bench/h200/run.sh rdv > $OUT/mem-$f.txt 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS" $OUT/mem-$f.txt; unset MALLOC_ARENA_MAX; el
done
