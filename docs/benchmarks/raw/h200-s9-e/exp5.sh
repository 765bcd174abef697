#!/usr/bin/env bash
# Call 5 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15: a generation's answers on a timeline. A probe build
# (timeline-probe.patch) prints per completion, in us after it: when each answering thread started, when answers
# were picked from the cursor and done, and how long one answer took (future.complete: encode, write, request end).
# 1024/64/256/1024 ranks, 15 rounds, the bench's JDK clients and its blocking clients.
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs -Dallsum.probe=true"
for c in shared blocking; do
  echo "== clients $c" | tee -a $OUT/timeline.log >> $OUT/rdv.log
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low" RDV_BENCH_OPTS="--clients $c" timeout 120 bash bench/h200/run.sh rdv >> $OUT/rdv.log 2>&1
  grep TIMELINE /tmp/rdv-server.log >> $OUT/timeline.log
done
grep -h -E "^== clients|^ +[0-9]+ +[0-9]+ " $OUT/rdv.log
grep -E '^==|n=63 ' $OUT/timeline.log | cut -c1-400 | head -40
rm -f $OUT/rdv.txt
