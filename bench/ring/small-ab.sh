#!/usr/bin/env bash
# The ring's small all-reduces (the direct path, up to 64 KiB) of two dists, interleaved, REPS (3) runs each:
#   bench/ring/small-ab.sh <dist A> <dist B>     (each a folder with bin/allsum, its AOT caches trained)
set -uo pipefail
a=$1 b=$2
for rep in $(seq ${REPS:-3}); do
  for d in "$a" "$b"; do
    echo "## $d, rep $rep"
    "$d/bin/allsum" --backend ring --ranks ${RANKS:-4} --process-per-rank -b 8 -e 64K -f 4 -n 100 -w 10 -q 2>&1 \
      | grep -E '^ +[0-9]'
  done
done
