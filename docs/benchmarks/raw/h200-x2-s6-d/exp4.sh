#!/usr/bin/env bash
# Call 4 (session 6): the server's memory at 16,384 waiting joins with the core handler, serial collector, and a
# smaller heap and/or the C1 compiler only (fewer compiler threads and arenas).
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
i=0
for opts in "-Xmx200m -XX:+UseSerialGC" "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1" "-Xmx200m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"; do
  i=$((i+1)); echo "== mem $i: $opts"
  RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 120 bash bench/h200/run.sh rdv > $OUT/rdv-mem-$i.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle|OutOfMemory" $OUT/rdv-mem-$i.log | tail -6
  grep -c -i "OutOfMemory\|GC overhead" /tmp/rdv-server.log
done
