#!/usr/bin/env bash
# Call 7 (session 6): the low-memory profile's young generation. Call 6's profile (heap starting at 32 MB) was 3-4x
# slower at 16,384 ranks than call 4's (starting at 256 MB): the young generation starts at a third of the heap.
# A: call 6's profile with a 64 MB young generation from the start; B: call 4's flags (-Xms as the JVM picks).
set -u
export DIST=.carry-s6/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs
for v in A B A; do
  case $v in
    A) opts="@$conf -XX:NewSize=64m" ;;
    B) opts="-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1" ;;
  esac
  echo "== $v: $opts"
  RDV_SERVER_OPTS="$opts" RDV_RANKS=1024,16384 RDV_ROUNDS=3 RDV_SETTLE=30 RDV_TCPSTORE=0 timeout 130 bash bench/h200/run.sh rdv > /tmp/rdv-$v.log 2>&1
  grep -h "IdleHeapRelease\|full collection" /tmp/rdv-server.log | cut -c1-220 >> /tmp/rdv-$v.log
  cat /tmp/rdv-$v.log >> $OUT/rdv-young.log
  grep -h -E "^ +[0-9]+ +[0-9]+ |^# server|RSS idle|full collection" /tmp/rdv-$v.log | tail -7
done
rm -f $OUT/env.txt $OUT/rdv.txt
