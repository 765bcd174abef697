#!/usr/bin/env bash
# Session 12, call D on nvidia-h200 (16 cores): HttpAllsumClient with JoinWire (the join's JSON through Jackson's
# streaming API; .carry-s12/new/shared-model jar) against the dist's (databind), alternating in the warm
# layout, then with 63 fresh client processes; the blocking clients and TCPStore once for reference.
set -u
O=$OUT; S=/tmp/s12; mkdir -p $S
export DIST=.carry-s12/allsum-linux-x86_64.tar.xz RDV_SETTLE=1
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
L=/tmp/allsum-dist/allsum-linux-x86_64/lib; J=shared-model-0.1.0-SNAPSHOT.jar
OUT=$S bash bench/h200/run.sh env > $O/env.txt 2>&1; el >> $O/env.txt
cp $L/$J $S/old.jar
# the next run.sh trains the AOT caches again for the jar in place
use() { cp "$1" $L/$J; rm -f $L/*.aot; echo "######## client jar: $2 ($(unzip -l $L/$J | grep -c JoinWire) JoinWire classes)"; }
warm() {
  echo "######## rdv --clients $1 ($2)"
  OUT=$S RDV_RANKS=1024,64,256,1024 RDV_ROUNDS=7 RDV_TCPSTORE=0 RDV_BENCH_OPTS="--clients $1" timeout 120 bash bench/h200/run.sh rdv
  el
}
{
  warm allsum databind-1; warm blocking databind
  use .carry-s12/new/$J joinwire; warm allsum joinwire-1
  use $S/old.jar databind; warm allsum databind-2
  use .carry-s12/new/$J joinwire; warm allsum joinwire-2
  echo "######## TCPStore"; timeout 60 python3 bench/rendezvous/tcpstore_bench.py --ranks 1024,64,256,1024 --procs 16 --rounds 7; el
} > $O/warm.txt 2>&1
{
  echo "######## fresh, joinwire"
  OUT=$S REPS=1 RDVW_JOINS=8192 RDVW_FRESH=1 RDV_RANKS=64 RDV_PROCS=63 RDV_ROUNDS=5 RDV_TCPSTORE=0 timeout 100 bash bench/h200/run.sh rdvfirst; el
  use $S/old.jar databind
  echo "######## fresh, databind"
  OUT=$S REPS=1 RDVW_JOINS=8192 RDVW_FRESH=1 RDV_RANKS=64 RDV_PROCS=63 RDV_ROUNDS=5 RDV_TCPSTORE=0 timeout 100 bash bench/h200/run.sh rdvfirst; el
} > $O/fresh.txt 2>&1
