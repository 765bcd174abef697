#!/usr/bin/env bash
# Rendezvous benchmark (issue 2, item 8): starts the rendezvous server jar on a free port with a bearer token,
# runs bench-rendezvous against it over real HTTP, prints the server's RSS before and after, stops the server.
# Builds nothing; build first with:  ./mvnw -q -DskipTests package -pl rendezvous-server,bench -am
# Usage: bench/rendezvous/run.sh [bench-rendezvous options, e.g. --ranks 64,256 --rounds 5 --backend nccl]
# Env: PORT (default 18080), SERVER_JAVA_OPTS, BENCH_JAVA_OPTS, JAVA_HOME (default Temurin 25), ALLSUM_TOKEN,
# SERVER_JAR (another build, e.g. the one before a change), SERVER_JVMARGS (the server's flags file,
# default the product's packaging/jvm/server.jvmargs), SETTLE (seconds idle after the run before the server's RSS is
# read again, default 20), WARM_SERVER (0: no unmeasured rounds before the measured ones, which a long-running server
# has behind it). Thousands of waiting joins are as many connections on both sides: the script raises `ulimit -n` to
# its hard limit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/classpath.sh

JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA="$JAVA_HOME/bin/java"
PORT=${PORT:-18080}
export ALLSUM_TOKEN=${ALLSUM_TOKEN:-bench-$RANDOM$RANDOM$RANDOM}
SERVER_JAR=${SERVER_JAR:-rendezvous-server/target/rendezvous-server.jar}
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

[[ -f $SERVER_JAR ]] || { echo "bench-rendezvous: $SERVER_JAR is missing; build it first (see the top of $0)" >&2; exit 2; }
BENCH_CP="$(bench_cp)" || exit 2

SERVER_LOG=$(mktemp -t allsum-bench-server.XXXXXX.log)
# shellcheck disable=SC2086 # SERVER_JAVA_OPTS is a list of flags
"$JAVA" "@${SERVER_JVMARGS:-packaging/jvm/server.jvmargs}" ${SERVER_JAVA_OPTS:-} -jar "$SERVER_JAR" --server.port="$PORT" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

rss_kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$SERVER_PID/status"; }

for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$PORT/actuator/health" >/dev/null 2>&1; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "bench-rendezvous: server exited; log: $SERVER_LOG" >&2; tail -20 "$SERVER_LOG" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/actuator/health" >/dev/null || { echo "bench-rendezvous: server not healthy after 60 s; log: $SERVER_LOG" >&2; exit 1; }

echo "# machine: $(nproc) cpus, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $("$JAVA" -version 2>&1 | head -1)"
echo "# server pid $SERVER_PID on port $PORT; RSS before: $(rss_kib VmRSS) kB; load average: $(cut -d" " -f1-3 /proc/loadavg)"

bench() {
  # shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of flags
  "$JAVA" ${BENCH_JAVA_OPTS:-} -cp "$BENCH_CP" io.allsum.bench.rendezvous.RendezvousBenchmark \
    --server "http://127.0.0.1:$PORT" "$@"
}
# A long-running server is warm: unmeasured rounds first (WARM_SERVER=0: none, to measure a server's first rounds).
[[ ${WARM_SERVER:-1} == 0 ]] || bench --ranks 256,8,64,8 --rounds 10 --procs 2 >/dev/null 2>&1
bench --server-pid "$SERVER_PID" "$@"

echo "# server RSS after: $(rss_kib VmRSS) kB, peak (VmHWM): $(rss_kib VmHWM) kB; load average: $(cut -d" " -f1-3 /proc/loadavg); server log: $SERVER_LOG"
sleep "${SETTLE:-20}"
echo "# server RSS ${SETTLE:-20} s after the run (idle): $(rss_kib VmRSS) kB"
