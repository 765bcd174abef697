#!/usr/bin/env bash
# ring 4 ranks: job path vs library, alternating, on this machine (the ring part of bench/h200/run.sh library). Both
# time a size as the slowest rank does (the job path with -a 3); ITERS (default 50) and WARMUP (5) per size.
# LIB_ARGS: more bench-library options for the library ranks (e.g. --direct).
set -uo pipefail
cd "$(dirname "$0")/../.."
export ALLSUM_HOME=${ALLSUM_HOME:?the dist, bin/allsum-aot-train run once} OUT=${OUT:-/tmp/ringab}; mkdir -p $OUT
source bench/classpath.sh
JAVA=$ALLSUM_HOME/runtime/bin/java
$ALLSUM_HOME/bin/allsum-server --server.port=18190 > $OUT/server.log 2>&1 & srv=$!
for _ in $(seq 240); do curl -fsS http://127.0.0.1:18190/actuator/health >/dev/null 2>&1 && break; sleep 0.5; done
lib_rank() (
  local rank=$1 world=$2 group=$3; shift 3
  source "$ALLSUM_HOME/bin/allsum-common.sh"; allsum_jvm_flags worker ring
  # LIB_FLAGS=plain: a user program's JVM (the JDK's JIT thresholds, no worker.jvmargs); default: the worker's flags
  # LIB_FLAGS=aot: the worker's flags and a JDK AOT cache of the program itself, recorded by each rank's first run
  # (rep 1 then pays the recording), as the job path's workers map theirs
  [ "${LIB_FLAGS:-worker}" = plain ] && ALLSUM_JVM_FLAGS=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC)
  if [ "${LIB_FLAGS:-worker}" = aot ]; then
    if [ -f "$OUT/lib-$rank.aot" ]; then ALLSUM_JVM_FLAGS+=("-XX:AOTCache=$OUT/lib-$rank.aot" -Xlog:aot*=off)
    else ALLSUM_JVM_FLAGS+=("-XX:AOTCacheOutput=$OUT/lib-$rank.aot"); fi
  fi
  ALLSUM_SERVER=http://127.0.0.1:18190 ALLSUM_GROUP=$group ALLSUM_RANK=$rank ALLSUM_WORLD_SIZE=$world \
    ALLSUM_BACKEND=ring exec timeout 150 "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$(bench_cp)" io.allsum.bench.BenchCommand \
    bench-library "$@"
)
for rep in $(seq ${REPS:-2}); do
  echo "## job path, ring 4 ranks, rep $rep"
  $ALLSUM_HOME/bin/allsum --backend ring --ranks 4 --process-per-rank -b 8 -e 1M -f 2 -n ${ITERS:-50} -w ${WARMUP:-5} -a 3 -q
  echo "## library, ring 4 ranks, rep $rep"; pids=()
  for r in 0 1 2 3; do lib_rank $r 4 "lib-ring-$rep" -b 8 -e 1M -f 2 -n ${ITERS:-50} -w ${WARMUP:-5} ${LIB_ARGS:-} > "$OUT/lib-ring-$r.txt" 2>&1 & pids+=($!); done
  wait "${pids[@]}"; grep -v 'INFO\|^[A-Z][a-z][a-z] [0-9]' "$OUT/lib-ring-0.txt"
done
kill $srv
