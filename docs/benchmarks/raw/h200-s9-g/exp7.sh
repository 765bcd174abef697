#!/usr/bin/env bash
# Call 7 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15 with main at 9344e64: HttpAllsumClient reads its
# long-polls' answers on the waiting thread (BlockingHttp). The bench's ranks through HttpAllsumClient (`--clients
# allsum`, a platform thread per rank, one client per process, as a worker joins) against the JDK client (`shared`,
# the bench's default) and the bench's own blocking sockets (`blocking`), alternating twice, 1024/64/256/1024 ranks,
# 15 rounds, server-lowmem; TCPStore in the same lease. Then a one-shot 1-GPU job through the new client path.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs"
for pass in 1 2; do
  for c in shared allsum blocking; do
    echo "== clients $c pass $pass" >> $OUT/rdv-ab.log
    RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low" RDV_BENCH_OPTS="--clients $c" timeout 100 bash bench/h200/run.sh rdv >> $OUT/rdv-ab.log 2>&1
  done
done
grep -h -E "^== clients|^ +[0-9]+ +[0-9]+ " $OUT/rdv-ab.log
echo "== TCPStore"; timeout 100 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -6 $OUT/tcpstore.log
echo "== one-shot job, 1 GPU (run.sh launcher1)"; CUDA_VISIBLE_DEVICES=0 timeout 150 bash bench/h200/run.sh launcher1 > /dev/null 2>&1; echo "exit $?"; tail -8 $OUT/launcher1.txt
rm -f $OUT/rdv.txt
