#!/usr/bin/env bash
# Call 5 (session 7): main plus an experiment switch, -Dallsum.experiment.adaptive-chunk=true: answering threads of
# ceil(waiters / cores) answers, at least 4 and at most 16 (on 32 cores: 4 at 64 ranks, 8 at 256, 16 from 512 up),
# against main's 16, alternating, 3 times each, server-lowmem, 7 rounds.
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
for rep in 1 2 3; do for v in fixed adaptive; do
  opts="@$conf/server-lowmem.jvmargs"; [ $v = adaptive ] && opts="$opts -Dallsum.experiment.adaptive-chunk=true"
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 100 bash bench/h200/run.sh rdv > /tmp/rdv-$v-$rep.log 2>&1
  echo "== $v $rep"; grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-$v-$rep.log | tail -3
done; done
cat /tmp/rdv-fixed-*.log /tmp/rdv-adaptive-*.log > $OUT/rdv-chunks.log
echo "== TCPStore"; timeout 60 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 > $OUT/tcpstore-small.log 2>&1; tail -6 $OUT/tcpstore-small.log
