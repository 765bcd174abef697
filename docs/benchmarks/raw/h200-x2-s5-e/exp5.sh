#!/usr/bin/env bash
# Call 5 (session 5): main with the answer tree. Rendezvous at every size vs TCPStore, -Xmx384m, 7 rounds.
set -u
export DIST=.carry-s5/allsum-linux-x86_64.tar.xz
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=20 RDV_SERVER_OPTS="-Xmx384m" timeout 420 bash bench/h200/run.sh rdv > $OUT/rdv.log 2>&1
grep -E "^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS|^ +[0-9]+ +[0-9.]+ +[0-9.]+$" $OUT/rdv.log; grep -E "WARN|ERROR" /tmp/rdv-server.log | head -5; grep -c . /tmp/rdv-server.log
