#!/usr/bin/env bash
# The ring library's 1-2 KiB rows on this machine: the sweep as ring-ab.sh runs it, then variants that tell a code
# path from the sweep's history (the JIT compiling as sizes grow): starting at 1 KiB, 10x the iterations, no warm
# calls. Rank 0's lines carry the wall clock (s) and, in the first run, the JIT's compilations (-XX:+PrintCompilation).
set -uo pipefail
cd "$(dirname "$0")/../.."
export ALLSUM_HOME=${ALLSUM_HOME:?the dist, bin/allsum-aot-train run once} OUT=${OUT:-/tmp/ringgap}; mkdir -p $OUT
source bench/classpath.sh
JAVA=$ALLSUM_HOME/runtime/bin/java
$ALLSUM_HOME/bin/allsum-server --server.port=18191 > $OUT/server.log 2>&1 & srv=$!
for _ in $(seq 240); do curl -fsS http://127.0.0.1:18191/actuator/health >/dev/null 2>&1 && break; sleep 0.5; done
lib_rank() ( # rank group rank0-java-flags args...
  local rank=$1 group=$2 extra=$3; shift 3
  source "$ALLSUM_HOME/bin/allsum-common.sh"; allsum_jvm_flags worker ring
  [ "$rank" = 0 ] && [ -n "$extra" ] && ALLSUM_JVM_FLAGS+=($extra)
  ALLSUM_SERVER=http://127.0.0.1:18191 ALLSUM_GROUP=$group ALLSUM_RANK=$rank ALLSUM_WORLD_SIZE=4 \
    ALLSUM_BACKEND=ring exec timeout 150 "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$(bench_cp)" io.allsum.bench.BenchCommand \
    bench-library "$@"
)
stamp() { while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME}" "$line"; done; }
variant() { # name rank0-java-flags args...
  local name=$1 extra=$2; shift 2; local pids=()
  echo "## library, ring 4 ranks: $name ($*)"
  for r in 1 2 3; do lib_rank $r "gap-$name" "" "$@" > "$OUT/$name-$r.txt" 2>&1 & pids+=($!); done
  lib_rank 0 "gap-$name" "$extra" "$@" 2>&1 | stamp > "$OUT/$name-0.txt"
  wait "${pids[@]}"
  grep -E ' float +sum |^[0-9.]+ #' "$OUT/$name-0.txt" || tail -20 "$OUT/$name-0.txt"
}
variant sweep-jit "-XX:+PrintCompilation" -b 8 -e 1M -f 2 -n 50 -w 5
variant from-1k "" -b 1K -e 8K -f 2 -n 50 -w 5
variant iters-500 "" -b 8 -e 16K -f 2 -n 500 -w 50
variant no-warm-calls "" -b 8 -e 16K -f 2 -n 50 -w 5 --warm-calls 0
variant sweep-again "" -b 8 -e 1M -f 2 -n 50 -w 5
echo "## job path, ring 4 ranks"
$ALLSUM_HOME/bin/allsum --backend ring --ranks 4 --process-per-rank -b 8 -e 1M -f 2 -n 50 -w 5 -q
echo "## rank 0's compilations between the 512 B row and the 4 KiB row of the first run (wall clock, JIT line)"
awk '/ 512 +128 +float/{on=1} on' "$OUT/sweep-jit-0.txt" | awk '/ 4096 +1024 +float/{print; exit} {print}' | head -200
kill $srv
