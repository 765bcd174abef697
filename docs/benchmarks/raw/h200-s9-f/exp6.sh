#!/usr/bin/env bash
# Call 6 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15: the answering threads' fan-out. Call 5's timeline showed
# one answer taking ~25 us (median) and the first answering thread starting the others one after another, ~25 us
# each. Variants (fan-out-switches.patch, with the timeline probe): V0 main (16 answers per thread, the first thread
# starts the rest); V1 8 per thread, each started thread starts up to two more before answering; V2 4 per thread,
# the same tree. Blocking clients (so the server's part shows), alternating twice; then shared (JDK) clients once.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs -Dallsum.probe=true"
run() { # variant clients
  local x; case $1 in V0) x="";; V1) x="-Dallsum.experiment.chunk=8 -Dallsum.experiment.tree=true";; V2) x="-Dallsum.experiment.chunk=4 -Dallsum.experiment.tree=true";; esac
  echo "== $1 clients $2" | tee -a $OUT/timeline.log >> $OUT/rdv.log
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low $x" RDV_BENCH_OPTS="--clients $2" timeout 120 bash bench/h200/run.sh rdv >> $OUT/rdv.log 2>&1
  grep TIMELINE /tmp/rdv-server.log | cut -c1-600 >> $OUT/timeline.log
}
for pass in 1 2; do for v in V0 V1 V2; do run $v blocking; done; done
for v in V0 V1 V2; do run $v shared; done
grep -h -E "^== |^ +[0-9]+ +[0-9]+ " $OUT/rdv.log
echo "== TCPStore"; timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -6 $OUT/tcpstore.log
rm -f $OUT/rdv.txt
