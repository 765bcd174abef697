#!/usr/bin/env bash
# Call 8 (session 7): main after the review's mend (IdleHeapRelease and its peak count on every parked join
# removed), every size with server-lowmem, 7 rounds; no time left for TCPStore in this call.
set -u
export DIST=.carry-s7/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > /dev/null 2>&1
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=10 RDV_TCPSTORE=0 RDV_SERVER_OPTS="@$conf/server-lowmem.jvmargs" timeout 150 bash bench/h200/run.sh rdv > $OUT/rdv-all.log 2>&1
grep -h -E "^# bench|^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-all.log
rm -f $OUT/env.txt
