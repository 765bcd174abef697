#!/usr/bin/env bash
# Call 7 (session 5): server memory at 16,384 waiting joins, -Xmx384m, with the default JIT threads (A) and with
# -XX:CICompilerCount=3 and MALLOC_ARENA_MAX=2 (B). Server jar: main's (chunks of 64).
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
lib=/tmp/allsum-dist/allsum-linux-x86_64/lib; rm -f $lib/server.aot; cp .carry-s5/server-chunk.jar $lib/allsum-server.jar
for v in A B; do
  echo "== $v"
  if [ $v = B ]; then export MALLOC_ARENA_MAX=2; opts="-Xmx384m -XX:CICompilerCount=3"; else opts="-Xmx384m"; fi
  RDV_RANKS=1024,16384 RDV_ROUNDS=2 RDV_SETTLE=5 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$opts" timeout 130 bash bench/h200/run.sh rdv > $OUT/mem-$v.log 2>&1
  grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS" $OUT/mem-$v.log; unset MALLOC_ARENA_MAX
done
