#!/usr/bin/env bash
# Call 2 (session 6): 4,096 ranks, core handler vs servlet path, alternating (7 rounds each); then the server's memory
# at 16,384 waiting joins on this 32-core host with the core handler and leaner JVM settings (peak RSS, RSS 20 s
# after), one of them with native memory tracking printed at exit (rdv-nmt-server.log).
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
servlet="-Dallsum.rendezvous.core-joins=false"
for v in core servlet core servlet; do
  opts="-Xmx384m"; [ $v = servlet ] && opts="$opts $servlet"
  echo "== $v (4096)"
  RDV_RANKS=1024,4096 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 100 bash bench/h200/run.sh rdv > $OUT/rdv-4096-$v-$RANDOM.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ " $(ls -t $OUT/rdv-4096-$v-*.log | head -1) | tail -2
done
i=0
for opts in "-Xmx256m" "-Xmx256m -XX:CICompilerCount=3 -XX:NativeMemoryTracking=summary -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics" \
            "-Xmx256m -XX:CICompilerCount=3 -XX:ParallelGCThreads=4 -XX:ConcGCThreads=1"; do
  i=$((i+1)); echo "== mem $i: $opts"
  RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 110 bash bench/h200/run.sh rdv > $OUT/rdv-mem-$i.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-mem-$i.log | tail -6
  cp /tmp/rdv-server.log $OUT/rdv-mem-$i-server.log
done
