#!/usr/bin/env bash
# The ring library's 1-2 KiB rows on this machine: the sweep as ring-ab.sh runs it, then variants that tell a code
# path from the sweep's history (the JIT compiling as sizes grow): starting at 1 KiB, 10x the iterations, no warm
# calls. Rank 0's lines carry the wall clock (s) and, in the first run, the JIT's compilations (-XX:+PrintCompilation).
set -uo pipefail
OUT=${OUT:-/tmp/ringgap}
source "$(dirname "$0")/ring-ranks.sh" 18191
stamp() { while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME}" "$line"; done; }
variant() { # name rank0-java-flags args...
  local name=$1 extra=$2; shift 2; local pids=()
  echo "## library, ring 4 ranks: $name ($*)"
  for r in 1 2 3; do lib_rank $r 4 "gap-$name" "$@" > "$OUT/$name-$r.txt" 2>&1 & pids+=($!); done
  RANK0_FLAGS=$extra lib_rank 0 4 "gap-$name" "$@" 2>&1 | stamp > "$OUT/$name-0.txt"
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
stop_server
