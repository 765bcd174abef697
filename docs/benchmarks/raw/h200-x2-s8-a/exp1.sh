#!/usr/bin/env bash
# Call 1 (session 8): answering threads that share one cursor over the waiters (a stalled thread holds back one
# answer, not its chunk of 16) against main's chunks (experiment switch -Dallsum.experiment.answer=chunks), with the
# bench's ranks sharing one HTTP client per process (as in session 7); then the cursor with one HTTP client and one
# platform thread per rank (--clients per-rank, as a worker process has). Alternating, 3 times each, server-lowmem,
# 7 rounds; TCPStore at the same sizes in the same lease.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
for rep in 1 2 3; do for v in chunks-shared cursor-shared cursor-perrank; do
  opts="@$conf/server-lowmem.jvmargs"; clients=shared
  [ $v = chunks-shared ] && opts="$opts -Dallsum.experiment.answer=chunks"
  [ $v = cursor-perrank ] && clients=per-rank
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" RDV_BENCH_OPTS="--clients $clients" \
    timeout 120 bash bench/h200/run.sh rdv > /tmp/rdv-$v-$rep.log 2>&1
  echo "== $v $rep"; grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-$v-$rep.log | tail -3
done; done
for v in chunks-shared cursor-shared cursor-perrank; do cat /tmp/rdv-$v-*.log > $OUT/rdv-$v.log; done
echo "== TCPStore"; timeout 90 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 > $OUT/tcpstore-small.log 2>&1; tail -6 $OUT/tcpstore-small.log
