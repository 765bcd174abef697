#!/usr/bin/env bash
# The ring job path's small messages with the worker AOT cache allsum-aot-train makes (2 ranks in one JVM) against a
# copy of the dist whose worker cache was trained on the measured shape (4 processes, ITERS calls a size), alternating
# REPS (3) times, ITERS (500) calls a size after WARMUP (50). Series "## shipped" and "## trained".
set -uo pipefail
: "${ALLSUM_HOME:?the dist, bin/allsum-aot-train run once}"
source "$(dirname "$0")/ring-job.sh"
shipped=$ALLSUM_HOME alt=${ALT_HOME:-/tmp/allsum-trained}
n=${ITERS:-500} w=${WARMUP:-50}
rm -rf "$alt" && cp -r "$shipped" "$alt"
rec=$(mktemp -d)
(cd "$rec" && ALLSUM_AOT_RECORD=$rec ALLSUM_AOT=off ring_job_sweep "$alt" "$n" "$w" > "$rec/training.log" 2>&1) \
  || { tail -3 "$rec/training.log"; exit 1; }
mv "$(ls "$rec"/worker.*.aot | head -1)" "$alt/lib/worker.aot" && rm -rf "$rec"
for rep in $(seq ${REPS:-3}); do
  for v in shipped trained; do
    home=$shipped; [ $v = trained ] && home=$alt
    echo "## $v, rep $rep"
    ring_job_sweep "$home" "$n" "$w"
  done
done
