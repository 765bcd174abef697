#!/usr/bin/env bash
# nvidia-h200, 16 cores: server-lowmem's heap bound of -Xmx256m against -Xmx192m and
# -Xmx192m with 2 compiler threads, alternating twice; 4096 and 16,384 ranks, 5 rounds, on a fresh server with its
# join-path warm-up; peak RSS (VmHWM) and RSS 30 s after the last round.
set -u
O=$OUT; S=/tmp/s13; mkdir -p $S
export DIST=.carry/allsum-linux-x86_64.tar.xz
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
bash bench/h200/run.sh env > $O/env.txt 2>&1; el >> $O/env.txt
for rep in 1 2; do for v in 256m 192m 192m-cc2; do
  x=${v%%-*}; extra=""; [ "$v" = 192m-cc2 ] && extra="-XX:CICompilerCount=2"
  OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 RDV_TCPSTORE=0 \
    RDV_SERVER_OPTS="@conf/server-lowmem.jvmargs -Xmx$x $extra" timeout 130 bash bench/h200/run.sh rdvfirst > $O/lowmem-$v-$rep.txt 2>&1
  el >> $O/lowmem-$v-$rep.txt
  grep -E 'VmHWM|VmRSS|^ +16384 ' $O/lowmem-$v-$rep.txt | tr -s ' ' | sed "s/^/$v-$rep: /"
done; done
