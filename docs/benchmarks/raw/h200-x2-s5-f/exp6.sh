#!/usr/bin/env bash
# Call 6 (session 5): A/B in one lease, answer tree (main) vs chunks of 64 (previous commit), alternating, then TCPStore.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
lib=/tmp/allsum-dist/allsum-linux-x86_64/lib; rm -f $lib/server.aot  # one jar is swapped in: neither variant uses a cache
for v in tree chunk tree chunk; do
  cp .carry-s5/server-$v.jar $lib/allsum-server.jar
  echo "== $v"
  RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="-Xmx384m" timeout 100 bash bench/h200/run.sh rdv > $OUT/rdv-$v-$RANDOM.log 2>&1
  grep -h -E "^ +[0-9]+ +[0-9]+ " $(ls -t $OUT/rdv-$v-*.log | head -1) | tail -3
done
echo "== TCPStore"; timeout 90 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 2>&1 | tail -6
