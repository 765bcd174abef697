#!/usr/bin/env bash
# Ring backend benchmark: one-stream loopback TCP probe, then float32 sum all-reduce with 2, 4 and 8 processes on
# this host (nccl-tests-style rows). Usage: bench/ring/run.sh [extra RingBenchmark options, e.g. -b 8 -e 256M]
# Env: JAVA (java binary), RANKS ("2 4 8"), JAVA_OPTS (e.g. -Xmx4g), BUILD=0 to skip building a missing jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/classpath.sh
if [[ -z "${JAVA:-}" ]]; then
  if [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; else JAVA=java; fi
fi
if [[ ! -f bench/target/allsum-bench.jar && "${BUILD:-1}" == 1 ]]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA")")")" ./mvnw -q -pl bench -am package -DskipTests
fi
CP="$(bench_cp)"
run() {
  # shellcheck disable=SC2086
  "$JAVA" ${JAVA_OPTS:--Xmx4g} --enable-native-access=ALL-UNNAMED -cp "$CP" io.allsum.bench.ring.RingBenchmark "$@"
}
echo "# host: $(uname -srm), $(nproc) cpus, $("$JAVA" -version 2>&1 | head -1)"
run --probe "$@"
for n in ${RANKS:-2 4 8}; do
  run --launch "$n" "$@"
done
