#!/usr/bin/env bash
# Call 3 (session 5): main after the chunked answers + no job-db read at completion. Rendezvous at every size vs
# TCPStore with -Xmx384m; then 16,384 ranks with a shrinkable heap, RSS sampled every 2 s through the settle.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
s0=$(date +%s)
el() { echo "# elapsed $(( $(date +%s) - s0 )) s"; }
sample_rss() { # file: the rdv server's RSS every 2 s
  while true; do p=$(pgrep -f "server.port=18080" | head -1); [ -n "$p" ] && echo "$(date +%s) $(awk '/VmRSS/{print $2}' /proc/$p/status 2>/dev/null)"; sleep 2; done > "$1"; }
echo "===== A: every size, -Xmx384m, 7 rounds, TCPStore"
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=30 RDV_SERVER_OPTS="-Xmx384m" timeout 400 bash bench/h200/run.sh rdv > $OUT/rdv-a.txt 2>&1
grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS|^ +[0-9]+ +[0-9.]+ +[0-9.]+$" $OUT/rdv-a.txt; cp /tmp/rdv-server.log $OUT/rdv-a-server.log; el
echo "===== B: 16384, -Xmx384m -XX:MinHeapSize=32m -XX:MaxHeapFreeRatio=40, RSS every 2 s"
sample_rss $OUT/rss-b.txt & sp=$!
RDV_RANKS=1024,16384 RDV_ROUNDS=2 RDV_SETTLE=45 RDV_TCPSTORE=0 RDV_SERVER_OPTS="-Xmx384m -XX:MinHeapSize=32m -XX:MaxHeapFreeRatio=40 -Xlog:gc:file=/tmp/gc-b.log" \
  timeout $(( 560 - ($(date +%s) - s0) )) bash bench/h200/run.sh rdv > $OUT/rdv-b.txt 2>&1
kill $sp; grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS" $OUT/rdv-b.txt; cp /tmp/gc-b.log $OUT/; tail -3 /tmp/gc-b.log; awk '{print $2}' $OUT/rss-b.txt | tr '\n' ' '; echo; el
