#!/usr/bin/env bash
# nvidia-h200, 16 cores: what G1 allocates natively at 16,384 waiting joins.
# One rdvfirst run (4096 + 16,384 ranks, 5 rounds, fresh server with its warm-up) with Native Memory Tracking
# printed at exit (current and peak per category), a sampler of the server's threads, RSS, RssAnon and RssFile every
# 0.25 s.
set -u
O=$OUT; S=/tmp/s13; mkdir -p $S
export DIST=.carry/allsum-linux-x86_64.tar.xz
t0=$(date +%s); el() { echo "# elapsed $(( $(date +%s) - t0 )) s"; }
sampler() { # file
  local p=""; for _ in $(seq 400); do p=$(pgrep -f 'server.port=18082' | head -1); [ -n "$p" ] && break; sleep 0.25; done
  while kill -0 $p 2>/dev/null; do
    echo "$(date +%s.%N | cut -c1-14) $(awk '/^(Threads|VmRSS|RssAnon|RssFile):/{printf "%s %s ", $1, $2}' /proc/$p/status)" >> $1
    sleep 0.25
  done
}
for v in detail; do
  sampler $O/samples-$v.txt & sp=$!
  OUT=$S RDVW_JOINS=8192 REPS=1 RDV_RANKS=4096,16384 RDV_ROUNDS=5 RDVW_SETTLE=30 RDV_TCPSTORE=0 \
    RDV_SERVER_OPTS="@conf/server-lowmem.jvmargs -Xmx192m -XX:NativeMemoryTracking=detail -Xlog:gc*:file=/tmp/s13/gc.log -XX:+UnlockDiagnosticVMOptions -XX:+PrintNMTStatistics" \
    timeout 150 bash bench/h200/run.sh rdvfirst > $O/lowmem-192m-$v.txt 2>&1
  sleep 3; kill $sp 2>/dev/null
  cp /tmp/rdvw-server.log $O/server-$v.log
  el >> $O/lowmem-192m-$v.txt
  grep -E 'VmHWM|VmRSS|^ +16384 ' $O/lowmem-192m-$v.txt | tr -s ' '
  awk '{for(i=1;i<=NF;i++){if($i=="Threads:"&&$(i+1)>t)t=$(i+1); if($i=="VmRSS:"&&$(i+1)>r){r=$(i+1)}}} END{print "max threads", t, "max sampled rss", r}' $O/samples-$v.txt
done
cp /tmp/s13/gc.log $O/gc-detail.log; grep -cE 'Evacuation Failure|To-space' $O/gc-detail.log; grep -E '^-  +GC ' -A3 $O/server-detail.log
