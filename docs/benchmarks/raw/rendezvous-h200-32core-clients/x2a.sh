#!/usr/bin/env bash
# nvidia-h200-x2, 32 cores: issue 15's client layouts on that issue's host kind.
set -u
O=$OUT; S=/tmp/s12; mkdir -p $S
export DIST=.carry-s12/allsum-linux-x86_64.tar.xz RDV_SETTLE=1
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
OUT=$S bash bench/h200/run.sh env > $O/env.txt 2>&1; el >> $O/env.txt
for i in 1 2; do
  for c in blocking allsum; do
    echo "######## rdv --clients $c, repetition $i" >> $O/warm-$i.txt
    OUT=$S RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_TCPSTORE=0 RDV_BENCH_OPTS="--clients $c" \
      timeout 150 bash bench/h200/run.sh rdv >> $O/warm-$i.txt 2>&1; el >> $O/warm-$i.txt
  done
  echo "######## TCPStore, repetition $i" >> $O/warm-$i.txt
  timeout 120 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7 >> $O/warm-$i.txt 2>&1
  el >> $O/warm-$i.txt
done
OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=64,256,1024,4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=20 \
  RDV_SERVER_OPTS=@conf/server-lowmem.jvmargs timeout 200 bash bench/h200/run.sh rdvfirst > $O/full.txt 2>&1; el >> $O/full.txt
OUT=$S REPS=1 RDVW_JOINS=8192 RDVW_FRESH=1 RDV_RANKS=64 RDV_PROCS=63 RDV_ROUNDS=3 \
  timeout 120 bash bench/h200/run.sh rdvfirst > $O/fresh.txt 2>&1; el >> $O/fresh.txt
