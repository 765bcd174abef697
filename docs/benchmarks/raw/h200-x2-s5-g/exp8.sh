#!/usr/bin/env bash
# Call 8 (session 5): which of call 7's two changes lowers the peak: C = -XX:CICompilerCount=3 alone, D = MALLOC_ARENA_MAX=2 alone.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
lib=/tmp/allsum-dist/allsum-linux-x86_64/lib; rm -f $lib/server.aot; cp .carry-s5/server-chunk.jar $lib/allsum-server.jar
for v in D C; do
  echo "== $v"
  if [ $v = D ]; then export MALLOC_ARENA_MAX=2; opts="-Xmx384m"; else opts="-Xmx384m -XX:CICompilerCount=3"; fi
  RDV_RANKS=1024,16384 RDV_ROUNDS=1 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 55 bash bench/h200/run.sh rdv > $OUT/mem-$v.log 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|RSS idle" $OUT/mem-$v.log; unset MALLOC_ARENA_MAX
done
