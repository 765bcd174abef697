#!/usr/bin/env bash
# Call 3 (session 6): every size with the core handler (main's defaults, -Xmx384m), 7 rounds, then TCPStore at the
# same sizes in the same lease; then the server's memory at 16,384 waiting joins with the serial collector.
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
echo "== core handler, every size"
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=30 RDV_TCPSTORE=0 RDV_SERVER_OPTS="-Xmx384m" timeout 200 bash bench/h200/run.sh rdv > $OUT/rdv-all.log 2>&1
grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-all.log | tail -10
echo "== TCPStore, every size"
timeout 200 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024,4096,16384 --procs 16 --rounds 7 > $OUT/tcpstore-all.log 2>&1
tail -9 $OUT/tcpstore-all.log
i=0
for opts in "-Xmx256m -XX:+UseSerialGC" "-Xmx256m -XX:+UseSerialGC -XX:CICompilerCount=3"; do
  i=$((i+1)); echo "== mem $i: $opts"
  RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 110 bash bench/h200/run.sh rdv > $OUT/rdv-serial-$i.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-serial-$i.log | tail -6
done
