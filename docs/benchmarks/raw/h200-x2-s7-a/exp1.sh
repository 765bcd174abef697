#!/usr/bin/env bash
# Call 1 (session 7): where the time of a small generation's answers goes, and memory at 16,384 waiting joins.
# The dist carries a temporary probe (-Dallsum.probe.log: per-answer timestamps in the server log) and two
# experiment switches: -Dallsum.probe.chunk=N (answers per answering thread, main: 16) and -Dallsum.probe.direct=true
# (the completing thread starts every answering thread itself, instead of one spawner thread that starts the rest).
# It also has the Jetty buffer pool with a 2 KB bucket (ConnectionSettings), which is what part B measures.
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1  # unpacks the dist
small() { # $1 label, $2 extra server flags
  RDV_RANKS=1024,64,256 RDV_ROUNDS=7 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="-Xmx384m $2" timeout 100 bash bench/h200/run.sh rdv > /tmp/rdv-$1.log 2>&1
  echo "== $1 ($2)"; grep -h -E "^ +[0-9]+ +[0-9]+ " /tmp/rdv-$1.log | tail -2
}
echo "## A. 64 and 256 ranks, answering variants (7 rounds each, medians; columns as bench-rendezvous prints them)"
for rep in 1 2; do
  small base-$rep ""
  small direct16-$rep "-Dallsum.probe.direct=true"
  small direct4-$rep "-Dallsum.probe.direct=true -Dallsum.probe.chunk=4"
  small direct8-$rep "-Dallsum.probe.direct=true -Dallsum.probe.chunk=8"
  small spawner4-$rep "-Dallsum.probe.chunk=4"
done
for v in base direct4; do
  opts="-Dallsum.probe.log=true"; [ $v = direct4 ] && opts="$opts -Dallsum.probe.direct=true -Dallsum.probe.chunk=4"
  small probe-$v "$opts"
  grep -v "^20[0-9][0-9]-" /tmp/rdv-server.log | grep -A300 PROBE | tail -1200 > $OUT/probe-$v.txt
done
cat /tmp/rdv-*.log > $OUT/rdv-small-all.log
echo "## B. 16,384 ranks, 3 rounds, RSS 30 s after"
mem() { # $1 label, $2 server flags
  RDV_RANKS=16384 RDV_ROUNDS=3 RDV_SETTLE=30 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$2" timeout 170 bash bench/h200/run.sh rdv > $OUT/mem-$1.log 2>&1
  echo "== $1 ($2)"; grep -h -E "^ +[0-9]+ +[0-9]+ |^# server" $OUT/mem-$1.log | tail -3
}
mem pool2k-xmx384 "-Xmx384m"
mem pool2k-lean "-Xmx256m -XX:ParallelGCThreads=4 -XX:ConcGCThreads=1 -XX:CICompilerCount=4"
mem pool1k-lean "-Xmx256m -XX:ParallelGCThreads=4 -XX:ConcGCThreads=1 -XX:CICompilerCount=4 -Dallsum.rendezvous.connection.read-buffer=1KB"
