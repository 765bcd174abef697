#!/usr/bin/env bash
# Session 12, call C on nvidia-h200 (16 cores): server-lowmem's heap bound, -Xmx256m (as shipped) against -Xmx224m,
# alternating, 4096 and 16,384 ranks on a fresh server with its join-path warm-up; peak RSS and RSS 30 s after.
set -u
O=$OUT; S=/tmp/s12; mkdir -p $S
export DIST=.carry-s12/allsum-linux-x86_64.tar.xz
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
for rep in 1 2; do for x in 256m 224m; do
  OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 RDV_TCPSTORE=0 \
    RDV_SERVER_OPTS="@conf/server-lowmem.jvmargs -Xmx$x" timeout 140 bash bench/h200/run.sh rdvfirst > $O/lowmem-$x-$rep.txt 2>&1
  el >> $O/lowmem-$x-$rep.txt
done; done
