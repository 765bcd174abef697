#!/usr/bin/env bash
# nvidia-h200-x2, 32 cores: every size on a fresh low-memory server; a third warm repetition;
# fresh client processes with the bench's minimal clients and with HttpAllsumClient.
set -u
O=$OUT; S=/tmp/s12; mkdir -p $S
export DIST=.carry-s12/allsum-linux-x86_64.tar.xz RDV_SETTLE=1
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=64,256,1024,4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 \
  RDV_SERVER_OPTS=@conf/server-lowmem.jvmargs timeout 300 bash bench/h200/run.sh rdvfirst > $O/full.txt 2>&1; el >> $O/full.txt
for c in blocking allsum; do
  echo "######## rdv --clients $c, repetition 3" >> $O/warm-3.txt
  OUT=$S RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_TCPSTORE=0 RDV_BENCH_OPTS="--clients $c" \
    timeout 100 bash bench/h200/run.sh rdv >> $O/warm-3.txt 2>&1; el >> $O/warm-3.txt
done
echo "######## TCPStore, repetition 3" >> $O/warm-3.txt
timeout 60 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 >> $O/warm-3.txt 2>&1; el >> $O/warm-3.txt
for c in blocking allsum; do
  OUT=$S REPS=1 RDVW_JOINS=8192 RDVW_FRESH=1 RDVW_CLIENTS=$c RDV_RANKS=64 RDV_PROCS=63 RDV_ROUNDS=5 RDV_TCPSTORE=$([ $c = allsum ] && echo 1 || echo 0) \
    timeout 90 bash bench/h200/run.sh rdvfirst > $O/fresh-$c.txt 2>&1; el >> $O/fresh-$c.txt
done
