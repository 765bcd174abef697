#!/usr/bin/env bash
# burst.sh TAG [extra server opts...] : 16,384-rank rounds on a fresh lowmem server, sampled; env ENVS for the server
set -u
cd /work/main
tag=$1; shift
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
export ALLSUM_TOKEN=memtok
ulimit -n $(ulimit -Hn)
PORT=${PORT:-18601}
env ${ENVS:-} $J/java @packaging/jvm/server.jvmargs @packaging/jvm/server-lowmem.jvmargs -XX:NativeMemoryTracking=summary "$@" \
  -jar rendezvous-server/target/rendezvous-server.jar --server.port=$PORT > /tmp/mem/$tag.server.log 2>&1 &
SP=$!
for i in $(seq 1 120); do curl -fsS http://127.0.0.1:$PORT/actuator/health >/dev/null 2>&1 && break; sleep 0.5; done
/tmp/mem/sample.sh $SP /tmp/mem/$tag.samples &
sleep ${IDLE_WAIT:-25}   # the join-path warm-up runs in the background
echo "idle: $(grep -E 'VmRSS|VmHWM|Threads' /proc/$SP/status | tr -s ' \t' ' ' | tr '\n' ' ')"
$J/jcmd $SP VM.native_memory summary > /tmp/mem/$tag.nmt.idle
$J/java -Dloader.main=io.allsum.launcher.bench.RendezvousBenchmark -cp launcher/target/allsum-launcher.jar \
  org.springframework.boot.loader.launch.PropertiesLauncher --server http://127.0.0.1:$PORT --server-pid $SP \
  --ranks ${RANKS:-16384} --rounds ${ROUNDS:-3} --warmup 0 ${BENCH_EXTRA:-} --procs ${PROCS:-4} --join-wait 300 2>&1 | grep -v '^$' | tail -6
echo "after: $(grep -E 'VmRSS|VmHWM|Threads' /proc/$SP/status | tr -s ' \t' ' ' | tr '\n' ' ')"
$J/jcmd $SP VM.native_memory summary > /tmp/mem/$tag.nmt.after
sleep 30
echo "30s: $(grep -E 'VmRSS' /proc/$SP/status | tr -s ' \t' ' ')"
kill $SP; wait $SP 2>/dev/null
awk 'BEGIN{m=0;t=0} {if($3>m){m=$3;a=$4;f=$5} if($2>t)t=$2} END{print "peak sampled RSS", m, "anon", a, "file", f, "max threads", t}' /tmp/mem/$tag.samples
