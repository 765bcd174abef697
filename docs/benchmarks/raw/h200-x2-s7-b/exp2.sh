#!/usr/bin/env bash
# Call 2 (session 7): a completed generation's bookkeeping (expiry timers, timer meter, log line) after its answers
# are dispatched instead of before (the dist of this call); answering threads of 16 (main), 8 and 4 answers; TCPStore
# at the same small sizes in the same lease; then 16,384 waiting joins with lean G1 settings, for the memory goal.
# The probe and chunk switches are as in call 1 (exp1.sh).
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
small() { # $1 label, $2 extra server flags
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="-Xmx384m $2" timeout 100 bash bench/h200/run.sh rdv > /tmp/rdv-$1.log 2>&1
  echo "== $1 ($2)"; grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-$1.log | tail -3
}
echo "## A. 64, 256, 1024 ranks (7 rounds each, medians)"
for rep in 1 2; do
  small chunk16-$rep ""
  small chunk8-$rep "-Dallsum.probe.chunk=8"
  small chunk4-$rep "-Dallsum.probe.chunk=4"
done
small probe16 "-Dallsum.probe.log=true"
grep -v "^20[0-9][0-9]-" /tmp/rdv-server.log | grep -A300 PROBE | tail -700 > $OUT/probe16.txt
cat /tmp/rdv-*.log > $OUT/rdv-small-all.log
echo "== TCPStore"; timeout 90 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 > $OUT/tcpstore-small.log 2>&1; tail -6 $OUT/tcpstore-small.log
echo "## B. 16,384 ranks, 3 rounds, RSS 20 s after"
mem() { # $1 label, $2 server flags
  RDV_RANKS=16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$2" timeout 150 bash bench/h200/run.sh rdv > $OUT/mem-$1.log 2>&1
  echo "== $1 ($2)"; grep -h -E "RSS idle|^ +[0-9]+ +[0-9]+ |^# server" $OUT/mem-$1.log | tail -4
}
lean="-XX:ParallelGCThreads=4 -XX:ConcGCThreads=1 -Dallsum.rendezvous.connection.read-buffer=1KB"
mem ci4-trim "-Xmx256m $lean -XX:CICompilerCount=4 -XX:TrimNativeHeapInterval=5000"
mem ci3 "-Xmx256m $lean -XX:CICompilerCount=3"
mem ci4-224 "-Xmx224m $lean -XX:CICompilerCount=4"
