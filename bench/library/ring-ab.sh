#!/usr/bin/env bash
# ring 4 ranks: job path vs library, alternating, on this machine (the ring part of bench/h200/run.sh library). Both
# time a size as the slowest rank does (the job path with -a 3); ITERS (default 50) and WARMUP (5) per size.
# LIB_ARGS: more bench-library options for the library ranks (e.g. --direct).
set -uo pipefail
OUT=${OUT:-/tmp/ringab}
source "$(dirname "$0")/ring-job.sh"
source "$(dirname "$0")/ring-ranks.sh" 18190
for rep in $(seq ${REPS:-2}); do
  echo "## job path, ring 4 ranks, rep $rep"
  ring_job_sweep "$ALLSUM_HOME" ${ITERS:-50} ${WARMUP:-5}
  echo "## library, ring 4 ranks, rep $rep"; pids=()
  for r in 0 1 2 3; do lib_rank $r 4 "lib-ring-$rep" -b 8 -e 1M -f 2 -n ${ITERS:-50} -w ${WARMUP:-5} ${LIB_ARGS:-} > "$OUT/lib-ring-$r.txt" 2>&1 & pids+=($!); done
  wait "${pids[@]}"; grep -v 'INFO\|^[A-Z][a-z][a-z] [0-9]' "$OUT/lib-ring-0.txt"
done
stop_server
