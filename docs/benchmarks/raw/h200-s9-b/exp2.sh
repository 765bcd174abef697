#!/usr/bin/env bash
# Call 2 (session 9, nvidia-h200: 1 GPU, 16 cores). Issue 15: where the last rank's own answer goes. A probe build
# (patch next to this script) prints, for each completing join, microseconds from Jetty's handle() to: the body read,
# parsed, the group lock taken, the generation complete, unlocked, the after-unlock effects run, the events published,
# the registry's return, the answer encoded, the answer written. Variants, alternating twice, 15 rounds:
#   A main's order; E the completion's bookkeeping (expiry timers, meter, log line) on its own virtual thread
#   (-Dallsum.experiment.later=bookkeeping); F that and the events too (-Dallsum.experiment.later=events).
set -u
export DIST=.carry-s9/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
low="@/tmp/allsum-dist/allsum-linux-x86_64/conf/server-lowmem.jvmargs -Dallsum.probe=true"
for pass in 1 2; do
  for v in A E F; do
    case $v in A) x="";; E) x="bookkeeping";; F) x="events";; esac
    echo "== variant $v pass $pass" | tee -a $OUT/probe.log >> $OUT/rdv-ab.log
    RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=15 RDV_SETTLE=1 RDV_TCPSTORE=0 RDV_SERVER_OPTS="$low -Dallsum.experiment.later=$x" timeout 120 bash bench/h200/run.sh rdv >> $OUT/rdv-ab.log 2>&1
    grep PROBE /tmp/rdv-server.log >> $OUT/probe.log
  done
done
grep -h -E "^== variant|^ +[0-9]+ +[0-9]+ " $OUT/rdv-ab.log
echo "== TCPStore"; timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 15 > $OUT/tcpstore.log 2>&1; tail -6 $OUT/tcpstore.log
rm -f $OUT/rdv.txt
