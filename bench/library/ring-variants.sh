#!/usr/bin/env bash
# ring-ab.sh once per library-rank variant, to tell the JVM from the library's own code in the small-message gap:
#   worker (the worker's JVM flags), plain (the JDK's JIT thresholds), aot (an AOT cache of the program), direct
#   (the backend's communicator, comm.unwrap()). Each variant's output: $OUT/ring-ab-<variant>.txt.
set -uo pipefail
OUT=${OUT:-/tmp/ringvar}; mkdir -p "$OUT"
here=$(dirname "$0")
for v in ${VARIANTS:-worker plain aot direct}; do
  case $v in
    worker) env=() ;;
    plain) env=(LIB_FLAGS=plain) ;;
    aot) env=(LIB_FLAGS=aot) ;;
    direct) env=(LIB_ARGS=--direct) ;;
    *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  echo "# variant $v: ${env[*]:-} REPS=${REPS:-3} ITERS=${ITERS:-500} WARMUP=${WARMUP:-50} bash bench/library/ring-ab.sh"
  env "${env[@]}" OUT="$OUT/$v" REPS=${REPS:-3} ITERS=${ITERS:-500} WARMUP=${WARMUP:-50} bash "$here/ring-ab.sh" \
    > "$OUT/ring-ab-$v.txt" 2>&1
  python3 bench/h200/medians.py "$OUT/ring-ab-$v.txt"
done
