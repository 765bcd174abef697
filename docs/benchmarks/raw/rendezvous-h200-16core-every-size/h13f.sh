#!/usr/bin/env bash
# nvidia-h200, 16 cores: server-lowmem as shipped (-Xmx192m -XX:ConcGCThreads=4, given here on top of the carried
# dist's file, which says -Xmx256m; the later flags win). First a fresh server with
# its warm-up, 4096 + 16,384 ranks, 5 rounds: peak RSS and RSS 30 s after. Then every size on one server, with
# TCPStore in the same call: RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 (the first 1024 row warms the clients).
set -u
O=$OUT; S=/tmp/s13; mkdir -p $S
export DIST=.carry/allsum-linux-x86_64.tar.xz
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
lowmem="@conf/server-lowmem.jvmargs -Xmx192m -XX:ConcGCThreads=4"
OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 RDV_TCPSTORE=0 \
  RDV_SERVER_OPTS="$lowmem" timeout 130 bash bench/h200/run.sh rdvfirst > $O/lowmem-shipped.txt 2>&1
el >> $O/lowmem-shipped.txt
grep -E 'VmHWM|VmRSS|^ +16384 ' $O/lowmem-shipped.txt | tr -s ' \t' ' '
OUT=$S RDV_RANKS=1024,64,256,1024,4096,16384 RDV_ROUNDS=7 RDV_SERVER_OPTS="$lowmem" timeout 330 bash bench/h200/run.sh rdv > $O/rdv-all.txt 2>&1
el >> $O/rdv-all.txt
grep -E '^ +[0-9]+ +[0-9]+ |VmHWM|VmRSS|## ' $O/rdv-all.txt | tr -s ' \t' ' '
