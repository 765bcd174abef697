# Sourced by ring-ab.sh and ring-gap.sh: the dist's server on port $1 (stopped by stop_server) and lib_rank, one
# bench-library rank of a ring group joined there.
#   lib_rank RANK WORLD GROUP bench-library-args...
# LIB_FLAGS picks the ranks' JVM flags (bench/library/lib-flags.sh); RANK0_FLAGS: more JVM flags for rank 0 only.
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export ALLSUM_HOME=${ALLSUM_HOME:?the dist, bin/allsum-aot-train run once}; mkdir -p "$OUT"
source bench/classpath.sh
source bench/library/lib-flags.sh
JAVA=$ALLSUM_HOME/runtime/bin/java
RANKS_PORT=$1
$ALLSUM_HOME/bin/allsum-server --server.port=$RANKS_PORT > $OUT/server.log 2>&1 & srv=$!
for _ in $(seq 240); do curl -fsS http://127.0.0.1:$RANKS_PORT/actuator/health >/dev/null 2>&1 && break; sleep 0.5; done
stop_server() { kill $srv; }
lib_rank() (
  local rank=$1 world=$2 group=$3; shift 3
  lib_jvm_flags "$rank" ring "$OUT" || exit
  # shellcheck disable=SC2206
  [ "$rank" = 0 ] && ALLSUM_JVM_FLAGS+=(${RANK0_FLAGS:-})
  ALLSUM_SERVER=http://127.0.0.1:$RANKS_PORT ALLSUM_GROUP=$group ALLSUM_RANK=$rank ALLSUM_WORLD_SIZE=$world \
    ALLSUM_BACKEND=ring exec timeout 150 "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$(bench_cp)" io.allsum.bench.BenchCommand \
    bench-library "$@"
)
