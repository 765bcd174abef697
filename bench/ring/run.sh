#!/usr/bin/env bash
# Ring backend benchmark: one-stream loopback TCP probe, then float32 sum all-reduce with 2, 4 and 8 processes on
# this host (nccl-tests-style rows). Usage: bench/ring/run.sh [extra RingBenchmark options, e.g. -b 8 -e 256M]
# Env: JAVA (java binary), RANKS ("2 4 8"), JAVA_OPTS (e.g. -Xmx4g), BUILD=0 to skip building a missing jar.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ -z "${JAVA:-}" ]]; then
  if [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java; else JAVA=java; fi
fi
JAR=worker-agent/target/worker-agent.jar
if [[ ! -f "$JAR" && "${BUILD:-1}" == 1 ]]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$JAVA")")")" ./mvnw -q -pl worker-agent -am package -DskipTests
fi
[[ -f "$JAR" ]] || { echo "run.sh: $JAR is missing (build it with ./mvnw -pl worker-agent -am package -DskipTests)" >&2; exit 1; }
run() {
  # shellcheck disable=SC2086
  "$JAVA" ${JAVA_OPTS:--Xmx4g} --enable-native-access=ALL-UNNAMED -cp "$JAR" \
    -Dloader.main=io.allsum.worker.bench.RingBenchmark org.springframework.boot.loader.launch.PropertiesLauncher "$@"
}
echo "# host: $(uname -srm), $(nproc) cpus, $("$JAVA" -version 2>&1 | head -1)"
run --probe "$@"
for n in ${RANKS:-2 4 8}; do
  run --launch "$n" "$@"
done
