#!/usr/bin/env bash
# Call 3 (session 7), the build to be committed (no probe): a generation's bookkeeping after its answers, loops
# instead of streams on the way to the first answer, the nccl rank template through Jackson's streaming generator,
# the id digest computed once; the server's GC and compiler threads capped (server.jvmargs), a 1 KB read buffer from
# a pool with 1 KB buckets. A: every size with the memory-bound profile (server-lowmem: -Xmx256m), 7 rounds, then
# TCPStore at the same sizes in the same lease. B: the bench's HTTP client completing responses on its selector thread
# (--client-executor direct) against virtual threads (as HttpAllsumClient), alternating. C: 16,384 ranks with the
# defaults alone (the heap follows the host).
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
ls $conf
echo "## A. every size, server-lowmem, 7 rounds"
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="@$conf/server-lowmem.jvmargs" timeout 240 bash bench/h200/run.sh rdv > $OUT/rdv-all.log 2>&1
grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-all.log
echo "== TCPStore"; timeout 200 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024,4096,16384 --procs 16 --rounds 7 > $OUT/tcpstore-all.log 2>&1; tail -9 $OUT/tcpstore-all.log
echo "## B. client executor, 64/256/1024 ranks, 7 rounds"
for rep in 1 2; do for ex in virtual direct; do
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="@$conf/server-lowmem.jvmargs" RDV_BENCH_OPTS="--client-executor $ex" timeout 100 bash bench/h200/run.sh rdv > /tmp/rdv-ex-$ex-$rep.log 2>&1
  echo "== $ex $rep"; grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-ex-$ex-$rep.log | tail -3
done; done
cat /tmp/rdv-ex-*.log > $OUT/rdv-executor.log
echo "## C. 16,384 ranks, defaults only"
RDV_RANKS=16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="" timeout 150 bash bench/h200/run.sh rdv > $OUT/mem-defaults.log 2>&1
grep -h -E "RSS idle|^ +[0-9]+ +[0-9]+ |^# server" $OUT/mem-defaults.log
