#!/usr/bin/env bash
# Call 1 (session 6): joins served by the Jetty core handler (main, default) against the servlet path (the same jar
# with -Dallsum.rendezvous.core-joins=false), alternating in one lease; then 4,096 and 16,384 ranks once each with
# the server's RSS 30 s after; then TCPStore at the small sizes.
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
servlet="-Dallsum.rendezvous.core-joins=false"
for v in core servlet core servlet; do
  opts="-Xmx384m"; [ $v = servlet ] && opts="$opts $servlet"
  echo "== $v (small sizes)"
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 100 bash bench/h200/run.sh rdv > $OUT/rdv-small-$v-$RANDOM.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ " $(ls -t $OUT/rdv-small-$v-*.log | head -1) | tail -3
done
for v in core servlet; do
  opts="-Xmx384m"; [ $v = servlet ] && opts="$opts $servlet"
  echo "== $v (large sizes)"
  RDV_RANKS=1024,4096,16384 RDV_ROUNDS=3 RDV_SETTLE=30 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 150 bash bench/h200/run.sh rdv > $OUT/rdv-large-$v.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server" $OUT/rdv-large-$v.log | tail -5
done
echo "== TCPStore"; timeout 90 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 2>&1 | tail -6
