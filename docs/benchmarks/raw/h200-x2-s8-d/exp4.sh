#!/usr/bin/env bash
# Call 4 (session 8): (1) issue 13: where the job path's slow cells come from: small2 (4 interleaved repetitions,
# 8 B .. 1 MiB) with every JVM logging its safepoints and collections (ALLSUM_JAVA_OPTS reaches the server, the
# launcher, the job path's workers and NcclSelfCheck's JVMs), then a per-JVM summary; the job path's workers are the
# pids in small2.txt's "Rank N ... Pid" lines. (2) issue 15: peak RSS at 16,384 waiting joins with the answering
# threads sharing one cursor against main's former chunks of 16 (experiment switch
# -Dallsum.experiment.answer=chunks, experiment-chunks-switch.patch), alternating, twice each, server-lowmem.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
mkdir -p /tmp/jvmlog
ALLSUM_JAVA_OPTS="-Xlog:safepoint=info,gc=info:file=/tmp/jvmlog/%p.log:uptime" MAXB=1M REPS=4 ITERS=500 WARMUP=50 \
  timeout 150 bash bench/h200/run.sh small2 > /dev/null 2>&1
{ python3 bench/h200/medians.py $OUT/small2.txt; echo "## job path worker pids"; grep -h "Rank .* Pid" $OUT/small2.txt
  echo "## per JVM: pid, collector, safepoints, over 100 us, max, total"
  for f in /tmp/jvmlog/*.log; do
    printf "%s %s %s safepoints " "$(basename $f .log)" "$(grep -o -m1 'Using [A-Za-z0-9]*' $f)" "$(grep -c 'Safepoint "' $f)"
    grep -o 'Total: [0-9]* ns' $f | awk '{ if ($2 > 100000) c++; if ($2 > m) m = $2; s += $2 } END { printf "%d over 100 us, max %.0f us, total %.0f us\n", c, m / 1000, s / 1000 }'
  done
  echo "## safepoints over 100 us in the job path's workers"
  for p in $(grep -h "Rank .* Pid" $OUT/small2.txt | awk '{print $7}'); do echo "# pid $p"; grep 'Safepoint "' /tmp/jvmlog/$p.log | awk -F'Total: ' '{ split($2, a, " "); if (a[1] > 100000) print }' | head -20; done
} > $OUT/small2-jvm.txt 2>&1; cat $OUT/small2-jvm.txt
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
for rep in 1 2; do for v in chunks cursor; do
  opts="@$conf/server-lowmem.jvmargs"; [ $v = chunks ] && opts="$opts -Dallsum.experiment.answer=chunks"
  RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 110 bash bench/h200/run.sh rdv > /tmp/rdv-mem-$v-$rep.log 2>&1
  echo "== $v $rep"; grep -h -E "^ +[0-9]+ +[0-9]+ |^# server V|RSS idle" /tmp/rdv-mem-$v-$rep.log
done; done
cat /tmp/rdv-mem-*.log > $OUT/rdv-mem.log; rm -f $OUT/rdv.txt
