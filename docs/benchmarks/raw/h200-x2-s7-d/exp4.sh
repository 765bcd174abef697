#!/usr/bin/env bash
# Call 4 (session 7): main as committed (HttpAllsumClient's and the bench's HTTP client completing responses on their
# selector thread), every size with server-lowmem, 7 rounds, then TCPStore at every size in the same lease.
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
echo "## every size, server-lowmem, 7 rounds"
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="@$conf/server-lowmem.jvmargs" timeout 240 bash bench/h200/run.sh rdv > $OUT/rdv-all.log 2>&1
grep -h -E "^# bench|^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-all.log
echo "== TCPStore"; timeout 200 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024,4096,16384 --procs 16 --rounds 7 > $OUT/tcpstore-all.log 2>&1; tail -9 $OUT/tcpstore-all.log
