#!/usr/bin/env bash
# nvidia-h200, 16 cores: G1's SATB queue buffers take 86 MB at 16,384 waiting joins (h13c.sh; malloc'd while
# concurrent marking runs during the burst, one concurrent GC thread draining 16 cores' worth of them; kept afterwards).
# Variants on top of server-lowmem, one fresh server each (4096 + 16,384 ranks, 5 rounds, with its warm-up), Native
# Memory Tracking summary printed at exit: -Xmx192m; -Xmx192m -XX:ConcGCThreads=4; -Xmx256m -XX:ConcGCThreads=4;
# -Xmx192m -XX:+UseParallelGC (no concurrent marking at all).
set -u
O=$OUT; S=/tmp/s13; mkdir -p $S
export DIST=.carry/allsum-linux-x86_64.tar.xz
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
nmt="-XX:NativeMemoryTracking=summary -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics"
for v in 192m 192m-conc4 256m-conc4 192m-parallel; do
  case $v in
    192m) f="-Xmx192m";; 192m-conc4) f="-Xmx192m -XX:ConcGCThreads=4";; 256m-conc4) f="-Xmx256m -XX:ConcGCThreads=4";;
    192m-parallel) f="-Xmx192m -XX:-UseG1GC -XX:+UseParallelGC";;
  esac
  OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 RDV_TCPSTORE=0 \
    RDV_SERVER_OPTS="@conf/server-lowmem.jvmargs $f $nmt -Xlog:gc:file=$S/gc-$v.log" timeout 130 bash bench/h200/run.sh rdvfirst > $O/$v.txt 2>&1
  cp /tmp/rdvw-server.log $O/server-$v.log; cp $S/gc-$v.log $O/ 2>/dev/null
  el >> $O/$v.txt
  echo "$v: $(grep -E 'VmHWM|VmRSS|^ +16384 ' $O/$v.txt | tr -s ' \t' ' ' | tr '\n' '|') GC: $(grep -A1 -E '^-  +GC ' $O/server-$v.log | tail -1 | tr -s ' ') evacfail=$(grep -c 'Evacuation Failure' $S/gc-$v.log 2>/dev/null) full=$(grep -c 'Pause Full' $S/gc-$v.log 2>/dev/null)"
done
