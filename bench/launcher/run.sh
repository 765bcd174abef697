#!/usr/bin/env bash
# Launcher benchmarks (issue 4, item 5): cold start with 1 rank, then dispatch latency and job pipeline overhead
# at 4 and 8 ring ranks. Usage: bench/launcher/run.sh [jobs-per-world-size]   (results go to stdout)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
jobs="${1:-50}"

echo "# machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(uname -sr)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
./allsum --version >/dev/null   # builds the jars once, outside the timings
source bench/classpath.sh
BENCH_CP="$(bench_cp)"

echo "## cold start: command to first all-sum done, 1 ring rank (3 runs)"
for i in 1 2 3; do
  start=$(date +%s.%N)
  ./allsum --backend ring --ranks 1 -b 4 -e 4 -n 1 -w 0 -q >/dev/null
  end=$(date +%s.%N)
  printf 'cold start run %d: %.2f s\n' "$i" "$(echo "$end - $start" | bc)"
done

echo "## dispatch latency and pipeline overhead ($jobs jobs per world size)"
"${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" @packaging/jvm/launcher.jvmargs -Dallsum.repo="$root" \
  -cp "$BENCH_CP" io.allsum.bench.BenchCommand bench-dispatch --ranks 4,8 --jobs "$jobs" --warmup-jobs 10
