#!/usr/bin/env bash
# Call 6 (session 6): the low-memory profile as shipped (conf/server-lowmem.jvmargs, given to the server only: 256 MB heap starting at 32 MB,
# serial collector, C1 only, one full collection after a burst), 16,384 ranks, twice, RSS 30 s after each run.
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
for i in 1 2; do
  echo "== lowmem run $i"
  RDV_SERVER_OPTS="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs" RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=30 RDV_TCPSTORE=0 timeout 130 bash bench/h200/run.sh rdv > $OUT/rdv-lowmem-$i.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-lowmem-$i.log | tail -6
  grep -h "IdleHeapRelease\|full collection" /tmp/rdv-server.log | cut -c1-220 | tee -a $OUT/rdv-lowmem-$i.log
done
rm -f $OUT/env.txt $OUT/rdv.txt
