#!/usr/bin/env bash
# Call 8 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15, as workers are deployed: one rank per client process
# (64 ranks, 63 client processes and the bench's own, which posts the last join), through HttpAllsumClient's long-poll
# transport (`--clients allsum`) and through the JDK client (`shared`: with one rank per process that is a rank's own
# JDK client, as HttpAllsumClient joined before 9344e64); 15 rounds each, then TCPStore with 63 client processes.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs"
for c in ${CLIENTS:-allsum shared}; do
  echo "== clients $c, 63 processes" >> $OUT/rdv-procs.log
  RDV_RANKS=64 RDV_PROCS=63 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low" RDV_BENCH_OPTS="--clients $c" timeout 80 bash bench/h200/run.sh rdv >> $OUT/rdv-procs.log 2>&1
done
grep -h -E "^== clients|^ +[0-9]+ +[0-9]+ " $OUT/rdv-procs.log
echo "== TCPStore, 63 processes"; timeout 40 python3 bench/rendezvous/tcpstore_bench.py --ranks 64 --procs 63 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -3 $OUT/tcpstore.log
rm -f $OUT/rdv.txt
