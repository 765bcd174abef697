#!/usr/bin/env bash
# Call 3 (session 8): issue 13's 2-GPU small messages again with each job-path rank's own time from the --json files
# (native and NcclSelfCheck print rank 0's time; `allsum` prints the average over ranks by default); then issue 15:
# main as committed (answering threads sharing one cursor), every size with server-lowmem, 7 rounds, and TCPStore at
# every size in the same lease.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
MAXB=1M REPS=7 ITERS=500 WARMUP=50 timeout 150 bash bench/h200/run.sh small2 > /dev/null 2>&1
{ python3 bench/h200/medians.py $OUT/small2.txt; python3 bench/h200/medians.py $OUT/small2.txt --stat min
  python3 bench/h200/job_ranks.py /tmp/small2-job-*.json; } > $OUT/small2-summary.txt 2>&1; cat $OUT/small2-summary.txt
conf=/tmp/allsum-dist/allsum-linux-x86_64/conf
echo "## every size, server-lowmem, 7 rounds"
RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SETTLE=20 RDV_TCPSTORE=0 RDV_SERVER_OPTS="@$conf/server-lowmem.jvmargs" timeout 200 bash bench/h200/run.sh rdv > $OUT/rdv-all.log 2>&1
grep -h -E "^# bench|^ +[0-9]+ +[0-9]+ |^# server|RSS idle" $OUT/rdv-all.log
echo "== TCPStore"; timeout 170 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024,4096,16384 --procs 16 --rounds 7 > $OUT/tcpstore-all.log 2>&1; tail -9 $OUT/tcpstore-all.log
rm -f $OUT/rdv.txt
