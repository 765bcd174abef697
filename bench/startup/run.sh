#!/usr/bin/env bash
# Side by side, interleaved, on this machine: ./allsum's default job (4 ring ranks, all-sum 8 B .. 64 MiB, 5 warm-up
# + 20 iterations, verified) against the same sweep with PyTorch Gloo and 4 processes (gloo_sweep.py), RUNS times
# each, with what each lever buys beside them: the same job with every ring byte on TCP (ALLSUM_RING_SHARED_MEMORY=
# false), with a JVM per rank (--process-per-rank), and once each without the JDK AOT caches and Spring AOT. Wall and
# CPU seconds per run, then medians and the ratio. Usage: PYTHON=/path/to/python-with-torch bench/startup/run.sh [RUNS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
runs="${1:-3}"
python="${PYTHON:-python3}"
out="$(mktemp -d)"

echo "# machine: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(uname -sr)"
echo "# java: $(./allsum --version 2>&1 | head -1) on $("${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"/bin/java -version 2>&1 | sed -n 2p)"
echo "# torch: $("$python" -c 'import torch; print(torch.__version__)')"
# One unmeasured run after a build records the AOT caches (and builds the jars if needed).
./allsum -q --ranks 2 -b 8 -e 1K >/dev/null

timed() { # label command... -> "label wall cpu" on stdout
  local label="$1"; shift
  /usr/bin/time -f "%e %U %S" -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || {
    echo "$label FAILED: $(tail -1 "$out/stderr")"; return 0; }
  read -r wall user sys < "$out/time"
  printf '%-22s wall %6.2f s  cpu %6.2f s  load %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(cut -d' ' -f1 /proc/loadavg)"
}

for i in $(seq 1 "$runs"); do
  timed "allsum" ./allsum -q
  timed "allsum TCP only" env ALLSUM_RING_SHARED_MEMORY=false ./allsum -q
  timed "allsum JVM per rank" ./allsum -q --process-per-rank
  timed "gloo" "$python" bench/startup/gloo_sweep.py 4
  # Without the JDK's AOT caches (fat jars as built), and without Spring AOT: once each, in the middle of the series,
  # to see what each buys.
  if [ "$i" = 2 ]; then
    timed "allsum ALLSUM_AOT=off" env ALLSUM_AOT=off ./allsum -q
    timed "allsum SPRING_AOT=off" env ALLSUM_SPRING_AOT=off ./allsum -q
  fi
done | tee "$out/all"

echo "## medians of $runs runs"
for label in "allsum" "allsum TCP only" "allsum JVM per rank" "gloo" "allsum ALLSUM_AOT=off" "allsum SPRING_AOT=off"; do
  { grep "^$label  *wall" "$out/all" || true; } | awk '{for (i = 1; i < NF; i++) if ($i == "wall") print $(i + 1)}' | sort -n | awk -v l="$label" \
    '{v[NR]=$1} END {printf "%-22s median wall %.2f s\n", l, v[int((NR+1)/2)]}'
done | tee "$out/medians"
a=$(awk '/^allsum  *median/ {print $4}' "$out/medians"); g=$(awk '/^gloo/ {print $4}' "$out/medians")
printf 'allsum / gloo = %.2f\n' "$(echo "$a / $g" | bc -l)"
rm -rf "$out"
